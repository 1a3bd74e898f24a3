"""Part, written once against a v0.3 `DialectSpec`: kind-tagged or oneof text/file/data ⇄ the v1.0 flat
text/raw/url/data, and lists of parts with their text fast path. Touches no Message or Artifact field."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gateway.core.dialects import V03_SPECS, DialectSpec
from gateway.core.errors import TranslationError
from gateway.core.notes import Cx
from gateway.core.translate.registry import Family, FastPath, Table, Translator
from gateway.core.translate.shape import arr, drop_unknown, obj
from gateway.core.types import V03RPC, V10, Dialect, JsonObj

# The PY/JS/GO convention for v1.0 data that is not an object: v0.3 carries `{"value": X}` and
# flags it in the part's metadata.
COMPAT_FLAG = "data_part_compat"

PartsFn = Callable[[Any, Cx, str], list[JsonObj]]   # (parts, cx, the owner's path) -> parts

_KINDS = ("text", "file", "data")
_V10_CONTENT = ("text", "raw", "url", "data")
_V10_KNOWN = frozenset((*_V10_CONTENT, "metadata", "mediaType", "filename"))
_TAGGED_KNOWN = {kind: frozenset(("kind", kind, "metadata")) for kind in _KINDS}
_ONEOF_KNOWN = frozenset((*_KINDS, "metadata"))
_FILE_MEMBERS = (("mimeType", "mediaType"), ("name", "filename"))   # v0.3 `file` member -> v1.0 part member


def _metadata(part: JsonObj, at: str) -> JsonObj | None:
    md = part.get("metadata")
    if md is None:
        return None
    return obj(md, f"{at}.metadata")


def _text(part: JsonObj, key: str, at: str) -> str:
    value = part[key]
    if type(value) is not str:
        raise TranslationError(f"{at}.{key}", "expected a string")
    return value


def _unwrap_compat(data: Any, md: JsonObj | None, out: JsonObj) -> Any:
    """v0.3 `{"value": X}` + `metadata.data_part_compat: true` is v1.0 `data: X` (and the flag goes)."""
    if md is not None and md.get(COMPAT_FLAG) is True and type(data) is dict and len(data) == 1 \
            and "value" in data:
        rest = {k: v for k, v in md.items() if k != COMPAT_FLAG}
        if rest:
            out["metadata"] = rest
        else:
            out.pop("metadata", None)
        return data["value"]
    return data


def _wrap_data(data: Any, md: JsonObj | None, out: JsonObj, cx: Cx, at: str) -> Any:
    """v1.0 data may be any JSON value; v0.3 only an object: wrap the rest (a recorded convention)."""
    if type(data) is dict:
        return data
    cx.note("data_wrapped", f"{at}.data")
    out["metadata"] = {**(md or {}), COMPAT_FLAG: True}
    return {"value": data}


def _v10_content(part: JsonObj, at: str) -> str:
    found = [k for k in _V10_CONTENT if k in part]
    if len(found) != 1:
        if not found:
            raise TranslationError(at, "part has no content (text, raw, url or data)")
        raise TranslationError(at, f"part has several contents: {', '.join(found)}")
    return found[0]


def _null_part(cx: Cx, at: str, empty: JsonObj) -> JsonObj:
    """A part given as null (lenient reading only): an empty text part in its place, as the SDKs' converters
    make an empty part of it."""
    cx.note("null_part", at, "an empty text part in its place")
    return empty


def to_v10(spec: DialectSpec) -> Translator:
    """A v0.3 part of `spec` as a v1.0 part."""
    kind_tags, data_wrapped, bytes_in = spec.kind_tags, spec.data_wrapped, spec.bytes_to_v10
    bytes_key, uri_key = spec.file_keys
    file_known = frozenset((bytes_key, uri_key, *(v03 for v03, _ in _FILE_MEMBERS)))

    def kind_of(part: JsonObj, at: str) -> tuple[str, frozenset[str]]:
        if not kind_tags:  # a proto oneof: exactly one content member
            found = [k for k in _KINDS if k in part]
            if len(found) != 1:
                raise TranslationError(at, "part needs exactly one of text, file or data")
            return found[0], _ONEOF_KNOWN
        kind = part.get("kind")
        if kind is None:  # lenient peers omit `kind`; infer it from the members
            kind = next((k for k in _KINDS if k in part), None)
            if kind is None:
                raise TranslationError(at, "part has no kind and no text, file or data member")
        known = _TAGGED_KNOWN.get(kind) if type(kind) is str else None
        if known is None:
            raise TranslationError(f"{at}.kind", f"unknown part kind {kind!r}")
        return kind, known

    def data_of(part: JsonObj, md: JsonObj | None, out: JsonObj, cx: Cx, at: str) -> None:
        if data_wrapped:  # `data: {data: Struct}`; ProtoJSON omits an empty Struct
            d = obj(part["data"], f"{at}.data")
            if len(d) != 1 or "data" not in d:
                for key in d:
                    if key != "data":
                        cx.note("dropped_unknown_member", f"{at}.data.{key}")
            value = obj(d.get("data", {}), f"{at}.data.data")
            if md is not None:
                out["metadata"] = md
            out["data"] = _unwrap_compat(value, md, out)
            return
        if "data" not in part:
            raise TranslationError(f"{at}.data", "required member is missing")
        value = part["data"]
        out["data"] = value
        if md is not None:
            out["metadata"] = md
        out["data"] = _unwrap_compat(value, md, out)
        if type(value) is not dict:  # v0.3 says object; other JSON from lenient peers is carried
            cx.note("invalid_v03_data_accepted", f"{at}.data")

    def file_of(part: JsonObj, out: JsonObj, cx: Cx, at: str) -> None:
        fat = f"{at}.file"
        f = obj(part.get("file"), fat)
        if bytes_key in f:
            if uri_key in f:
                raise TranslationError(fat, f"a file has either {bytes_key} or {uri_key}, not both")
            raw = _text(f, bytes_key, fat)
            out["raw"] = raw if bytes_in is None else bytes_in(raw, cx, f"{fat}.{bytes_key}")
        elif uri_key in f:
            out["url"] = _text(f, uri_key, fat)
        else:
            raise TranslationError(fat, f"a file needs {bytes_key} or {uri_key}")
        for v03, v10 in _FILE_MEMBERS:
            if v03 in f:
                out[v10] = _text(f, v03, fat)
        drop_unknown(f, file_known, cx, fat)

    def convert(part: Any, cx: Cx, at: str) -> JsonObj:
        if part is None and cx.lenient:
            return _null_part(cx, at, {"text": ""})
        part = obj(part, at)
        kind, known = kind_of(part, at)
        drop_unknown(part, known, cx, at)
        md = _metadata(part, at)
        out: JsonObj = {}
        if kind == "data":
            data_of(part, md, out, cx, at)
            return out
        if kind == "text":
            if "text" not in part:
                raise TranslationError(f"{at}.text", "required member is missing")
            out["text"] = _text(part, "text", at)
        elif part.get("file") is None and cx.lenient:   # a file part without its file, as the SDKs read it
            return _null_part(cx, f"{at}.file", {"text": ""})
        else:
            file_of(part, out, cx, at)
        if md is not None:
            out["metadata"] = md
        return out

    return convert


def from_v10(spec: DialectSpec) -> Translator:
    """A v1.0 part as a v0.3 part of `spec`; mediaType and filename survive on file parts only."""
    tag, data_wrapped, bytes_out = spec.kind_tags, spec.data_wrapped, spec.bytes_from_v10
    file_key = dict(zip(("raw", "url"), spec.file_keys, strict=True))

    def convert(part: Any, cx: Cx, at: str) -> JsonObj:
        if part is None and cx.lenient:
            return _null_part(cx, at, {"kind": "text", "text": ""} if tag else {"text": ""})
        part = obj(part, at)
        content = _v10_content(part, at)
        drop_unknown(part, _V10_KNOWN, cx, at)
        md = _metadata(part, at)
        out: JsonObj = {"kind": "file" if content in file_key else content} if tag else {}
        if content in file_key:
            value = _text(part, content, at)
            if bytes_out is not None and content == "raw":
                value = bytes_out(value, cx, at)
            f: JsonObj = {file_key[content]: value}
            for v03, v10 in _FILE_MEMBERS:
                if v10 in part:
                    f[v03] = _text(part, v10, at)
            out["file"] = f
        else:
            for _, v10 in _FILE_MEMBERS:
                if v10 in part:
                    cx.note("part_field_dropped", f"{at}.{v10}")
            if content == "text":
                out["text"] = _text(part, "text", at)
            else:
                data = _wrap_data(part["data"], md, out, cx, at)
                out["data"] = {"data": data} if data_wrapped else data
                if md is not None and "metadata" not in out:
                    out["metadata"] = md
                return out
        if md is not None:
            out["metadata"] = md
        return out

    return convert


def list_of(part_fn: Translator, member: str) -> PartsFn:
    """The parts of an owner (message, artifact) under its `member`, each through `part_fn`."""
    def convert(items: Any, cx: Cx, at: str) -> list[JsonObj]:
        if type(items) is not list:
            arr(items, f"{at}.{member}")
        return [part_fn(p, cx, f"{at}.{member}[{i}]") for i, p in enumerate(items)]
    return convert


# Text parts are most parts (of messages and artifacts): a plain one is rewritten inline, anything else
# takes the full path; `at` is the owner's path, a part's own is built only when it takes the full path.
def _text_list_to_v10(part_fn: Translator) -> PartsFn:
    def convert(items: Any, cx: Cx, at: str) -> list[JsonObj]:
        if type(items) is not list:
            arr(items, f"{at}.parts")
        return [{"text": p["text"]} if type(p) is dict and len(p) == 2 and p.get("kind") == "text"
                and type(p.get("text")) is str else part_fn(p, cx, f"{at}.parts[{i}]")
                for i, p in enumerate(items)]
    return convert


def _text_list_from_v10(part_fn: Translator) -> PartsFn:
    def convert(items: Any, cx: Cx, at: str) -> list[JsonObj]:
        if type(items) is not list:
            arr(items, f"{at}.parts")
        return [{"kind": "text", "text": p["text"]} if type(p) is dict and len(p) == 1
                and type(p.get("text")) is str else part_fn(p, cx, f"{at}.parts[{i}]")
                for i, p in enumerate(items)]
    return convert


TO_V10: dict[Dialect, Translator] = {spec.dialect: to_v10(spec) for spec in V03_SPECS}
FROM_V10: dict[Dialect, Translator] = {spec.dialect: from_v10(spec) for spec in V03_SPECS}

# the v0.3 JSON-RPC parts lists behind their text fast path
FAST_PATHS = (
    FastPath("parts", V03RPC, V10, _text_list_to_v10(TO_V10[V03RPC]), list_of(TO_V10[V03RPC], "parts")),
    FastPath("parts", V10, V03RPC, _text_list_from_v10(FROM_V10[V03RPC]), list_of(FROM_V10[V03RPC], "parts")),
)
_FAST_LISTS = {(path.src, path.dst): path.fast for path in FAST_PATHS}


def parts_to_v10(dialect: Dialect, member: str = "parts") -> PartsFn:
    """The translator of a v0.3 owner's parts, held under `member`, behind its fast path if it has one."""
    fast = _FAST_LISTS.get((dialect, V10)) if member == "parts" else None
    return fast or list_of(TO_V10[dialect], member)


def parts_from_v10(dialect: Dialect) -> PartsFn:
    """The translator of a v1.0 owner's `parts` into `dialect`, behind its fast path if it has one."""
    return _FAST_LISTS.get((V10, dialect)) or list_of(FROM_V10[dialect], "parts")


TRANSLATORS: Table = {Family.PART: {
    **{(dialect, V10): fn for dialect, fn in TO_V10.items()},
    **{(V10, dialect): fn for dialect, fn in FROM_V10.items()},
}}
