"""The one JSON codec of the project (ujson, no ASCII escaping, no escaped slashes) and its one reading rule,
strict JSON (below); anything else becomes MalformedEnvelope (LimitExceeded past the bounds). Nothing else
imports ujson."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import ujson

from gateway.core.errors import LimitExceeded, MalformedEnvelope

__all__ = ["MAX_DEPTH", "dumpb", "dumps", "loads", "loads_reencoded", "loads_relayed", "log_text", "plain_text",
           "unremarkable"]

# THE RULE. What the gateway reads — a client's body, an agent's reply, one SSE event's data — is JSON text
# (RFC 8259) as I-JSON (RFC 7493) narrows it, because each of these has crashed or split JSON handlers:
#   - UTF-8 only; no lone surrogate escape (a "\ud800" decodes, then fails the first UTF-8 encode);
#   - numbers finite: no NaN, Infinity, nor a literal beyond a double's range (1e400 reads as inf);
#     integers keep every digit, up to 4,300 digits (Python's int bound);
#   - no member name twice in one object (parsers disagree on which one wins: a smuggling vector);
#   - no raw control character (U+0000-U+001F) inside a string; nesting up to MAX_DEPTH levels.
# ujson alone accepts all of these but the bounds, so its result is checked: one walk counts members and
# checks floats; cheap byte tests say when a slower exact read (the standard library's parser, with hooks)
# must decide. A value that passes is exactly what ujson returned. (Left lenient, as ujson reads them:
# a number with leading zeros, `01`, is the number.)
# Two lighter readings of what an agent sends, where the rule's proof would cost more than the rest of the
# work (it re-encodes the value, ~40,000 instructions for a small Task):
#   - bytes relayed untouched (a pass-through's replies and events) and a unary reply read to be translated:
#     `loads_relayed`, JSON text a client can read (RFC 8259's grammar: no NaN or Infinity, no raw control
#     character in a string; and no lone surrogate), by C scans; a repeated name reaches the client as the
#     agent wrote it (relayed) or resolved once (translated: written again), a huge literal as written
#     (relayed) or refused by the encoder (translated);
#   - a value written again at once (a translated stream event): `loads_reencoded`, the parse alone.
# What the gateway writes is JSON in every case: the encoder refuses non-finite numbers (and `dumpb` lone
# surrogates) as MalformedEnvelope; writing a value back resolves repeated names and escapes controls.
MAX_DEPTH = 1024  # ujson's own bound; JSON-RPC requests are held to a lower one (bindings.jsonrpc)

# Substring tests on bytes are spelled `data.find(needle) >= 0`: CPython's `needle in data` first tries the
# needle as an integer and raises (and clears) a TypeError per test, several times per request here.
_dumps = ujson.dumps
_loads = ujson.loads
# A control character is found by mapping every one to NUL and looking for a NUL (memchr): a byte translation
# with a table writes each byte as it is, cheaper than one that deletes (and a text without any comes back as
# itself); the second table leaves line ends alone.
_CONTROLS_TO_NUL = bytes(0 if c < 0x20 else c for c in range(256))
_CONTROLS_BUT_EOL_TO_NUL = bytes(0 if c < 0x20 and c not in (0x0A, 0x0D) else c for c in range(256))
_CONTROLS_STR = str.maketrans(dict.fromkeys(range(0x20)))


class _Needles:
    """The byte tests of the rule, spelled for bytes or for str."""

    __slots__ = ("colon", "escaped_colon", "escaped_quote", "infinity", "member", "nan", "quote_space",
                 "surrogates")

    def __init__(self, binary: bool) -> None:
        def word(text: str) -> Any:
            return text.encode() if binary else text

        self.colon, self.member, self.escaped_quote = word(":"), word('":'), word('\\"')
        self.quote_space, self.escaped_colon = word('" '), word("\\u003")
        self.surrogates = (word("\\ud"), word("\\uD"))
        self.nan, self.infinity = word("NaN"), word("Infinity")


_BYTES, _STR = _Needles(binary=True), _Needles(binary=False)


def loads(data: bytes | str) -> Any:
    """Decode `data` by the rule above."""
    value = _decode(data)
    kind = type(value)
    if kind is dict or kind is list:
        _check(value, data)
    elif kind is float and value - value != 0.0:  # inf - inf and nan - nan are nan
        raise MalformedEnvelope("body is not valid JSON: a number is not finite (NaN, Infinity or out of range)")
    elif kind is str and _may_have_surrogate(data):
        _surrogates(value)
    return value


def loads_relayed(data: bytes | str, *, plain: bool = False) -> Any:
    """Decode bytes the gateway relays untouched (or an agent's unary reply it translates), by the lighter
    rule above (MalformedEnvelope else): one C parse and, for bytes, three C scans ahead of any Python-level
    work. `plain`: `plain_text` found nothing to look at in a text holding all of the single-line `data`,
    so the parse alone decides."""
    value = _decode(data)
    if plain:
        return value
    if type(data) is bytes:
        if data.find(b"NaN") >= 0 or data.find(b"Infinity") >= 0 or data.translate(_CONTROLS_TO_NUL).find(0) >= 0:
            _exact(data, _GRAMMAR)  # NaN may be inside a string, a tab between tokens: the exact reader tells
        if data.find(b"\\u") >= 0 and _may_have_surrogate(data):
            _surrogates(value)
        return value
    if "NaN" in data or "Infinity" in data or _has_control(data):
        _exact(data, _GRAMMAR)
    if _may_have_surrogate(data):
        _surrogates(value)
    return value


def plain_text(region: bytes) -> bool:
    """Whether `region` (several events' bytes, line ends included) holds nothing `loads_relayed` looks at
    twice: no NaN or Infinity, no escape `\\u`, no control character but line ends. Scanned once for all
    the events of a chunk, it spares their single-line data the per-event scans."""
    return not (region.find(b"NaN") >= 0 or region.find(b"Infinity") >= 0 or region.find(b"\\u") >= 0
                or region.translate(_CONTROLS_BUT_EOL_TO_NUL).find(0) >= 0)


def unremarkable(region: bytes) -> bool:
    """Whether `region` (relayed bytes that are not parsed: a pass-through stream's plain events) holds none
    of what the rule refuses that a byte test finds at memory speed: it is UTF-8 (ASCII, or it decodes), has
    no escape that may be a lone surrogate (`\\ud…`, looked for only when a backslash is there) and no `NaN`
    or `Infinity` (looked for only when an `N`, a `y` is there: `I` is in every `…Id` member name). A raw
    control character in a string and a repeated name are not looked for: finding them takes a scan per
    byte or the parse itself."""
    if not region.isascii():
        try:
            region.decode()
        except UnicodeDecodeError:
            return False
    find = region.find
    if find(b"\\") >= 0 and find(b"\\u") >= 0 and _may_have_surrogate(region):
        return False
    return not ((find(b"N") >= 0 and find(b"NaN") >= 0) or (find(b"y") >= 0 and find(b"Infinity") >= 0))


def _decode(data: bytes | str) -> Any:
    try:
        return _loads(data)
    except (ValueError, TypeError) as exc:
        raise MalformedEnvelope(f"body is not valid JSON: {exc}") from None
    except RecursionError:
        raise LimitExceeded("JSON nesting too deep") from None


def loads_reencoded(data: bytes | str) -> Any:
    """Decode a value the gateway writes again at once (a translated stream event: the per-event path) by
    the parse alone: writing it back resolves a repeated name and escapes control characters, and the
    encoder refuses what JSON cannot hold (MalformedEnvelope)."""
    return _decode(data)


def dumps(value: Any) -> str:
    """JSON text of `value`; a NaN or infinite float is MalformedEnvelope (what is read cannot hold one)."""
    try:
        return _dumps(value, ensure_ascii=False, escape_forward_slashes=False, allow_nan=False)
    except OverflowError:
        raise MalformedEnvelope("a number that is not finite cannot be written as JSON") from None


def log_text(value: Any, default: Callable[[Any], Any]) -> str:
    """A log line's JSON text, as the standard library's json.dumps writes it (its separators, every
    non-ASCII character escaped, so the line survives any stdout encoding, a lone surrogate included; NaN
    and the infinities as it writes them) in two thirds of its C encoder's instructions; what JSON cannot
    hold, `default(value)` instead, through the standard library (ujson's own `default` costs a third more
    on every call). ujson writes a small exponent `1e-7` and DEL unescaped, where the standard library
    writes `1e-07` and `\\u007f`: the same JSON."""
    try:
        return _dumps(value, escape_forward_slashes=False, separators=_LOG_SEPARATORS)
    except (TypeError, OverflowError):   # what JSON cannot hold, an integer past ujson's bound
        return json.dumps(value, default=default)


_LOG_SEPARATORS = (", ", ": ")


def dumpb(value: Any) -> bytes:
    """`dumps` as UTF-8 (a lone surrogate is MalformedEnvelope too)."""
    try:
        return _dumps(value, ensure_ascii=False, escape_forward_slashes=False, allow_nan=False).encode()
    except OverflowError:
        raise MalformedEnvelope("a number that is not finite cannot be written as JSON") from None
    except UnicodeEncodeError:
        raise MalformedEnvelope("a string holding a lone surrogate cannot be written as JSON") from None


def _check(value: dict[str, Any] | list[Any], data: Any) -> None:
    """The rule's checks on a decoded container: the plain text's proof in C (`_plain_proof`) when it
    holds; else members counted and floats checked in one walk, then what the text's bytes prove, else
    the exact reader decides."""
    if type(data) is bytes and _plain_proof(value, data):
        return
    members = 0
    stack: list[Any] = [value]
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        if type(node) is dict:
            members += len(node)
            children: Any = node.values()
        else:
            children = node
        for child in children:
            kind = type(child)
            if kind is dict or kind is list:
                push(child)
            elif kind is float and child - child != 0.0:
                raise MalformedEnvelope("body is not valid JSON: a number is not finite "
                                        "(NaN, Infinity or out of range)")
    at = _BYTES if type(data) is bytes else _STR
    if _has_control(data) or not _unique_names(value, data, members, at):
        _exact(data)
    if _may_have_surrogate(data):
        _surrogates(value)


def _plain_proof(value: Any, data: bytes) -> bool:
    """Whether the rule provably holds for `data` (decoded as `value`) without a walk in Python (False: not
    proven here; the walk decides). In a text with no backslash at all there is no escape: no quote or
    backslash inside a string, no lone surrogate. Writing the value back (compact, in C) refuses a
    non-finite float and escapes every control character a string holds: as such a text's strings hold
    nothing else to escape, a backslash in what it wrote is a raw control character in one of them (ujson
    refuses one between tokens, bar the whitespace JSON allows there). Each colon of a JSON text ends a
    member's name or stands inside a string; the strings written are the text's, less those of members a
    repeated name dropped: so the two texts hold as many colons exactly when no object repeats a name,
    whatever whitespace the text has. A find and a count on the text, the encode and two looks at what it
    wrote: a scan of the text for control characters (a byte translation) would cost more than the looks."""
    if data.find(b"\\") >= 0:
        return False
    try:
        written = _dumps(value, ensure_ascii=False, escape_forward_slashes=False, allow_nan=False)
    except (OverflowError, ValueError, RecursionError):   # a float beyond a double, say: the walk tells what
        return False
    return "\\" not in written and written.count(":") == data.count(_BYTES.colon)


def _has_control(data: Any) -> bool:
    """A control character anywhere: between tokens (tab, line breaks) it is allowed, inside a string it
    is not, and only the exact reader tells which."""
    if type(data) is bytes:
        return data.translate(_CONTROLS_TO_NUL).find(0) >= 0
    return len(data.translate(_CONTROLS_STR)) != len(data)


def _unique_names(value: Any, data: Any, members: int, at: _Needles) -> bool:
    """Whether the text's bytes prove that no object repeats a name (False: not proven). Every member of
    the text has one colon outside strings; the decoded value has one member per distinct name.
    - `":` counted: with no escaped quote in the text (no `"` inside a string) and no quote followed by a
      space (no name written `"a" :`), each member of the text is exactly one `":`.
    - else all colons counted, less those inside the decoded strings (unless one is written \\u003a)."""
    if data.find(at.escaped_quote) < 0 and data.find(at.quote_space) < 0 and data.count(at.member) == members:
        return True
    extra = data.count(at.colon) - members
    if extra == 0:
        return True
    if at.escaped_colon in data:
        return False
    inside = 0
    stack: list[Any] = [value]
    while stack:
        node = stack.pop()
        if type(node) is dict:
            for key, child in node.items():
                inside += key.count(":")
                stack.append(child)
        elif type(node) is list:
            stack.extend(node)
        elif type(node) is str:
            inside += node.count(":")
    return bool(inside == extra)


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        names = [name for name, _ in pairs]
        twice = next(name for name in names if names.count(name) > 1)
        raise MalformedEnvelope(f"body is not valid JSON: member name {twice!r} appears twice in one object")
    return obj


def _constant(name: str) -> Any:
    raise MalformedEnvelope(f"body is not valid JSON: {name} is not a JSON number")


def _float(text: str) -> float:
    value = float(text)
    if value - value != 0.0:
        raise MalformedEnvelope(f"body is not valid JSON: {text[:40]} is beyond a double's range")
    return value


_EXACT = json.JSONDecoder(object_pairs_hook=_object, parse_constant=_constant, parse_float=_float, strict=True)
_GRAMMAR = json.JSONDecoder(parse_constant=_constant, strict=True)  # loads_relayed's: the grammar alone


def _exact(data: bytes | str, reader: json.JSONDecoder = _EXACT) -> None:
    """The slow exact reading (the standard library's parser): raises where the rule is broken."""
    try:  # the hooks' MalformedEnvelope goes through as is
        reader.decode(data.decode() if isinstance(data, bytes) else data)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
        raise MalformedEnvelope(f"body is not valid JSON: {exc}") from None


def _may_have_surrogate(data: Any) -> bool:
    at = _BYTES if type(data) is bytes else _STR
    return bool(data.find(at.surrogates[0]) >= 0 or data.find(at.surrogates[1]) >= 0)


def _surrogates(value: Any) -> None:
    """A lone surrogate escape decodes to a str that UTF-8 cannot encode: encoding finds it, in C."""
    try:
        _dumps(value, ensure_ascii=False).encode()
    except UnicodeEncodeError:
        raise MalformedEnvelope("body is not valid JSON: a string holds a lone surrogate escape") from None
    except OverflowError:
        pass
