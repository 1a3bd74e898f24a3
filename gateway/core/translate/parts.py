"""Part, in every dialect: v0.3 JSON-RPC kind-tagged text/file/data, v0.3 REST proto oneofs
(`file.fileWithBytes`, `data.data`) and the v1.0 flat text/raw/url/data. Touches no Message field."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from gateway.core.errors import TranslationError
from gateway.core.notes import Cx
from gateway.core.translate.registry import register
from gateway.core.translate.shape import drop_unknown, obj
from gateway.core.types import Dialect, JsonObj

COMPAT_FLAG = "data_part_compat"  # the PY/JS/GO convention for non-object v1.0 data (wire-mapping §4.4)

_V10_CONTENT = ("text", "raw", "url", "data")
_V10_KNOWN = frozenset((*_V10_CONTENT, "metadata", "mediaType", "filename"))
_RPC_KNOWN = {
    "text": frozenset(("kind", "text", "metadata")),
    "file": frozenset(("kind", "file", "metadata")),
    "data": frozenset(("kind", "data", "metadata")),
}
_RPC_FILE_KNOWN = frozenset(("bytes", "uri", "mimeType", "name"))
_REST_KNOWN = frozenset(("text", "file", "data", "metadata"))
_REST_FILE_KNOWN = frozenset(("fileWithBytes", "fileWithUri", "mimeType", "name"))


# ---- shared helpers -------------------------------------------------------------------------------



def _metadata(part: JsonObj, at: str) -> JsonObj | None:
    md = part.get("metadata")
    if md is None:
        return None
    return obj(md, f"{at}.metadata")


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


def _text(part: JsonObj, key: str, at: str) -> str:
    value = part[key]
    if type(value) is not str:
        raise TranslationError(f"{at}.{key}", "expected a string")
    return value


def _v10_content(part: JsonObj, at: str) -> str:
    found = [k for k in _V10_CONTENT if k in part]
    if len(found) != 1:
        if not found:
            raise TranslationError(at, "part has no content (text, raw, url or data)")
        raise TranslationError(at, f"part has several contents: {', '.join(found)}")
    return found[0]


def _drop_v10_only(part: JsonObj, cx: Cx, at: str) -> None:
    for key in ("mediaType", "filename"):
        if key in part:
            cx.note("part_field_dropped", f"{at}.{key}")


# ---- v0.3 JSON-RPC --------------------------------------------------------------------------------

def rpc_to_v10(part: Any, cx: Cx, at: str) -> JsonObj:
    part = obj(part, at)
    kind = part.get("kind")
    if kind is None:  # lenient peers omit `kind`; infer it from the members
        kind = next((k for k in ("text", "file", "data") if k in part), None)
        if kind is None:
            raise TranslationError(at, "part has no kind and no text, file or data member")
    known = _RPC_KNOWN.get(kind) if type(kind) is str else None
    if known is None:
        raise TranslationError(f"{at}.kind", f"unknown part kind {kind!r}")
    drop_unknown(part, known, cx, at)
    md = _metadata(part, at)
    out: JsonObj = {}
    if kind == "text":
        if "text" not in part:
            raise TranslationError(f"{at}.text", "required member is missing")
        out["text"] = _text(part, "text", at)
    elif kind == "file":
        f = obj(part.get("file"), f"{at}.file")
        fat = f"{at}.file"
        if "bytes" in f:
            if "uri" in f:
                raise TranslationError(fat, "a file has either bytes or uri, not both")
            out["raw"] = _text(f, "bytes", fat)
        elif "uri" in f:
            out["url"] = _text(f, "uri", fat)
        else:
            raise TranslationError(fat, "a file needs bytes or uri")
        if "mimeType" in f:
            out["mediaType"] = _text(f, "mimeType", fat)
        if "name" in f:
            out["filename"] = _text(f, "name", fat)
        drop_unknown(f, _RPC_FILE_KNOWN, cx, fat)
    else:
        if "data" not in part:
            raise TranslationError(f"{at}.data", "required member is missing")
        out["data"] = part["data"]
        if md is not None:
            out["metadata"] = md
        out["data"] = _unwrap_compat(part["data"], md, out)
        if type(part["data"]) is not dict:
            cx.note("invalid_v03_data_accepted", f"{at}.data")
        return out
    if md is not None:
        out["metadata"] = md
    return out


def rpc_from_v10(part: Any, cx: Cx, at: str) -> JsonObj:
    part = obj(part, at)
    content = _v10_content(part, at)
    drop_unknown(part, _V10_KNOWN, cx, at)
    md = _metadata(part, at)
    if content == "text":
        _drop_v10_only(part, cx, at)
        out: JsonObj = {"kind": "text", "text": _text(part, "text", at)}
    elif content == "data":
        if "mediaType" in part:
            cx.note("part_field_dropped", f"{at}.mediaType")
        if "filename" in part:
            cx.note("part_field_dropped", f"{at}.filename")
        out = {"kind": "data"}
        out["data"] = _wrap_data(part["data"], md, out, cx, at)
        if md is not None and "metadata" not in out:
            out["metadata"] = md
        return out
    else:
        f: JsonObj = {"bytes" if content == "raw" else "uri": _text(part, content, at)}
        if "mediaType" in part:
            f["mimeType"] = _text(part, "mediaType", at)
        if "filename" in part:
            f["name"] = _text(part, "filename", at)
        out = {"kind": "file", "file": f}
    if md is not None:
        out["metadata"] = md
    return out


# ---- v0.3 REST (ProtoJSON of the v0.3 proto) ------------------------------------------------------

def _unb64_twice(value: str, cx: Cx, at: str) -> str:
    """PY03 REST puts base64(base64 text) on the wire; one decode gives the v1.0 `raw` text."""
    try:
        return base64.b64decode(value + "=" * (-len(value) % 4), altchars=b"-_" if "-" in value or "_"
                                in value else None, validate=True).decode("ascii")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise TranslationError(at, "fileWithBytes is not double base64 (quirk rest_double_base64)") from None


def rest_to_v10(part: Any, cx: Cx, at: str) -> JsonObj:
    part = obj(part, at)
    found = [k for k in ("text", "file", "data") if k in part]
    if len(found) != 1:
        raise TranslationError(at, "part needs exactly one of text, file or data")
    drop_unknown(part, _REST_KNOWN, cx, at)
    md = _metadata(part, at)
    out: JsonObj = {}
    kind = found[0]
    if kind == "text":
        out["text"] = _text(part, "text", at)
    elif kind == "file":
        fat = f"{at}.file"
        f = obj(part["file"], fat)
        if "fileWithBytes" in f:
            if "fileWithUri" in f:
                raise TranslationError(fat, "a file has either fileWithBytes or fileWithUri, not both")
            raw = _text(f, "fileWithBytes", fat)
            out["raw"] = _unb64_twice(raw, cx, f"{fat}.fileWithBytes") if cx.quirks.rest_double_base64 else raw
        elif "fileWithUri" in f:
            out["url"] = _text(f, "fileWithUri", fat)
        else:
            raise TranslationError(fat, "a file needs fileWithBytes or fileWithUri")
        if "mimeType" in f:
            out["mediaType"] = _text(f, "mimeType", fat)
        if "name" in f:
            out["filename"] = _text(f, "name", fat)
        drop_unknown(f, _REST_FILE_KNOWN, cx, fat)
    else:
        d = obj(part["data"], f"{at}.data")
        if len(d) != 1 or "data" not in d:
            for key in d:
                if key != "data":
                    cx.note("dropped_unknown_member", f"{at}.data.{key}")
        inner = obj(d.get("data", {}), f"{at}.data.data")
        if md is not None:
            out["metadata"] = md
        out["data"] = _unwrap_compat(inner, md, out)
        return out
    if md is not None:
        out["metadata"] = md
    return out


def rest_from_v10(part: Any, cx: Cx, at: str) -> JsonObj:
    part = obj(part, at)
    content = _v10_content(part, at)
    drop_unknown(part, _V10_KNOWN, cx, at)
    md = _metadata(part, at)
    out: JsonObj
    if content == "text":
        _drop_v10_only(part, cx, at)
        out = {"text": _text(part, "text", at)}
    elif content == "data":
        _drop_v10_only(part, cx, at)
        out = {}
        out["data"] = {"data": _wrap_data(part["data"], md, out, cx, at)}
        if md is not None and "metadata" not in out:
            out["metadata"] = md
        return out
    else:
        value = _text(part, content, at)
        if content == "raw":
            if cx.quirks.rest_double_base64:
                value = base64.b64encode(value.encode("ascii", "replace")).decode("ascii")
            f: JsonObj = {"fileWithBytes": value}
        else:
            f = {"fileWithUri": value}
        if "mediaType" in part:
            f["mimeType"] = _text(part, "mediaType", at)
        if "filename" in part:
            f["name"] = _text(part, "filename", at)
        out = {"file": f}
    if md is not None:
        out["metadata"] = md
    return out


register({"part": {
    (Dialect.V03RPC, Dialect.V10): rpc_to_v10,
    (Dialect.V10, Dialect.V03RPC): rpc_from_v10,
    (Dialect.V03REST, Dialect.V10): rest_to_v10,
    (Dialect.V10, Dialect.V03REST): rest_from_v10,
}})
