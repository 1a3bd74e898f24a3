"""v1.0 operations a v0.3 agent lacks or bends, composed over its HTTP interfaces from the ones it has (the
rules are core.compose's): ListTasks from the task index, each task refreshed by GetTask; SubscribeToTask
opening with the Task, refused for a terminal task, followed to its terminal state; a push config got by id
checked against the agent's list; push config calls refused as v1.0 says when the agent's card has no push.
The doors call `forward`: everything else (and an agent reached over gRPC only) goes on to shell.proxy."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web
from multidict import CIMultiDict

from gateway.core.card import Interface
from gateway.core.compose import (
    PUSH_CONFIG_OPERATIONS,
    caller_scope,
    list_page,
    list_query,
    listed_task,
    pick_config,
    push_refusal,
    status_change,
    subscribe_refusal,
    subscription_over,
    task_state,
)
from gateway.core.errors import TaskNotFound, UpstreamUnavailable
from gateway.core.exchange import Again, Call, Exchange, Reply, Result
from gateway.core.operations import by_name
from gateway.core.types import Binding, Version
from gateway.shell.headers import client_response_headers
from gateway.shell.pipeline import Context, respond
from gateway.shell.proxy import Raw, exchange_for, upstream_headers
from gateway.shell.proxy import forward as proxy_forward
from gateway.shell.relay import KEEPALIVE, pump, start_stream
from gateway.shell.task_index import TASK_INDEX, agent_key, remember
from gateway.shell.upstream import read_bounded

__all__ = ["forward"]

Flow = Callable[[Context, Call, Interface], Awaitable[web.StreamResponse]]
Got = Result | Reply | web.Response   # a sub-call's result, the gateway's fault reading it, or a challenge
TASK_NOT_FOUND = -32001
POLL_SECONDS = 1.0   # how often a subscription the agent no longer streams reads its task again


async def forward(ctx: Context, call: Call, raw: Raw) -> web.StreamResponse:
    """A v1.0 call the agent's v0.3 interface cannot serve as v1.0 requires: composed; anything else: proxied."""
    if call.version is Version.V10 and (call.op.name in FLOWS or call.op.name in PUSH_CONFIG_OPERATIONS):
        ifaces = await ctx.upstream.interfaces(call.version, call.binding, call.op)
        if ifaces[0].version is Version.V03:
            refusal = push_refusal(call.op.name, (await ctx.upstream.card()).card)
            if refusal is not None:
                ctx.bind(upstream_version=ifaces[0].version, upstream_binding=ifaces[0].binding)
                raise refusal
            flow, iface = FLOWS.get(call.op.name), _http(ifaces)
            if flow is not None and iface is not None:
                ctx.bind(upstream_version=iface.version, upstream_binding=iface.binding)
                ctx.fields["composed"] = True
                return await flow(ctx, call, iface)
    return await proxy_forward(ctx, call, raw)


def _http(ifaces: list[Interface]) -> Interface | None:
    """The best of the agent's v0.3 interfaces over HTTP (JSON-RPC, HTTP+JSON), where the compositions run;
    None when it has only gRPC (the call is then proxied as it is)."""
    return next((i for i in ifaces if i.version is Version.V03 and i.binding is not Binding.GRPC), None)


def _url(iface: Interface, path: str) -> str:
    return iface.url if not path else iface.url.rstrip("/") + path


async def _call(ctx: Context, call: Call, iface: Interface, op: str, params: Any) -> Got:
    """One v1.0 sub-call of a composition to the agent, read as a v1.0 result (the tasks it shows recorded)."""
    sub = exchange_for(ctx, Call(by_name(op), Version.V10, call.binding, params, call.rpc_id), iface)
    try:
        out = sub.upstream_request()
        while True:
            reply = await ctx.upstream.request(out.method, _url(iface, out.path), body=out.body, query=out.query,
                                               headers=upstream_headers(ctx, iface))
            if reply.status in (401, 403):   # authentication is end to end: the challenge passes unchanged
                return web.Response(body=reply.body, status=reply.status,
                                    headers=client_response_headers(reply.headers, Version.V10))
            if reply.status >= 500 and "json" not in reply.headers.get("Content-Type", ""):
                raise UpstreamUnavailable(f"upstream agent answered HTTP {reply.status}")
            step = sub.read_reply(reply.status, reply.body)
            if not isinstance(step, Again):
                await remember(ctx.request, sub)
                return step
            out = step.request
    finally:
        ctx.notes.extend(sub.notes)


