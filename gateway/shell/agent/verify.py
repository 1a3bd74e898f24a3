"""Sending the version probes of gateway.core.verify: each interface of a card asked in its claimed version,
then in the other when the claim is disproven. Used by the upstream on every card fetch and by `probe`."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import Protocol

from gateway.core.card import Interface, UpstreamCard
from gateway.core.errors import GatewayError
from gateway.core.verify import OTHER, Probe, Verdict, Verified, conclude, judge, probe_headers, probe_request
from gateway.observability import get_logger

__all__ = ["Send", "verify_card", "verify_interface"]

log = get_logger("gateway.verify")
# a probe is a lookup of a task no agent holds: an agent that takes longer shows nothing, and the card
# (fetched under a lock that the first requests wait on) must not wait for it
PROBE_SECONDS = 5.0


class ReplyLike(Protocol):
    @property
    def status(self) -> int: ...
    @property
    def body(self) -> bytes: ...


class Send:
    """What a probe needs of an HTTP client: `request(method, url, headers=, body=, query=)` returning an
    object with `status` and `body` (gateway.shell.agent.upstream.Upstream.request is one)."""

    def __init__(self, request: Callable[..., Awaitable[ReplyLike]]) -> None:
        self.request = request

    async def __call__(self, iface: Interface) -> Probe:
        out = probe_request(iface)
        url = iface.url if not out.path else iface.url.rstrip("/") + out.path
        headers: Mapping[str, str] = probe_headers(iface)
        try:
            async with asyncio.timeout(PROBE_SECONDS):
                reply = await self.request(out.method, url, headers=dict(headers), body=out.body, query=out.query)
        except GatewayError as err:
            return Probe(iface.version, Verdict.UNKNOWN, err.message)
        except TimeoutError:
            return Probe(iface.version, Verdict.UNKNOWN, f"no answer within {PROBE_SECONDS:g} s")
        verdict, detail = judge(iface.binding, reply.status, reply.body)
        return Probe(iface.version, verdict, detail)


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
