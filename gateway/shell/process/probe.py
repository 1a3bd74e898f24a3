"""The `a2a-gateway probe URL` command: read an agent's card, check each interface's real version with the
gateway's own probe (gateway.shell.agent.verify), and say what clients of each version and binding would get
through the gateway in front of it (pass-through, translated, composed, the quirks detected)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from typing import Any

from gateway.config import Settings
from gateway.core.card import CARD_PATHS, Interface, UpstreamCard
from gateway.core.errors import GatewayError
from gateway.core.operations import OPERATIONS
from gateway.core.types import Binding, Version
from gateway.core.verify import Probe
from gateway.core.versions import is_passthrough
from gateway.shell.agent.upstream import Upstream

__all__ = ["EXIT", "probe", "render_text", "run", "wait_overrides"]

# the exit statuses of `probe` (documented in its --help)
EXIT = {"honest": 0, "unverified": 1, "usage": 2, "lying": 3, "unreachable": 4}
_LIST_TASKS = next(op for op in OPERATIONS if op.name == "list_tasks")

def wait_overrides(seconds: float) -> dict[str, object]:
    """The upstream settings that bound each of the probe's requests to `seconds` (its --timeout): a person
    is waiting, not a client whose slow agent must be borne (the gateway waits up to a minute for a byte)."""
    return {"upstream.timeout.connect": seconds, "upstream.timeout.first_byte": seconds,
            "upstream.timeout.total_unary": seconds}


def _card_urls(url: str) -> list[str]:
    """Where the card is looked for, in order."""
    return [url.rstrip("/") + path for path in CARD_PATHS]


def _label(i: Interface) -> str:
    return f"A2A {i.version.value} {i.binding.value} at {i.url}"


def _client_view(card: UpstreamCard, client: Version, binding: Binding) -> dict[str, Any]:
    """What a client of `client` over `binding` gets through the gateway: the interface it is carried to,
    and how; the operations the gateway composes itself."""
    found = card.candidates(client, binding)
    if not found:
        return {"client_version": client.value, "binding": binding.value, "served": False,
                "how": "not served: the card lists no interface the gateway speaks"}
    iface = found[0]
    how = "pass-through (bytes untouched)" if is_passthrough(client, iface.version, binding, iface.binding) \
        else f"translated to {_label(iface)}"
    extra = []
    if client is Version.V10 and iface.version is Version.V03:
        # a v0.3 agent has no tasks/list: the gateway answers from its task index of the tasks it relayed
        extra.append(f"{_LIST_TASKS.method(Version.V10)} composed by the gateway (its task index of the "
                     "tasks it relayed), SubscribeToTask composed too")
    return {"client_version": client.value, "binding": binding.value, "served": True, "to": iface.url,
            "agent_version": iface.version.value, "agent_binding": iface.binding.value,
            "passthrough": how.startswith("pass"), "how": how, "notes": extra}


async def probe(settings: Settings, say: Callable[[str], None] | None = None) -> dict[str, Any]:
    """The report on `settings.upstream.url` (on `upstream.version = auto`, as the gateway's defaults);
    `say` is told what is being tried as it goes."""
    tell = say or (lambda line: None)
    upstream = Upstream(settings.upstream, settings.limits)

    def probed(iface: Interface, result: Probe) -> None:
        tell(f"probed {iface.binding.value} {iface.url} in A2A {result.version.value} "
             f"(GetTask of a task no agent holds): {result.verdict.value}, {result.detail}")

    upstream.on_probe = probed
    await upstream.start()
    tried = _card_urls(settings.upstream.url)
    try:
        tell(f"reading the agent card at {', else '.join(tried)} "
             f"(each within {upstream.deadlines.unary:g} s)")
        try:
            card = await upstream.card()
        except GatewayError as err:
            return {"url": settings.upstream.url, "verdict": "unreachable", "error": err.message, "tried": tried}
        interfaces = [v.as_json() for v in upstream.verified]
        statuses = {i["status"] for i in interfaces}
        verdict = "lying" if "corrected" in statuses else "unverified" if "unverified" in statuses else "honest"
        quirks = []
        if upstream.rest_bytes_guess == "double":
            quirks.append("the Server header names a Python ASGI server (a2a-sdk for Python): v0.3 HTTP+JSON "
                          "file bytes as double base64, push-config create sent as the whole request")
        clients = [_client_view(card, v, b) for v in (Version.V03, Version.V10) for b in (Binding.JSONRPC,
                                                                                         Binding.REST)]
        return {"url": settings.upstream.url, "verdict": verdict, "name": card.card.get("name", ""),
                "interfaces": interfaces, "clients": clients, "quirks": quirks}
    finally:
        await upstream.close()


def run(settings: Settings, *, progress: bool = True) -> dict[str, Any]:
    """probe() on its own loop; what it tries on stderr as it goes (unless not `progress`)."""
    def say(line: str) -> None:
        print(f"probe: {line}", file=sys.stderr, flush=True)
    return asyncio.run(probe(settings, say if progress else None))


def render_text(report: dict[str, Any]) -> str:
    """The report for a person."""
    lines = [f"agent {report['url']}" + (f" ({report['name']})" if report.get("name") else "")]
    if report["verdict"] == "unreachable":
        tried = [f"  tried: {url}" for url in report.get("tried", [])]
        return "\n".join([*lines, *tried, f"  unreachable: {report['error']}"]) + "\n"
    says = {"honest": "the card tells the truth", "lying": "THE CARD LIES about the protocol version",
            "unverified": "some interfaces could not be verified (the card's claim is used)"}
    lines.append(f"  verdict: {says[report['verdict']]}")
    lines.append("  interfaces:")
    for i in report["interfaces"]:
        probes = "; ".join(f"{p['version']}: {p['detail']}" for p in i["probes"])
        lines.append(f"    {i['binding']:<9} {i['url']}: card claims {i['claimed']}, agent speaks "
                     f"{i['observed'] or '?'} ({i['status']}; {probes})")
    lines.append("  through the gateway:")
    for c in report["clients"]:
        lines.append(f"    v{c['client_version']} {c['binding']:<9} client: {c['how']}")
        lines.extend(f"      {n}" for n in c.get("notes", []))
    if report["quirks"]:
        lines.append("  quirks detected:")
        lines.extend(f"    {q}" for q in report["quirks"])
    return "\n".join(lines) + "\n"