def _headers() -> CIMultiDict[str]:
    return client_response_headers(CIMultiDict(), Version.V10)


def _reply(ctx: Context, main: Exchange, got: Got) -> web.Response:
    if isinstance(got, web.Response):
        ctx.outcome = "error"
        return got
    reply = got if isinstance(got, Reply) else main.reply_for(got)
    ctx.outcome = "error" if reply.error else "ok"
    return respond(reply, _headers())


# ---- ListTasks ----------------------------------------------------------------------------------------

async def _list_tasks(ctx: Context, call: Call, iface: Interface) -> web.StreamResponse:
    """The caller's tasks from the index (filtered, ordered, paged by core.compose), each refreshed by GetTask;
    a task the agent no longer knows is dropped from the index and the page."""
    query = list_query(call.params)
    scope = caller_scope(ctx.request.headers.items())
    store, agent = ctx.request.config_dict[TASK_INDEX], agent_key(iface.url)
    page, token, total = list_page(await store.scoped(agent, scope), query, scope)
    limit = {} if query.history_length is None else {"historyLength": query.history_length}
    fetched = await asyncio.gather(*(_call(ctx, call, iface, "get_task", {"id": r.id, **limit}) for r in page))
    tasks = []
    for record, got in zip(page, fetched, strict=True):
        if isinstance(got, web.Response):
            return _reply(ctx, exchange_for(ctx, call, iface), got)
        if isinstance(got, Result) and got.ok and isinstance(got.value, dict):
            listed = listed_task(got.value, query)
            if listed is not None:
                tasks.append(listed)
            continue
        if isinstance(got, Result) and isinstance(got.value, dict) and got.value.get("code") == TASK_NOT_FOUND:
            await store.forget(agent, record.id)
        ctx.fields.setdefault("unlisted", []).append(record.id)   # the agent did not answer it: not listed
    result = {"tasks": tasks, "nextPageToken": token, "pageSize": query.page_size, "totalSize": total}
    return _reply(ctx, exchange_for(ctx, call, iface), Result(True, result))


# ---- SubscribeToTask ----------------------------------------------------------------------------------

async def _subscribe(ctx: Context, call: Call, iface: Interface) -> web.StreamResponse:
    """The Task first (GetTask), the agent's events after it, closed at the terminal state; TaskNotFound or
    UnsupportedOperation (terminal task) before any event. A v0.3 agent with no live events for the task
    (a2a-sdk 0.3 answers TaskNotFound then) gives a stream of the Task as it is now, closed."""
    main = exchange_for(ctx, call, iface)
    out = main.upstream_request()   # checks the params
    task_id = str(call.params.get("id", "")) if isinstance(call.params, dict) else ""
    got = await _call(ctx, call, iface, "get_task", {"id": task_id})
    if not isinstance(got, Result) or not got.ok:
        return _reply(ctx, main, got)
    refusal = subscribe_refusal(got.value, task_id)
    if refusal is not None:
        raise refusal
    task = got.value
    headers = upstream_headers(ctx, iface)
    headers["Accept"] = "text/event-stream"
    resp = await ctx.upstream.open(out.method, _url(iface, out.path), headers=headers, body=out.body,
                                   query=out.query)
    try:
        live = resp.status == 200 and resp.content_type == "text/event-stream"
        if not live:
            await read_bounded(resp, ctx.upstream.max_body_bytes)
            if resp.status in (401, 403):
                return _reply(ctx, main, web.Response(status=resp.status,
                                                      headers=client_response_headers(resp.headers, Version.V10)))
            again = await _call(ctx, call, iface, "get_task", {"id": task_id})   # what it is now
            if isinstance(again, Result) and again.ok and isinstance(again.value, dict):
                task = again.value
        relay = main.stream(max_event_bytes=ctx.settings.limits.max_sse_event_bytes)
        stream = await start_stream(ctx.request, _headers())
        written = len(first := relay.open_with(task))
        await stream.write(first)
        if live and not relay.done:
            written += await pump(stream, resp, relay, heartbeat=ctx.settings.server.heartbeat_seconds,
                                  lifecycle=ctx.lifecycle, idle_timeout=ctx.settings.upstream.timeout.idle_stream)
        if not resp.closed:
            resp.close()
        last = task_state(relay.tracked.get(task_id, {"task": task}))
        written += await _follow(ctx, call, iface, stream, relay, task_id, last)
        await stream.write_eof()
        ctx.outcome, ctx.fields["bytes"], ctx.fields["events"] = "stream", written, relay.events_out
        return stream
    finally:
        if not resp.closed:
            resp.close()
        ctx.notes.extend(main.notes)
        await remember(ctx.request, main)


