"""The core's one error tree. Every error carries a JSON path (where it applies) and hints for the
JSON-RPC code, HTTP status and v1.0 ErrorInfo reason; only the shell turns them into responses."""

from __future__ import annotations


class GatewayError(Exception):
    """Base of every error the core raises on purpose."""

    jsonrpc_code: int = -32603
    http_status: int = 500
    reason: str = "INTERNAL_ERROR"
    default_message: str = "Internal error"
    transport_status: bool = False   # http_status is the transport's verdict: it wins over the code's table row

    def __init__(self, message: str | None = None, *, path: str = "") -> None:
        self.message = message or self.default_message
        self.path = path
        super().__init__(f"{path}: {self.message}" if path else self.message)


class TranslationError(GatewayError):
    """A payload is not a valid object of its dialect. On a request it is the caller's invalid
    params; on a reply the shell re-labels it as InvalidAgentResponse (`as_agent_error`)."""

    jsonrpc_code = -32602
    http_status = 400
    reason = "INVALID_PARAMS"
    default_message = "Invalid parameters"

    def __init__(self, path: str, reason_text: str) -> None:
        super().__init__(reason_text, path=path)


class Inexpressible(TranslationError):
    """A valid payload of its version that the other version has no way to say (a task id with '/' in a
    v0.3 resource name): to a caller the same invalid params; `translate` exits 4 on it, not 2."""


class InvalidAgentResponse(GatewayError):
    jsonrpc_code = -32006
    http_status = 502
    reason = "INVALID_AGENT_RESPONSE"
    default_message = "Invalid agent response"


class MalformedEnvelope(GatewayError):
    """The body is not JSON, or not a JSON-RPC 2.0 request object."""

    jsonrpc_code = -32700
    http_status = 400
    reason = "PARSE_ERROR"
    default_message = "Parse error"


class UnreadableBody(MalformedEnvelope):
    """The request body cannot be taken apart (broken chunked framing, a Content-Encoding that does not
    decode): a parse error, and the connection is closed behind the answer (its framing is lost)."""


class InvalidRequest(GatewayError):
    jsonrpc_code = -32600
    http_status = 400
    reason = "INVALID_REQUEST"
    default_message = "Invalid Request"


class UnknownOperation(GatewayError):
    jsonrpc_code = -32601
    http_status = 404
    reason = "METHOD_NOT_FOUND"
    default_message = "Method not found"


class UnsupportedOperation(GatewayError):
    jsonrpc_code = -32004
    http_status = 400
    reason = "UNSUPPORTED_OPERATION"
    default_message = "This operation is not supported"


class TaskNotFound(GatewayError):
    """The task is unknown (or not the caller's to see), as the gateway itself found out."""

    jsonrpc_code = -32001
    http_status = 404
    reason = "TASK_NOT_FOUND"
    default_message = "Task not found"


class PushNotificationNotSupported(GatewayError):
    """The agent's card says it has no push notifications: the gateway answers so itself (a2a-sdk 0.3 answers
    -32603 instead of -32003)."""

    jsonrpc_code = -32003
    http_status = 400
    reason = "PUSH_NOTIFICATION_NOT_SUPPORTED"
    default_message = "Push Notification is not supported"


class ContentTypeNotSupported(GatewayError):
    """A v1.0 caller's request body is not of a media type the binding accepts (S10 §5.4: HTTP 415)."""

    jsonrpc_code = -32005
    http_status = 415
    reason = "CONTENT_TYPE_NOT_SUPPORTED"
    default_message = "Incompatible content types"
    transport_status = True


class UnsupportedVersion(GatewayError):
    jsonrpc_code = -32009
    http_status = 400
    reason = "VERSION_NOT_SUPPORTED"
    default_message = "Protocol version not supported"


class LimitExceeded(GatewayError):
    """A configured bound was hit (body size, SSE event size, buffered bytes)."""

    jsonrpc_code = -32600
    http_status = 413
    reason = "INVALID_REQUEST"
    default_message = "Payload too large"


