"""The HTTP+JSON binding of both versions: routes compiled from OPERATIONS (routes.py), where request fields
live besides the body (fields.py), and requests and replies on the wire (wire.py). This face re-exports them."""

from gateway.core.bindings.rest.wire import (
    MethodNotAllowed,
    Outgoing,
    RestCall,
    build,
    parse,
    reply_body,
    result_from_body,
    success_status,
)

__all__ = ["MethodNotAllowed", "Outgoing", "RestCall", "build", "parse", "reply_body", "result_from_body",
           "success_status"]
