"""The `a2a-gateway probe URL` command: read an agent's card, check each interface's real version with the
gateway's own probe (gateway.shell.agent.verify), and say what clients of each version and binding would get
through the gateway in front of it (pass-through, translated, composed, the quirks detected)."""

from __future__ import annotations

import asyncio
from typing import Any

from gateway.config import Settings
from gateway.core.card import Interface, UpstreamCard
from gateway.core.errors import GatewayError
from gateway.core.operations import OPERATIONS
from gateway.core.types import Binding, Version
from gateway.core.versions import is_passthrough
from gateway.shell.agent.upstream import Upstream

__all__ = ["EXIT", "probe", "render_text", "run"]

# the exit statuses of `probe` (documented in its --help)
EXIT = {"honest": 0, "unverified": 1, "usage": 2, "lying": 3, "unreachable": 4}
_LIST_TASKS = next(op for op in OPERATIONS if op.name == "list_tasks")


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


async def probe(settings: Settings) -> dict[str, Any]:
    """The report on `settings.upstream.url` (on `upstream.version = auto`, as the gateway's defaults)."""
    upstream = Upstream(settings.upstream, settings.limits)
    await upstream.start()
    try:
        try:
            card = await upstream.card()
        except GatewayError as err:
            return {"url": settings.upstream.url, "verdict": "unreachable", "error": err.message}
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


def run(settings: Settings) -> dict[str, Any]:
    return asyncio.run(probe(settings))


def render_text(report: dict[str, Any]) -> str:
    """The report for a person."""
    lines = [f"agent {report['url']}" + (f" ({report['name']})" if report.get("name") else "")]
    if report["verdict"] == "unreachable":
        return "\n".join([*lines, f"  unreachable: {report['error']}"]) + "\n"
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
