"""JSON-RPC 2.0 envelopes: parse a request or an upstream response, build request/result/error
envelopes, carry `id` verbatim (string, integer or null). It never looks inside params or results."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import gateway.core.jsoncodec as jsoncodec
from gateway.core.errors import (
    InvalidAgentResponse,
    InvalidRequest,
    LimitExceeded,
    MalformedEnvelope,
)
from gateway.core.types import JsonObj

RpcId = str | int | None
Params = JsonObj | list[Any] | None

JSONRPC_VERSION = "2.0"
JSON_MEDIA_TYPES = frozenset({"application/json", "application/a2a+json"})  # request bodies both bindings read
DEFAULT_MAX_DEPTH = 100  # nesting bound for a request; well below ujson's 1024 and Python's recursion limit


def json_media_type(content_type: str | None) -> bool:
    """Whether a request's Content-Type announces JSON (parameters such as charset aside; an absent one is
    taken for JSON, as a bare `curl -d` client sends none that means anything else)."""
    if not content_type:
        return True
    media = content_type.split(";", 1)[0].strip().lower()
    return media in JSON_MEDIA_TYPES or (media.startswith("application/") and media.endswith("+json"))


@dataclass(frozen=True, slots=True)
class RpcRequest:
    id: RpcId
    method: str
    params: Params  # None when absent (or null)
    id_present: bool  # False: a notification


@dataclass(frozen=True, slots=True)
class RpcResponse:
    id: RpcId
    result: Any = None
    error: JsonObj | None = None  # set iff the response is an error response

    @property
    def is_error(self) -> bool:
        return self.error is not None


class EnvelopeFacts:
    """What could be read of a rejected request, so the shell can answer with the caller's id and
    in the dialect of its method. Mixed into the errors `parse_request` raises."""

    rpc_id: RpcId = None
    rpc_method: str | None = None


class InvalidEnvelope(EnvelopeFacts, InvalidRequest):
    """-32600: valid JSON that is not a JSON-RPC 2.0 request object."""

    def __init__(self, message: str, *, rpc_id: RpcId = None, rpc_method: str | None = None) -> None:
        super().__init__(message)
        self.rpc_id = rpc_id
        self.rpc_method = rpc_method


class EnvelopeTooDeep(EnvelopeFacts, LimitExceeded):
    """-32600 / 413: the request nests deeper than the configured bound."""

    def __init__(self, message: str, *, rpc_id: RpcId = None, rpc_method: str | None = None) -> None:
        super().__init__(message)
        self.rpc_id = rpc_id
        self.rpc_method = rpc_method


def rpc_id_of(error: BaseException) -> RpcId:
    """The id to echo in the error response for a failed `parse_request` (null when unreadable,
    as JSON-RPC 2.0 §5 requires for parse errors and invalid requests)."""
    return error.rpc_id if isinstance(error, EnvelopeFacts) else None


def rpc_method_of(error: BaseException) -> str | None:
    return error.rpc_method if isinstance(error, EnvelopeFacts) else None


def _is_id(value: Any) -> bool:
    # bool is an int subclass but not a JSON-RPC id; fractional numbers are rejected like a2a-python
    return value is None or type(value) is str or type(value) is int


def parse_request(body: bytes | str, *, max_depth: int = DEFAULT_MAX_DEPTH) -> RpcRequest:
    """Parse one JSON-RPC 2.0 request. Raises MalformedEnvelope (-32700, not JSON), InvalidEnvelope
    (-32600; batch arrays are rejected, as a2a-python does) or EnvelopeTooDeep. The last two carry
    `rpc_id` / `rpc_method` when those could be read (see `rpc_id_of`)."""
    value = jsoncodec.loads(body)
    if type(value) is list:
        raise InvalidEnvelope("batch requests are not supported")
    if type(value) is not dict:
        raise InvalidEnvelope("a JSON-RPC request must be a JSON object")
    id_present = "id" in value
    raw_id = value.get("id")
    method = value.get("method")
    known_method = method if type(method) is str else None
    if not _is_id(raw_id):
        raise InvalidEnvelope("id must be a string, an integer or null", rpc_method=known_method)
    rpc_id: RpcId = raw_id
    if _may_nest(body, max_depth) and _deeper_than(value, max_depth):
        raise EnvelopeTooDeep(f"request nests deeper than {max_depth} levels",
                              rpc_id=rpc_id, rpc_method=known_method)
    if value.get("jsonrpc") != JSONRPC_VERSION:
        raise InvalidEnvelope('jsonrpc must be "2.0"', rpc_id=rpc_id, rpc_method=known_method)
    if known_method is None:
        raise InvalidEnvelope("method must be a string", rpc_id=rpc_id)
    params = value.get("params")
    if params is not None and type(params) is not dict and type(params) is not list:
        raise InvalidEnvelope("params must be an object or an array", rpc_id=rpc_id,
                              rpc_method=known_method)
    return RpcRequest(rpc_id, known_method, params, id_present)


def parse_response(body: bytes | str) -> RpcResponse:
    """Parse an upstream JSON-RPC 2.0 response (read to be translated: jsoncodec's lighter rule for an agent's
    reply); anything else is the agent's fault (InvalidAgentResponse)."""
    try:
        value = jsoncodec.loads_relayed(body)
    except (MalformedEnvelope, LimitExceeded) as exc:
        raise InvalidAgentResponse(f"agent reply is not JSON: {exc.message}") from None
    return response_from_json(value)


