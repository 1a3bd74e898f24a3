"""Per-peer quirks (what real SDKs do where the specs are silent or they differ) as one frozen options
object with the recommended defaults. The core reads them; configuration (gateway/config/) builds them."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal


@dataclass(frozen=True, slots=True)
class Quirks:
    # v0.3 REST `fileWithBytes`: PY03 and the Python compat layer put base64(base64(content)) on the
    # wire; the proto (and JS03) say base64(content). "auto" tells them apart per value and per peer
    # (core/dialects.py); True and False pin one convention.
    rest_double_base64: bool | Literal["auto"] = "auto"
    # Absent `blocking` in a v0.3 request: JSON-RPC servers blocked, v0.3 REST servers did not.
    rpc_blocking_default: bool = True
    rest_blocking_default: bool = False
    # v0.3 .NET clients always send `blocking: false`; set to treat it as absent.
    ignore_blocking_false: bool = False
    # `final` on an interrupted state for v0.3 streams: look ahead to the stream's end (recommended),
    # or GO-style "input-required is always final".
    final_on_interrupted: Literal["lookahead", "input_required"] = "lookahead"
    # v0.3 REST push-config create body sent to v0.3 agents: the P03 `TaskPushNotificationConfig`
    # (JS) or the PY03 `CreateTaskPushNotificationConfigRequest`; "auto" is the request for an agent whose
    # server software is a2a-sdk for Python's (for_agent below), the config otherwise.
    rest_push_create_body: Literal["auto", "config", "request"] = "auto"
    # v0.3 REST subscribe verb sent to v0.3 agents: GET (P03 annotation, PY03 server) or POST (S03 text,
    # JS03 client). v0.3 clients may use either.
    rest_subscribe_verb: Literal["GET", "POST"] = "GET"
    # Success statuses answered to v0.3 REST clients: "200" everywhere (PY), or "js": 201 for message:send
    # and push-config create, 204 with no body for push-config delete (the JS reference).
    rest_success_codes: Literal["200", "js"] = "200"
    # HTTP statuses of errors for v0.3 REST clients: PY03's table (409/415/422/501/502; the a2a-sdk 0.3
    # client reads only the status, while JS clients read the body's code) or the v1.0 table (400/404/500).
    rest_v03_status_table: Literal["v10", "py03"] = "py03"

    def for_agent(self, python_sdk: bool) -> Quirks:
        """These quirks with the "auto" choices made for one v0.3 REST agent: `python_sdk` when its server
        software (its Server header) is what a2a-sdk for Python serves from."""
        if self.rest_push_create_body != "auto":
            return self
        return replace(self, rest_push_create_body="request" if python_sdk else "config")
