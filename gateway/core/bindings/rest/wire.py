"""HTTP+JSON requests of both versions: a client's (method, path, query, body) becomes its operation and
params (`parse`), params become the upstream request (`build`), plus success statuses and bodies.
What differs per operation is its RestShape row in OPERATIONS; params are never translated here."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote

import gateway.core.jsoncodec as jsoncodec
from gateway.core.bindings.rest.fields import (
    CREATE_REQUEST,
    V03_NAMES,
    format_name,
    may_need_json_names,
    parse_name,
    query_params,
    query_value,
    to_json_names,
    v03_create_request,
)
from gateway.core.bindings.rest.routes import Route, candidates, route_for
from gateway.core.errors import (
    GatewayError,
    InvalidAgentResponse,
    TranslationError,
    UnknownOperation,
    UnsupportedOperation,
)
from gateway.core.notes import DEFAULT_QUIRKS
from gateway.core.operations import Operation, RestShape
from gateway.core.quirks import Quirks
from gateway.core.types import JsonObj, Version

V03, V10 = Version.V03, Version.V10


@dataclass(frozen=True, slots=True)
class RestCall:
    """A parsed client request."""

    op: Operation
    version: Version
    params: Any  # the op's params object in the client's dialect (V03REST for 0.3, V10 for 1.0)
    tenant: str  # "" when none


@dataclass(frozen=True, slots=True)
class Outgoing:
    """An HTTP request to send upstream."""

    method: str
    path: str  # starts with "/", percent-encoded segments, no query
    query: tuple[tuple[str, str], ...]
    body: bytes | None


class MethodNotAllowed(UnknownOperation):
    """A known path with a verb it does not serve: HTTP 405; `allowed` is for the `Allow` header."""

    http_status = 405

    def __init__(self, message: str, *, allowed: tuple[str, ...]) -> None:
        super().__init__(message)
        self.allowed = allowed




def _shape(op: Operation, version: Version) -> RestShape:
    shape = op.rest.get(version)
    if shape is None:
        raise UnsupportedOperation(f"{op.v10_method} has no A2A {version.value} HTTP+JSON route")
    return shape


# ---- parse: a client's request --------------------------------------------------------------------

def parse(method: str, path: str, query: Sequence[tuple[str, str]], body: bytes, *,
          version: Version) -> RestCall:
    """The operation and params of a client request. `path` is the raw (percent-encoded) path without
    the query string; `query` holds decoded pairs. Raises UnknownOperation (404), MethodNotAllowed
    (405), MalformedEnvelope (body not JSON) or TranslationError (bad path, query or body value)."""
    route, values, tenant = _match(method, path, version)
    op = route.op
    params = _PATH_IN[version](op, values)
    params.update(query_params(op.name, version, query))
    form = _shape(op, version).body
    if route.verb == "POST" and form != "none":
        params = (_merge_v03_create if form == "create_request" else _merge)(_body(body, version), params)
    if tenant:
        params["tenant"] = tenant
    return RestCall(op, version, params, tenant)


def _segments(path: str) -> list[str]:
    if not path.startswith("/"):
        raise UnknownOperation(f"no A2A route at {path[:200]!r}")
    try:
        return [unquote(s, errors="strict") for s in path[1:].split("/")]
    except UnicodeDecodeError:
        raise TranslationError("$.path", "the path is not percent-encoded UTF-8") from None


def _match(method: str, path: str, version: Version) -> tuple[Route, dict[str, str], str]:
    """v0.3 routes all start with /v1; a v1.0 path no route matches may start with a tenant (even `v1`)."""
    segments = _segments(path)
    found, tenant = candidates(version, segments), ""
    if not found and version is V10 and len(segments) > 1 and segments[0]:
        found, tenant = candidates(version, segments[1:]), segments[0]
    for route, values in found:
        if route.verb == method:
            for name, value in {**values, "tenant": tenant}.items():
                _no_slash(value, f"$.path.{name}")
            return route, values, tenant
    where = f"{method} {path[:200]}"
    if found:
        allowed = tuple(sorted({route.verb for route, _ in found}))
        raise MethodNotAllowed(f"{where}: method not allowed (allowed: {', '.join(allowed)})",
                               allowed=allowed)
    raise UnknownOperation(f"{where}: no A2A {version.value} HTTP+JSON route")


def _no_slash(value: str, at: str) -> str:
    """Path values are single segments: servers route on the decoded path, so `%2F` cannot work."""
    if "/" in value:
        raise TranslationError(at, "a path value may not contain '/'")
    return value


def _v03_path_in(op: Operation, values: Mapping[str, str]) -> JsonObj:
    """Path variables as the P03 request's resource name (`{"name": "tasks/t1"}`)."""
    spec = V03_NAMES.get(op.name)
    return {} if spec is None else {spec[0]: format_name(spec[1], values)}


def _v10_path_in(op: Operation, values: Mapping[str, str]) -> JsonObj:
    return dict(values)  # v1.0 path variables are named after their request members


_PATH_IN: Mapping[Version, Callable[[Operation, Mapping[str, str]], JsonObj]] = {
    V03: _v03_path_in, V10: _v10_path_in,
}


