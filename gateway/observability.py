"""Owns what the gateway tells operators: structlog set up as JSON lines or console, loggers, the fields
bound per exchange, the one line per exchange with its notes, and the note and key counters."""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterable, MutableMapping
from contextvars import ContextVar
from enum import Enum
from typing import Any, Literal, TextIO, cast

import structlog
from structlog.typing import EventDict, FilteringBoundLogger, Processor

from gateway.config import LogSettings
from gateway.core import jsoncodec
from gateway.core.notes import Note

__all__ = [
    "NOTE_COUNTER",
    "KeyCounter",
    "Logger",
    "NoteCounter",
    "bind",
    "bind_exchange",
    "bound",
    "clear",
    "configure",
    "get_logger",
    "log_exchange",
    "log_notes",
    "merge_exchange",
    "notes_as_json",
    "open_exchange",
    "plain",
    "reset",
]

# --- the per-exchange context --------------------------------------------------------------------


def plain(value: object) -> object:
    """A value as logged: an enum by its value, anything else as it is."""
    return value._value_ if isinstance(value, Enum) else value  # _value_: a plain slot; .value is a descriptor call


# The exchange's fields live in one context variable holding a dict that is never mutated (binding
# sets a new one), so a task started from a request sees the fields bound so far and its own bindings
# stay its own. One variable instead of structlog's one per key: binding, clearing and merging into a
# line cost a dict copy, not a walk over the whole context.
_EMPTY: dict[str, object] = {}
_fields: ContextVar[dict[str, object]] = ContextVar("a2a_gateway_exchange_fields", default=_EMPTY)


def merge_exchange(logger: object, method_name: str, event_dict: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """Processor: the bound exchange fields, under the line's own fields (which win)."""
    for key, value in _fields.get().items():
        event_dict.setdefault(key, value)
    return event_dict


def bind_exchange(**fields: object) -> None:
    """Bind fields to every line logged from the current context (one aiohttp request runs in its own
    task, so its bindings stay its own). None values are skipped; enums are logged by value."""
    new = dict(_fields.get())
    for key, value in fields.items():
        if value is not None:
            new[key] = value._value_ if isinstance(value, Enum) else value   # plain(), inline: once per field
    _fields.set(new)


def open_exchange(**fields: object) -> None:
    """Start a new exchange in the current context: only `fields` bound (None values skipped, enums by
    value), whatever was bound before forgotten; clear() then bind_exchange() in one step."""
    _fields.set({k: v._value_ if isinstance(v, Enum) else v for k, v in fields.items() if v is not None})   # plain()


def bind(**fields: object) -> None:
    """Bind more fields to the current context (None values are skipped)."""
    new = dict(_fields.get())
    new.update((k, plain(v)) for k, v in fields.items() if v is not None)
    _fields.set(new)


def clear() -> None:
    """Forget every field bound in the current context."""
    _fields.set(_EMPTY)


def bound() -> dict[str, object]:
    """The fields bound in the current context (enums already as their values)."""
    return dict(_fields.get())


# --- counts the logs feed ------------------------------------------------------------------------


class KeyCounter:
    """A process-local, thread-safe count by key (notes by code, push outcomes by name)."""

    def __init__(self) -> None:
        self._counts: Counter[str] = Counter()
        self._lock = threading.Lock()

    def count(self, keys: Iterable[str]) -> None:
        with self._lock:
            self._counts.update(keys)

    def snapshot(self) -> dict[str, int]:
        with self._lock:
            return dict(self._counts)

    def reset(self) -> None:
        with self._lock:
            self._counts.clear()


class NoteCounter(KeyCounter):
    """Translation notes by code (exported as metrics)."""

    def add(self, notes: Iterable[Note]) -> None:
        self.count(n.code for n in notes)


NOTE_COUNTER = NoteCounter()


def notes_as_json(notes: Iterable[Note]) -> list[dict[str, str]]:
    """Notes as log-friendly dicts; `detail` only when present."""
    out: list[dict[str, str]] = []
    for n in notes:
        item = {"code": n.code, "path": n.path}
        if n.detail:
            item["detail"] = n.detail
        out.append(item)
    return out


# --- structlog set-up ----------------------------------------------------------------------------

# The type of what get_logger returns, so other modules can annotate without importing structlog.
Logger = FilteringBoundLogger

Level = Literal["debug", "info", "warning", "error", "critical"]
_LEVELS: dict[str, int] = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
}