class StreamError(GatewayError):
    """The upstream event stream broke its contract (bad framing, bad item, early end)."""

    jsonrpc_code = -32006
    http_status = 502
    reason = "INVALID_AGENT_RESPONSE"
    default_message = "Invalid agent stream"


class UpstreamUnavailable(GatewayError):
    """The upstream could not be reached, timed out, or answered something that is not A2A."""

    jsonrpc_code = -32603
    http_status = 502
    reason = "INTERNAL_ERROR"
    default_message = "Upstream agent unavailable"


class UpstreamTimeout(UpstreamUnavailable):
    """The upstream took longer than a configured timeout (to answer, or between two stream events)."""

    default_message = "Upstream agent timed out"


class AgentUnavailable(UpstreamUnavailable):
    """The agent is known down (a call found it unreachable, and the background check has not reached it
    since): answered at once, 503 with Retry-After (gRPC UNAVAILABLE), instead of each caller paying the retries."""

    http_status = 503
    default_message = "Agent unavailable"

    def __init__(self, message: str | None = None, *, retry_after: int = 1) -> None:
        super().__init__(message)
        self.retry_after = retry_after  # seconds, for the Retry-After header: about when the agent is checked again


class GatewayOverloaded(GatewayError):
    """The gateway itself is saturated (its client connections, or a pool of upstream connections): the
    caller may retry after `retry_after` seconds. It never blames the agent. Its code is the gateway's
    own, -32099: the far end of JSON-RPC's implementation-defined server-error range, away from A2A's
    codes, which count up from -32001."""

    jsonrpc_code = -32099
    http_status = 503
    reason = "GATEWAY_OVERLOADED"
    default_message = "Gateway overloaded"

    def __init__(self, message: str | None = None, *, limit: str = "", retry_after: int = 1) -> None:
        super().__init__(message)
        self.limit = limit              # which bound was hit (the metric's label)
        self.retry_after = retry_after  # seconds, for the Retry-After header


class ClientTooSlow(GatewayError):
    """The client did not send its request within the gateway's deadline (its body, here): 408, and
    the connection is closed."""

    jsonrpc_code = -32600
    http_status = 408
    reason = "INVALID_REQUEST"
    default_message = "Request timeout"


class UnknownFamily(GatewayError):
    """`translate()` was asked for a family it does not know, or for a pair of dialects the family has
    no translator between: a fault of the gateway's own code, never of a peer."""

    jsonrpc_code = -32603
    http_status = 500
    reason = "INTERNAL_ERROR"
    default_message = "Unknown translation family"


def as_agent_error(error: GatewayError) -> GatewayError:
    """A translation failure on the agent's reply is the agent's fault, not the caller's."""
    if isinstance(error, TranslationError):
        return InvalidAgentResponse(f"agent reply invalid at {error.path}: {error.message}")
    return error


class EdgeRefusal(GatewayError):
    """The gateway's edge refused the caller before any call to the agent (its credentials, its limits):
    the HTTP status stands in every binding, a JSON-RPC error body included, with `headers` beside it
    (`WWW-Authenticate`, `Retry-After`). The gateway's own JSON-RPC codes count down from -32099."""

    def __init__(self, message: str | None = None, *, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.headers = headers or {}


class Unauthenticated(EdgeRefusal):
    """No credentials, or credentials that do not hold (a bad signature, an expired token, an unknown key)."""

    jsonrpc_code = -32098
    http_status = 401
    reason = "UNAUTHENTICATED"
    default_message = "Authentication required"


class PermissionDenied(EdgeRefusal):
    """Credentials that hold but do not admit this caller here (another audience or issuer's, a missing scope)."""

    jsonrpc_code = -32097
    http_status = 403
    reason = "PERMISSION_DENIED"
    default_message = "Permission denied"


class RateLimited(EdgeRefusal):
    """This caller is over its limits (requests per second, concurrent streams): retry after `retry_after`."""

    jsonrpc_code = -32096
    http_status = 429
    reason = "RATE_LIMITED"
    default_message = "Too many requests"

    def __init__(self, message: str | None = None, *, retry_after: int = 1, limit: str = "") -> None:
        super().__init__(message, headers={"Retry-After": str(retry_after)})
        self.retry_after, self.limit = retry_after, limit
