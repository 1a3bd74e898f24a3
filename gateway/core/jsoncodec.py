"""The one JSON codec of the project (ujson, no ASCII escaping, no escaped slashes). Decode errors
and non-JSON input become MalformedEnvelope; nothing else imports ujson."""

from __future__ import annotations

from typing import Any

import ujson

from gateway.core.errors import LimitExceeded, MalformedEnvelope

_dumps = ujson.dumps
_loads = ujson.loads


def loads(data: bytes | str) -> Any:
    try:
        return _loads(data)
    except (ValueError, TypeError) as exc:
        raise MalformedEnvelope(f"body is not valid JSON: {exc}") from None
    except RecursionError:
        raise LimitExceeded("JSON nesting too deep") from None


def dumps(value: Any) -> str:
    return _dumps(value, ensure_ascii=False, escape_forward_slashes=False)


def dumpb(value: Any) -> bytes:
    return _dumps(value, ensure_ascii=False, escape_forward_slashes=False).encode()