_state_lock = threading.Lock()
_handler: logging.Handler | None = None  # the stdlib handler configure() installed, if any
_root_level: int | None = None  # the root logger's level before configure()


def configure(settings: LogSettings, *, stream: TextIO | None = None) -> None:
    """Set up structlog, and route stdlib `logging` (aiohttp's own loggers) through the same renderer.

    Lines go to `stream` (default: sys.stdout as it is now). Loggers are not cached on first use, so
    configure() and structlog.testing.capture_logs() take effect on loggers that already exist.
    Calling it again replaces the previous configuration.
    """
    global _direct
    out = stream if stream is not None else sys.stdout
    level = _LEVELS[settings.level]
    stamper = structlog.processors.TimeStamper(fmt="iso", utc=True)
    shared: list[Processor] = [
        merge_exchange,
        _add_logger_name,
        structlog.processors.add_log_level,
        stamper,
    ]
    renderer: Processor
    if settings.format == "json":
        shared += [structlog.processors.format_exc_info]
        renderer = structlog.processors.JSONRenderer(_json_line)
    else:
        renderer = structlog.dev.ConsoleRenderer(colors=_isatty(out))

    processors = [*shared, renderer]
    wrapper = structlog.make_filtering_bound_logger(level)
    factory = _NamedWriteLoggerFactory(out)
    structlog.configure(
        processors=processors,
        wrapper_class=wrapper,
        context_class=dict,
        logger_factory=factory,
        cache_logger_on_first_use=False,
    )
    _direct = _DirectLine(processors, level, out) if settings.format == "json" else None
    _route_stdlib(out, shared, renderer, level)


def _route_stdlib(out: TextIO, shared: list[Processor], renderer: Processor, level: int) -> None:
    """Render stdlib `logging` lines as structlog's, replacing the handler an earlier configure() set."""
    global _handler, _root_level
    handler = logging.StreamHandler(out)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=[structlog.stdlib.add_logger_name, *shared],
            processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer],
        )
    )
    root = logging.getLogger()
    with _state_lock:
        if _handler is not None:
            root.removeHandler(_handler)
        else:
            _root_level = root.level
        _handler = handler
        root.addHandler(handler)
        root.setLevel(level)


def reset() -> None:
    """Undo configure(): structlog defaults, and the stdlib root logger as it was."""
    global _handler, _root_level, _direct
    _direct = None
    structlog.reset_defaults()
    root = logging.getLogger()
    with _state_lock:
        if _handler is not None:
            root.removeHandler(_handler)
            _handler = None
        if _root_level is not None:
            root.setLevel(_root_level)
            _root_level = None


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _json_fallback(obj: object) -> object:
    """What structlog's JSONRenderer does with a value json cannot encode."""
    try:
        return obj.__structlog__()  # type: ignore[attr-defined]
    except AttributeError:
        return repr(obj)


def _json_line(obj: object, **_: object) -> str:
    """The JSON renderer's serializer (and the direct exchange line's): the codec's log text, json.dumps'
    text in half the instructions of the standard library's C encoder for a 15-member exchange line."""
    return jsoncodec.log_text(obj, _json_fallback)


class _NamedWriteLogger(structlog.WriteLogger):
    """A WriteLogger that remembers the name get_logger() was called with."""

    def __init__(self, file: TextIO, name: str | None) -> None:
        super().__init__(file)
        self.name = name


class _NamedWriteLoggerFactory:
    def __init__(self, file: TextIO) -> None:
        self._file = file

    def __call__(self, *args: object) -> _NamedWriteLogger:
        return _NamedWriteLogger(self._file, str(args[0]) if args else None)


def _add_logger_name(logger: object, method_name: str, event_dict: EventDict) -> EventDict:
    name = getattr(logger, "name", None)
    if name is not None:
        event_dict.setdefault("logger", name)
    return event_dict


def get_logger(name: str) -> Logger:
    """A logger whose lines carry `logger=name`. Safe to create at import time: it reads the
    configuration in force when it logs."""
    return cast(Logger, structlog.get_logger(name))


# --- the lines that carry notes ------------------------------------------------------------------


def log_notes(
    logger: Logger, notes: Iterable[Note], *, event: str = "translation_notes", **fields: object
) -> None:
    """Log notes as one line with a `notes` list, and count them. Nothing is logged for no notes.
    Use this where there is no exchange line; otherwise pass the notes to log_exchange()."""
    notes = list(notes)
    if not notes:
        return
    NOTE_COUNTER.add(notes)
    logger.info(event, notes=notes_as_json(notes), **fields)