NOT_PLAIN: Final = object()   # plain_result's "read it with response_from_json"


def plain_result(value: Any) -> Any:
    """The result of the usual response (`jsonrpc` "2.0", a valid id, a result and no error), as
    `response_from_json(value).result` would give it but without building the RpcResponse (a stream reads
    one per event); NOT_PLAIN for anything else, which response_from_json then reads or refuses."""
    if type(value) is dict and "result" in value and "error" not in value \
            and value.get("jsonrpc") == JSONRPC_VERSION and _is_id(value.get("id")):
        return value["result"]
    return NOT_PLAIN


def response_from_json(value: Any) -> RpcResponse:
    """`parse_response` for an already decoded value (e.g. the `data` of an SSE event)."""
    if type(value) is not dict:
        raise InvalidAgentResponse("agent reply is not a JSON-RPC response object")
    if value.get("jsonrpc") != JSONRPC_VERSION:
        raise InvalidAgentResponse('agent reply: jsonrpc must be "2.0"')
    rpc_id = value.get("id")
    if not _is_id(rpc_id):
        raise InvalidAgentResponse("agent reply: id must be a string, an integer or null")
    has_result, has_error = "result" in value, "error" in value
    if has_result and has_error:
        raise InvalidAgentResponse("agent reply must have exactly one of result and error")
    if not has_error and not has_result:
        # a2a-sdk 0.3 drops `"result": null` (exclude_none) from its push-config delete reply
        return RpcResponse(rpc_id, None)
    if not has_error:
        return RpcResponse(rpc_id, value["result"])
    error = value["error"]
    if type(error) is not dict:
        raise InvalidAgentResponse("agent reply: error must be an object")
    if type(error.get("code")) is not int or type(error.get("message")) is not str:
        raise InvalidAgentResponse("agent reply: error needs an integer code and a string message")
    return RpcResponse(rpc_id, None, error)


def request_envelope(rpc_id: RpcId, method: str, params: Params = None) -> JsonObj:
    envelope: JsonObj = {"jsonrpc": JSONRPC_VERSION, "id": rpc_id, "method": method}
    if params is not None:
        envelope["params"] = params
    return envelope


def result_envelope(rpc_id: RpcId, result: Any) -> JsonObj:
    return {"jsonrpc": JSONRPC_VERSION, "id": rpc_id, "result": result}


def error_envelope(rpc_id: RpcId, error: JsonObj) -> JsonObj:
    return {"jsonrpc": JSONRPC_VERSION, "id": rpc_id, "error": error}


def _may_nest(body: bytes | str, limit: int) -> bool:
    """Whether `body` has enough brackets to nest more than `limit` levels: an upper bound counted in C,
    which spares the walk below for nearly every request."""
    count = body.count(b"{") + body.count(b"[") if isinstance(body, bytes) else body.count("{") + body.count("[")
    return max(count, 1) > limit   # a lone scalar is one level


def _deeper_than(value: Any, limit: int) -> bool:
    """Iterative, containers only: whether `value` nests more than `limit` levels."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        children = item.values() if type(item) is dict else item
        stack.extend((child, depth + 1) for child in children
                     if type(child) is dict or type(child) is list)
    return False