async def _follow(ctx: Context, call: Call, iface: Interface, stream: web.StreamResponse, relay: Any,
                  task_id: str, last: str | None) -> int:
    """The agent's own stream is over but the task is not (an interrupted task has none on a v0.3 agent, and
    a2a-sdk 0.3 ends one at input-required): the task is read again every POLL_SECONDS and each new state sent
    as a status update, until a terminal state, the task gone, upstream.timeout.idle_stream without a change,
    or the drain. Keep-alives as the relay sends them. Returns the bytes written."""
    settings, written, quiet, since_write = ctx.settings, 0, 0.0, 0.0
    while not subscription_over(last) and not ctx.lifecycle.draining:
        await asyncio.sleep(POLL_SECONDS)
        quiet, since_write = quiet + POLL_SECONDS, since_write + POLL_SECONDS
        got = await _call(ctx, call, iface, "get_task", {"id": task_id, "historyLength": 0})
        if not isinstance(got, Result) or not got.ok or not isinstance(got.value, dict):
            break   # gone, or the agent fails: the stream just ends
        change = status_change(got.value, last)
        if change is not None:
            data = relay.emit(change)
            last, quiet, since_write = task_state(change), 0.0, 0.0
        elif quiet >= settings.upstream.timeout.idle_stream:
            break
        elif 0 < settings.server.heartbeat_seconds <= since_write:
            data, since_write = KEEPALIVE, 0.0
        else:
            continue
        await stream.write(data)
        written += len(data)
    return written


# ---- GetTaskPushNotificationConfig --------------------------------------------------------------------

async def _get_push_config(ctx: Context, call: Call, iface: Interface) -> web.StreamResponse:
    """The config asked for, never another: a2a-sdk 0.3.26 ignores the config id and answers the task's first
    config, so a reply with another id is checked against the task's list (not found when it has none)."""
    main = exchange_for(ctx, call, iface)
    main.upstream_request()   # checks the params
    params = call.params if isinstance(call.params, dict) else {}
    wanted = params.get("id")
    got = await _call(ctx, call, iface, "get_push_config", params)
    if not isinstance(got, Result) or not got.ok or not isinstance(got.value, dict) or got.value.get("id") == wanted:
        return _reply(ctx, main, got)
    ctx.fields["push_config_mismatch"] = got.value.get("id")
    lister = _http(await ctx.upstream.interfaces(Version.V10, call.binding, by_name("list_push_configs"))) or iface
    listing = await _call(ctx, call, lister, "list_push_configs", {"taskId": params.get("taskId", "")})
    if isinstance(listing, Result) and listing.ok and isinstance(listing.value, dict):
        picked = pick_config(listing.value.get("configs") or [], str(wanted))
        if picked is not None:
            return _reply(ctx, main, Result(True, picked))
    raise TaskNotFound(f"Push notification config {wanted} not found for task {params.get('taskId')}")


FLOWS: dict[str, Flow] = {
    "list_tasks": _list_tasks,
    "subscribe_to_task": _subscribe,
    "get_push_config": _get_push_config,
}