_exchange_logger = get_logger("gateway.exchange")
# structlog's lazy proxy assembles a new logger on every call; the exchange line, logged once per request,
# keeps the one it assembled until the configuration changes (configure(), capture_logs(), reset()).
_exchange_cached: tuple[tuple[object, ...], Logger] | None = None


def _exchange_log() -> Logger:
    global _exchange_cached
    config = structlog.get_config()
    key = (config["processors"], config["context_class"], config["wrapper_class"], config["logger_factory"])
    cached = _exchange_cached
    if cached is not None and all(a is b for a, b in zip(cached[0], key, strict=True)):
        return cached[1]
    logger = _exchange_logger.bind()
    _exchange_cached = (key, logger)
    return logger


def log_exchange(
    *,
    event: str = "exchange",
    level: Level = "info",
    notes: Iterable[Note] = (),
    logger: Logger | None = None,
    **fields: object,
) -> None:
    """The one line per exchange: the bound context plus `fields` (status, duration_ms, …) and, when
    there are any, the exchange's translation notes as a `notes` list (which are also counted)."""
    if type(notes) is not list:
        notes = list(notes)
    if notes:
        NOTE_COUNTER.add(notes)
        fields["notes"] = notes_as_json(notes)
    direct = _direct
    if logger is None and direct is not None and direct.in_force():
        direct.write(event, level, fields)
        return
    (logger or _exchange_log()).log(_LEVELS[level], event, **{k: plain(v) for k, v in fields.items()})


class _DirectLine:
    """The exchange line of a JSON configure(), written without structlog's per-call machinery (the lazy
    proxy, a bound logger, the processor loop): the same processors' work inline, in their order, so the
    line is the one structlog would write. In force while configure()'s processors are structlog's
    (capture_logs() changes them in place, and the generic path takes over; another configure() replaces
    this line, reset() drops it)."""

    __slots__ = ("min_level", "out", "processors", "shape")

    def __init__(self, processors: list[Processor], min_level: int, out: TextIO) -> None:
        self.processors, self.shape = processors, tuple(processors)
        self.min_level, self.out = min_level, out

    def in_force(self) -> bool:
        # Only configure() and reset() configure structlog (which replace or drop this line), so the one
        # change to look for is capture_logs(), which empties configure()'s list of processors in place and
        # puts its own in: the list itself tells, without structlog.get_config() building its dict per call.
        processors = self.processors
        return len(processors) == len(self.shape) and processors[-1] is self.shape[-1]

    def write(self, event: str, level: Level, fields: dict[str, object]) -> None:
        """`fields` becomes the line: log_exchange's own keyword arguments, a dict made for this call."""
        if _LEVELS[level] < self.min_level:
            return
        line: EventDict = fields
        for key, value in fields.items():   # plain(), in place (values change, never the keys)
            if isinstance(value, Enum):
                line[key] = value._value_
        line["event"] = event
        context = _fields.get()   # merge_exchange: the bound fields under the line's own
        if line.keys().isdisjoint(context):
            line.update(context)
        else:
            for key, value in context.items():
                line.setdefault(key, value)
        line.setdefault("logger", "gateway.exchange")   # _add_logger_name
        line["level"] = level   # add_log_level
        line["timestamp"] = _utc_now()   # TimeStamper(fmt="iso", utc=True)
        if "exc_info" in line:   # format_exc_info
            line = structlog.processors.format_exc_info(None, level, line)
        # what WriteLogger.msg does, less its lock and EINTR loops: one write() call is one whole line (the
        # buffered writer keeps its own lock), and Python retries an interrupted write itself (PEP 475)
        out = self.out
        out.write(_json_line(line) + "\n")
        out.flush()


def _utc_now() -> str:
    """The time as TimeStamper(fmt="iso", utc=True) writes it (`datetime.now(timezone.utc).isoformat()`,
    `+00:00` as `Z`), from the clock's nanoseconds, with the date and time of day made once a second."""
    seconds, nanos = divmod(time.time_ns(), 1_000_000_000)
    global _second
    if _second[0] != seconds:
        _second = (seconds, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)))
    micros = nanos // 1000
    return f"{_second[1]}.{micros:06d}Z" if micros else f"{_second[1]}Z"


_second: tuple[int, str] = (-1, "")   # the last second _utc_now wrote, and its text


_direct: _DirectLine | None = None   # set by a JSON configure()
