"""v1.0 operations a v0.3 agent lacks or bends, composed over its HTTP interfaces from the ones it has (the
rules are core.compose's), the same flows for every door: ListTasks from the task index, each task refreshed
by GetTask; SubscribeToTask opening with the Task, refused for a terminal task, followed to its terminal state;
a push config got by id checked against the agent's list; push config calls refused as v1.0 says when the
agent's card has no push; a blocking send the agent answered at once, its task read until it settles. A door
takes part through a `Seat` (shell.doors.http_seat, the gRPC door's GrpcSeat), or calls `settle`."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

import gateway.shell.agent.port as agent_port
from gateway.config import Settings
from gateway.core.card import Interface
from gateway.core.compose import (
    PUSH_CONFIG_OPERATIONS,
    list_page,
    list_query,
    listed_task,
    pick_config,
    push_refusal,
    settle_params,
    settled,
    status_change,
    subscribe_refusal,
    subscription_over,
    task_state,
)
from gateway.core.errors import GatewayError, TaskNotFound
from gateway.core.exchange import Call, Exchange, Result
from gateway.core.notes import Note
from gateway.core.operations import by_name
from gateway.core.stream import StreamRelay
from gateway.core.types import Binding, Version
from gateway.observability import bind_exchange
from gateway.shell.agent.port import LINK_FAULTS, Caller, Challenge
from gateway.shell.agent.stream_link import StreamReply
from gateway.shell.agent.upstream import Upstream, read_bounded
from gateway.shell.carrier.task_index import TaskStore, agent_key, remember
from gateway.shell.edge.callers import StreamBudget
from gateway.shell.process.lifecycle import Lifecycle

__all__ = ["DoorCall", "Got", "Seat", "compose", "settle"]

TASK_NOT_FOUND = -32001
POLL_SECONDS = 1.0   # how often a subscription the agent no longer streams reads its task again
SETTLE_FIRST_SECONDS = 0.02   # a blocking send's task is first read again after this, then twice as late each time
SETTLE_RPC_ID = "a2a-gateway-settle"
SSE = "text/event-stream"


Got = Result | GatewayError | Challenge   # a sub-call's result (or A2A error), the gateway's fault reading it
Answer_co = TypeVar("Answer_co", covariant=True)   # the door's answer: an HTTP response, a gRPC message or status
Out = TypeVar("Out")   # what one call of the door's stream relay gives (SSE bytes, gRPC frames)
A = TypeVar("A")


class DoorCall(Protocol):
    """One call as its door keeps it (a pipeline Context, the gRPC door's GrpcCall): the settings and the
    lifecycle in force, and what its log line will say."""

    @property
    def settings(self) -> Settings: ...
    @property
    def lifecycle(self) -> Lifecycle: ...
    @property
    def notes(self) -> list[Note]: ...
    @property
    def fields(self) -> dict[str, Any]: ...
    @property
    def budget(self) -> StreamBudget | None:
        """The budgets of the caller's stream (shell.edge.callers), while it holds a stream slot."""


class Seat(Protocol[Answer_co, Out]):
    """What a composed flow needs of the door its caller came through: the caller's v1.0 call and the door's
    record of it, the agent, the exchanges it makes and the headers they forward (the caller's credentials),
    the task index and the caller's scope in it, and how the door answers, unary or streamed."""

    @property
    def call(self) -> Call: ...
    @property
    def door(self) -> DoorCall: ...
    @property
    def upstream(self) -> Upstream: ...
    @property
    def store(self) -> TaskStore: ...
    @property
    def scope(self) -> str:
        """The caller's scope in the task index (core.compose.caller_scope: its authenticated subject, else
        its credential headers, gRPC metadata read as headers)."""
    @property
    def ended(self) -> bool:
        """The caller's stream can take nothing more (a gRPC status was sent)."""

    def exchange(self, call: Call, iface: Interface) -> Exchange: ...
    @property
    def caller(self) -> Caller:
        """What of the caller travels to the agent (its forwarded headers, its address)."""
    async def answer(self, main: Exchange, got: Got) -> Answer_co:
        """The caller's unary answer: a result or A2A error in its shape, a fault, the agent's challenge."""
    def relay(self, main: Exchange) -> StreamRelay[Any, Out]: ...
    async def start(self) -> None:
        """Open the caller's stream."""
    async def write(self, out: Out) -> int:
        """Send what the relay gave; the bytes written."""
    async def pump(self, resp: StreamReply, relay: StreamRelay[Any, Out]) -> int:
        """Relay the agent's live stream until either side ends (keep-alives, idle timeout, drain, the
        stream's budgets); the bytes written, which the stream's byte budget counts."""
    async def keepalive(self) -> int:
        """A keep-alive while a followed task is quiet (none where the transport keeps the call alive)."""
    async def end(self, written: int, relay: StreamRelay[Any, Out]) -> Answer_co:
        """Close the caller's stream: its answer."""


Flow = Callable[[Seat[Any, Any], Interface], Awaitable[Any]]


def may_compose(call: Call) -> bool:
    """Whether compose() may answer `call` (a v1.0 call of a composed flow or of push configuration), as
    its agent's interfaces decide: a door looks first, and seats only those."""
    return call.version is Version.V10 and (call.op.name in FLOWS or call.op.name in PUSH_CONFIG_OPERATIONS)


async def compose(seat: Seat[A, Out]) -> A | None:
    """A v1.0 call the agent's v0.3 interface cannot serve as v1.0 requires: its composed answer (or the
    refusal v1.0 prescribes, raised); None for anything else (the door proxies it)."""
    call = seat.call
    if may_compose(call):
        ifaces = await seat.upstream.interfaces(call.version, call.binding, call.op)
        if ifaces[0].version is Version.V03:
            refusal = push_refusal(call.op.name, (await seat.upstream.card()).card)
            if refusal is not None:
                bind_exchange(upstream_version=ifaces[0].version, upstream_binding=ifaces[0].binding)
                raise refusal
            flow, iface = FLOWS.get(call.op.name), _http(ifaces)
            if flow is not None and iface is not None:
                bind_exchange(upstream_version=iface.version, upstream_binding=iface.binding)
                seat.door.fields["composed"] = True
                answer: A = await flow(seat, iface)
                return answer
    return None


def _http(ifaces: list[Interface]) -> Interface | None:
    """The best of the agent's v0.3 interfaces over HTTP (JSON-RPC, HTTP+JSON), where the compositions run;
    None when it has only gRPC (the call is then proxied as it is)."""
    return next((i for i in ifaces if i.version is Version.V03 and i.binding is not Binding.GRPC), None)


async def _call(seat: Seat[Any, Any], iface: Interface, op: str, params: Any) -> Got:
    """One v1.0 sub-call of a composition to the agent, read as a v1.0 result (the tasks it shows recorded)."""
    call = seat.call
    sub = seat.exchange(Call(by_name(op), Version.V10, call.binding, params, call.rpc_id), iface)
    try:
        try:
            got = await agent_port.result(seat.upstream, sub, seat.caller)   # a challenge passes unchanged
        except LINK_FAULTS:
            raise
        except GatewayError as err:   # the agent's reply could not be read
            return err
        if isinstance(got, Result):
            await remember(seat.store, seat.scope, sub)
        return got
    finally:
        seat.door.notes.extend(sub.notes)


# ---- ListTasks ----------------------------------------------------------------------------------------

async def _list_tasks(seat: Seat[A, Any], iface: Interface) -> A:
    """The caller's tasks from the index (filtered, ordered, paged by core.compose), each refreshed by GetTask;
    a task the agent no longer knows is dropped from the index and the page."""
    query = list_query(seat.call.params)
    scope = seat.scope
    store, agent = seat.store, agent_key(iface.url)
    page, token, total = list_page(await store.scoped(agent, scope), query, scope)
    limit = {} if query.history_length is None else {"historyLength": query.history_length}
    fetched = await asyncio.gather(*(_call(seat, iface, "get_task", {"id": r.id, **limit}) for r in page))
    tasks = []
    for record, got in zip(page, fetched, strict=True):
        if isinstance(got, Challenge):
            return await seat.answer(seat.exchange(seat.call, iface), got)
        if isinstance(got, Result) and got.ok and isinstance(got.value, dict):
            listed = listed_task(got.value, query)
            if listed is not None:
                tasks.append(listed)
            continue
        if isinstance(got, Result) and isinstance(got.value, dict) and got.value.get("code") == TASK_NOT_FOUND:
            await store.forget(agent, record.id)
        seat.door.fields.setdefault("unlisted", []).append(record.id)   # the agent did not answer it: not listed
    result = {"tasks": tasks, "nextPageToken": token, "pageSize": query.page_size, "totalSize": total}
    return await seat.answer(seat.exchange(seat.call, iface), Result(True, result))


# ---- SubscribeToTask ----------------------------------------------------------------------------------

async def _subscribe(seat: Seat[A, Out], iface: Interface) -> A:
    """The Task first (GetTask), the agent's events after it, closed at the terminal state; TaskNotFound or
    UnsupportedOperation (terminal task) before any event. A v0.3 agent with no live events for the task
    (a2a-sdk 0.3 answers TaskNotFound then) gives a stream of the Task as it is now, closed."""
    call = seat.call
    main = seat.exchange(call, iface)
    out = main.upstream_request()   # checks the params
    task_id = str(call.params.get("id", "")) if isinstance(call.params, dict) else ""
    got = await _call(seat, iface, "get_task", {"id": task_id})
    if not isinstance(got, Result) or not got.ok:
        return await seat.answer(main, got)
    refusal = subscribe_refusal(got.value, task_id)
    if refusal is not None:
        raise refusal
    task = got.value
    held = contextlib.AsyncExitStack()
    opened_stream = await held.enter_async_context(agent_port.open_stream(seat.upstream, main, seat.caller, out))
    assert isinstance(opened_stream, StreamReply), "compositions run over the agent's HTTP interfaces"
    resp = opened_stream
    try:
        live = resp.status == 200 and resp.content_type == SSE
        if not live:
            await read_bounded(resp, seat.upstream.max_body_bytes)
            if resp.status in (401, 403):
                return await seat.answer(main, Challenge(resp.status, resp.headers))
            again = await _call(seat, iface, "get_task", {"id": task_id})   # what it is now
            if isinstance(again, Result) and again.ok and isinstance(again.value, dict):
                task = again.value
        relay = seat.relay(main)
        opened = time.monotonic()
        await seat.start()
        written = await seat.write(relay.open_with(task))
        if live and not relay.done:
            written += await seat.pump(resp, relay)
        if not resp.closed:
            resp.close()
        last = task_state(relay.tracked.get(task_id, {"task": task}))
        written += await _follow(seat, iface, relay, task_id, last, opened, written)
        return await seat.end(written, relay)
    finally:
        await held.aclose()
        seat.door.notes.extend(main.notes)
        await remember(seat.store, seat.scope, main)


async def _follow(seat: Seat[Any, Out], iface: Interface, relay: StreamRelay[Any, Out], task_id: str,
                  last: str | None, opened: float, before: int) -> int:
    """The agent's own stream is over but the task is not (an interrupted task has none on a v0.3 agent, and
    a2a-sdk 0.3 ends one at input-required): the task is read again every POLL_SECONDS and each new state sent
    as a status update, until a terminal state, the task gone, upstream.timeout.idle_stream without a change,
    the drain, a caller's stream that can take no more, or its budgets spent (the stream `opened` then, `before`
    bytes sent before). Keep-alives as the relay sends them. Returns the bytes written."""
    settings, written, quiet, since_write = seat.door.settings, 0, 0.0, 0.0
    budget = seat.door.budget
    while not subscription_over(last) and not seat.door.lifecycle.draining and not seat.ended \
            and not (budget is not None and budget.spent(opened, before + written)):
        await asyncio.sleep(POLL_SECONDS)
        quiet, since_write = quiet + POLL_SECONDS, since_write + POLL_SECONDS
        got = await _call(seat, iface, "get_task", {"id": task_id, "historyLength": 0})
        if not isinstance(got, Result) or not got.ok or not isinstance(got.value, dict):
            break   # gone, or the agent fails: the stream just ends
        change = status_change(got.value, last)
        if change is not None:
            written += await seat.write(relay.emit(change))
            last, quiet, since_write = task_state(change), 0.0, 0.0
        elif agent_port.quiet_too_long(seat.upstream, quiet):
            break
        elif 0 < settings.server.heartbeat_seconds <= since_write:
            written += await seat.keepalive()
            since_write = 0.0
    return written


# ---- GetTaskPushNotificationConfig --------------------------------------------------------------------

async def _get_push_config(seat: Seat[A, Any], iface: Interface) -> A:
    """The config asked for, never another: a2a-sdk 0.3.26 ignores the config id and answers the task's first
    config, so a reply with another id is checked against the task's list (not found when it has none)."""
    call = seat.call
    main = seat.exchange(call, iface)
    main.upstream_request()   # checks the params
    params = call.params if isinstance(call.params, dict) else {}
    wanted = params.get("id")
    got = await _call(seat, iface, "get_push_config", params)
    if not isinstance(got, Result) or not got.ok or not isinstance(got.value, dict) or got.value.get("id") == wanted:
        return await seat.answer(main, got)
    seat.door.fields["push_config_mismatch"] = got.value.get("id")
    lister = _http(await seat.upstream.interfaces(Version.V10, call.binding, by_name("list_push_configs"))) or iface
    listing = await _call(seat, lister, "list_push_configs", {"taskId": params.get("taskId", "")})
    if isinstance(listing, Result) and listing.ok and isinstance(listing.value, dict):
        picked = pick_config(listing.value.get("configs") or [], str(wanted))
        if picked is not None:
            return await seat.answer(main, Result(True, picked))
    raise TaskNotFound(f"Push notification config {wanted} not found for task {params.get('taskId')}")


# ---- SendMessage, blocking ----------------------------------------------------------------------------

async def settle(upstream: Upstream, main: Exchange, task_id: str, caller: Caller, *, within: float) -> Result | None:
    """A blocking send (core.compose.waits) the agent answered with its task just submitted (fasta2a answers
    every send so): the task read again by GetTask, as the gateway's own v1.0 call with the caller's
    credentials, first after SETTLE_FIRST_SECONDS and then twice as late each time (at most POLL_SECONDS),
    until it is terminal or interrupted — the send's result for the caller (`main`'s). None when it has not
    settled within `within` seconds, or a read failed: the caller then gets the agent's own reply. Noted. An
    interface that left a task under way past the deadline is not waited on again (Upstream.leaves_tasks): its
    later blocking sends are answered at once, as it answers them."""
    if main.upstream.url in upstream.leaves_tasks:
        return None
    deadline, pause, reads = time.monotonic() + within, SETTLE_FIRST_SECONDS, 0
    params = settle_params(task_id, main.call.params, main.src)
    while deadline - time.monotonic() > pause:
        await asyncio.sleep(pause)
        pause = min(pause * 2, POLL_SECONDS)
        read = agent_port.exchange(upstream, Call(by_name("get_task"), Version.V10, Binding.JSONRPC, params,
                                                  SETTLE_RPC_ID), main.upstream, main.quirks)
        try:
            async with asyncio.timeout(max(0.0, deadline - time.monotonic())):
                got: Got | None = await agent_port.result(upstream, read, caller)
        except (GatewayError, TimeoutError):
            got = None
        finally:
            main.notes.extend(read.notes)
        reads += 1
        if not isinstance(got, Result) or not got.ok:
            main.cx.note("blocking_unsettled", "$.result", f"task {task_id}: reading it again failed")
            return None
        if settled(got.value):
            main.cx.note("blocking_settled", "$.result", f"task {task_id} read {reads} times")
            return main.from_hub({"task": got.value})
    main.cx.note("blocking_unsettled", "$.result", f"task {task_id} still under way after {within:.1f} s: its "
                 "agent's blocking sends are no longer waited on")
    upstream.leaves_tasks.add(main.upstream.url)
    return None


FLOWS: dict[str, Flow] = {
    "list_tasks": _list_tasks,
    "subscribe_to_task": _subscribe,
    "get_push_config": _get_push_config,
}
