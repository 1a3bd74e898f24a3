"""Sending the version probes of gateway.core.verify (HTTP, or gRPC to a gRPC interface): each interface asked
in its claimed version, then in the other when that is disproven. Used by the upstream and by `probe`."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Protocol

from gateway.core.bindings.rest import Outgoing
from gateway.core.card import Interface, UpstreamCard
from gateway.core.errors import GatewayError
from gateway.core.types import Binding
from gateway.core.verify import (
    OTHER,
    Probe,
    Verdict,
    Verified,
    conclude,
    judge,
    judge_grpc,
    probe_headers,
    probe_request,
)
from gateway.core.versions import upstream_version_headers
from gateway.observability import get_logger

__all__ = ["Send", "verify_card", "verify_interface"]

if TYPE_CHECKING:  # grpcio loads only when a card lists a gRPC interface
    from gateway.shell.agent.channels import GrpcReply

log = get_logger("gateway.verify")
# a probe is a lookup of a task no agent holds: an agent that takes longer shows nothing, and the card
# (fetched under a lock that the first requests wait on) must not wait for it
PROBE_SECONDS = 5.0


class ReplyLike(Protocol):
    @property
    def status(self) -> int: ...
    @property
    def body(self) -> bytes: ...


class ChannelsLike(Protocol):
    async def unary(self, url: str, path: str, request: bytes, metadata: list[tuple[str, str | bytes]], *,
                    timeout: float) -> GrpcReply: ...


class Send:
    """What a probe needs: an HTTP client's `request(method, url, headers=, body=, query=)` returning an
    object with `status` and `body` (gateway.shell.agent.upstream.Upstream.request is one); for gRPC interfaces,
    the agent's channels (a callable, so grpcio loads only when a card lists one; None: not probed); and
    `report`, told of each probe as it ends (the `probe` command's progress)."""

    def __init__(self, request: Callable[..., Awaitable[ReplyLike]],
                 channels: Callable[[], ChannelsLike] | None = None,
                 report: Callable[[Interface, Probe], None] | None = None) -> None:
        self.request = request
        self.channels = channels
        self.report = report

    async def __call__(self, iface: Interface) -> Probe:
        out = probe_request(iface)
        try:
            async with asyncio.timeout(PROBE_SECONDS):
                verdict, detail = await (self._grpc(iface, out) if iface.binding is Binding.GRPC
                                         else self._http(iface, out))
        except GatewayError as err:
            verdict, detail = Verdict.UNKNOWN, err.message
        except TimeoutError:
            verdict, detail = Verdict.UNKNOWN, f"no answer within {PROBE_SECONDS:g} s"
        probe = Probe(iface.version, verdict, detail)
        if self.report is not None:
            self.report(iface, probe)
        return probe

    async def _http(self, iface: Interface, out: Outgoing) -> tuple[Verdict, str]:
        url = iface.at(out.path)
        headers: Mapping[str, str] = probe_headers(iface)
        reply = await self.request(out.method, url, headers=dict(headers), body=out.body, query=out.query)
        return judge(iface.binding, reply.status, reply.body)

    async def _grpc(self, iface: Interface, out: Outgoing) -> tuple[Verdict, str]:
        if self.channels is None:
            return Verdict.UNKNOWN, "gRPC not probed"
        metadata: list[tuple[str, str | bytes]] = [
            (k.lower(), v) for k, v in upstream_version_headers(iface.version).items()]
        reply = await self.channels().unary(iface.url, out.path, out.body or b"", metadata, timeout=PROBE_SECONDS)
        status = reply.status
        return judge_grpc(status.code if status is not None else None, status.name if status is not None else "OK")


async def verify_interface(send: Send, claimed: Interface) -> Verified:
    """Probe `claimed` in its version; when that is disproven, in the other one too."""
    first = await send(claimed)
    probes = [first]
    if first.verdict is Verdict.DISPROVEN:
        other = Interface(OTHER[claimed.version], claimed.binding, claimed.url, claimed.tenant)
        probes.append(await send(other))
    verified = conclude(claimed, probes)
    if verified.lying:
        log.warning("upstream_version_mismatch", url=claimed.url, binding=claimed.binding.value,
                    claimed=claimed.version.value, observed=verified.version.value)
    elif verified.observed is None:
        log.info("upstream_version_unverified", url=claimed.url, binding=claimed.binding.value,
                 claimed=claimed.version.value, probes=[p.detail for p in probes])
    return verified


async def verify_card(send: Send, card: UpstreamCard) -> list[Verified]:
    """Every interface of `card`, probed concurrently."""
    return list(await asyncio.gather(*(verify_interface(send, i) for i in card.interfaces)))