def _body(raw: bytes, version: Version) -> JsonObj:
    if not raw.strip():
        return {}
    value = jsoncodec.loads(raw)
    if type(value) is not dict:
        raise TranslationError("$", "the request body must be a JSON object")
    if may_need_json_names(raw, version):
        to_json_names(value, version)
    return value


def _merge(body: JsonObj, path: JsonObj) -> JsonObj:
    """Body members plus the path's; the path wins (as in google.api.http transcoding)."""
    return {**{k: v for k, v in body.items() if k not in path}, **path}


def _merge_v03_create(body: JsonObj, path: JsonObj) -> JsonObj:
    """Both v0.3 bodies become the P03 CreateTaskPushNotificationConfigRequest: PY03's whole request,
    or P03/JS's bare `TaskPushNotificationConfig` (`{name?, pushNotificationConfig}`) as its `config`."""
    if any(k in body for k in CREATE_REQUEST):
        return {**path, **{k: v for k, v in body.items() if k != "parent"}}
    return {**path, "config": body}



# ---- build: the upstream request ------------------------------------------------------------------

def build(op: Operation, params: Any, version: Version, *, tenant: str = "",
          quirks: Quirks = DEFAULT_QUIRKS) -> Outgoing:
    """The HTTP request for `params` (the op's params in `version`'s REST dialect). v1.0: `tenant`
    (else the params' `tenant`) becomes the path prefix; v0.3 has no tenants."""
    shape = _shape(op, version)
    route = route_for(op, version, getattr(quirks, shape.verb_quirk) if shape.verb_quirk else None)
    if route is None:
        raise UnsupportedOperation(f"{op.v10_method} has no A2A {version.value} HTTP+JSON route")
    if params is not None and type(params) is not dict:
        raise TranslationError("$", "expected an object")
    create = shape.body == "create_request"
    fields: JsonObj = v03_create_request(params or {}) if create else dict(params or {})
    prefix = ""
    if version is V10:
        carried = fields.pop("tenant", "")
        tenant = tenant or (carried if type(carried) is str else "")
        prefix = f"/{quote(_no_slash(tenant, '$.tenant'), safe='')}" if tenant else ""
    values, bound = _PATH_OUT[version](route, fields)
    path = prefix + route.expand(values)
    if route.verb == "POST":
        keep = shape.keep_in_body
        body = {k: v for k, v in fields.items() if k not in bound or k in keep}
        return Outgoing("POST", path, (), jsoncodec.dumpb(_v03_create_body(body, quirks) if create else body))
    query = tuple((k, query_value(v, f"$.{k}"))
                  for k, v in fields.items() if k not in bound and v is not None)
    return Outgoing(route.verb, path, query, None)


def _v03_path_out(route: Route, fields: JsonObj) -> tuple[dict[str, str], frozenset[str]]:
    spec = V03_NAMES.get(route.op.name)
    if spec is None:
        return {}, frozenset()
    member, template = spec
    return parse_name(template, fields.get(member), f"$.{member}"), frozenset({member})


def _v10_path_out(route: Route, fields: JsonObj) -> tuple[dict[str, str], frozenset[str]]:
    values = {}
    for var in route.vars:
        value = fields.get(var)
        if type(value) is not str or not value:
            raise TranslationError(f"$.{var}", "required path member is missing or not a non-empty string")
        _no_slash(value, f"$.{var}")
        values[var] = value
    return values, frozenset(values)


_PATH_OUT: Mapping[Version, Callable[[Route, JsonObj], tuple[dict[str, str], frozenset[str]]]] = {
    V03: _v03_path_out, V10: _v10_path_out,
}


def _v03_create_body(request: JsonObj, quirks: Quirks) -> Any:
    """Quirks.rest_push_create_body: the bare config (P03, JS) or the whole request (PY03)."""
    return request if quirks.rest_push_create_body == "request" else request.get("config", {})




# ---- replies ----------------------------------------------------------------------------------------

def success_status(op: Operation, version: Version, quirks: Quirks) -> int:
    """200, or for v0.3 clients with Quirks.rest_success_codes "js": 201 (send, create) and 204 (delete)."""
    if version is V03 and quirks.rest_success_codes == "js":
        return _shape(op, version).js_status
    return 200


def reply_body(op: Operation, version: Version, result: Any, status: int) -> bytes:
    """The JSON body of a successful reply; an empty result is `{}`, a 204 has no body."""
    if status == 204:
        return b""
    return jsoncodec.dumpb({} if result is None else result)


def result_from_body(op: Operation, version: Version, body: bytes) -> Any:
    """An upstream 2xx reply as the op's result in `version`'s REST dialect (proto field names read as
    json names). Delete's Empty (no body, `{}`) is None. Anything else not a JSON object is the agent's
    fault (InvalidAgentResponse)."""
    shape = _shape(op, version)
    empty_ok = shape.empty_result
    if empty_ok and not body.strip():
        return None
    try:
        value = jsoncodec.loads_relayed(body)   # read to be translated: the codec's lighter rule for a reply
    except GatewayError as exc:
        raise InvalidAgentResponse(f"agent reply is not JSON: {exc.message}") from None
    if empty_ok and value in (None, {}):
        return None
    if type(value) is not dict:
        raise InvalidAgentResponse("agent reply is not a JSON object")
    if shape.rename_result and may_need_json_names(body, version):
        to_json_names(value, version)
    return value
