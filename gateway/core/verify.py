"""Verifying an agent's protocol version: the harmless probe call spelled in a claimed version (GetTask of
an id no agent holds), the verdict its reply gives, and what a real call's "method not found" implies."""

# Cards lie in the wild (an agent advertising 1.0 that speaks 0.3, and the reverse), and behind such a card
# every translated call fails with "Method not found". The probe settles it: TaskNotFound proves the
# version (the agent parsed the method and looked the task up), method-not-found disproves it (a JSON-RPC
# -32601, or a framework's own 404 without an A2A error body on HTTP+JSON, or gRPC's UNIMPLEMENTED: no
# such service in that version's proto package), anything else proves nothing.

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import gateway.core.jsoncodec as jsoncodec
from gateway.core.bindings.rest import Outgoing
from gateway.core.card import Interface
from gateway.core.errors import GatewayError
from gateway.core.exchange import Call, Exchange
from gateway.core.notes import Note
from gateway.core.operations import by_name
from gateway.core.types import Binding, Version
from gateway.core.versions import upstream_version_headers

__all__ = ["PROBE_TASK_ID", "Probe", "Verdict", "Verified", "conclude", "judge", "judge_grpc", "method_missing",
           "probe_headers", "probe_request"]

# An id no agent holds: the probe's GetTask must answer TaskNotFound in the version the agent speaks.
PROBE_TASK_ID = "a2a-gateway-version-probe-00000000"
TASK_NOT_FOUND = -32001
METHOD_NOT_FOUND = -32601
OTHER = {Version.V03: Version.V10, Version.V10: Version.V03}
NOTE_CODE = "upstream_version_mismatch"


class Verdict(str, Enum):  # noqa: UP042 - StrEnum would change str() of members (logs, JSON)
    PROVEN = "proven"        # the agent answered in the version asked
    DISPROVEN = "disproven"  # the agent does not know the method as spelled in that version
    UNKNOWN = "unknown"      # the reply says nothing either way (unreachable, 5xx, auth, …)


@dataclass(frozen=True, slots=True)
class Probe:
    """One probe: the version it was spelled in, and what the reply said."""

    version: Version
    verdict: Verdict
    detail: str


@dataclass(frozen=True, slots=True)
class Verified:
    """One interface of the card, checked: what the card claimed, what the agent showed (None: nothing
    shown either way, the claim stands), and the probes that showed it."""

    claimed: Interface
    observed: Version | None
    probes: tuple[Probe, ...]

    @property
    def version(self) -> Version:
        """The version to speak to this interface."""
        return self.observed if self.observed is not None else self.claimed.version

    @property
    def interface(self) -> Interface:
        c = self.claimed
        return c if self.version is c.version else Interface(self.version, c.binding, c.url, c.tenant)

    @property
    def lying(self) -> bool:
        return self.observed is not None and self.observed is not self.claimed.version

    @property
    def status(self) -> str:
        """verified (the claim proven), corrected (the other version proven), unverified (nothing shown)."""
        if self.observed is None:
            return "unverified"
        return "corrected" if self.lying else "verified"

    def note(self) -> Note | None:
        """The loss-is-data record of a lying card."""
        if not self.lying:
            return None
        c = self.claimed
        return Note(NOTE_CODE, "$.supportedInterfaces",
                    f"{c.binding.value} {c.url} claims A2A {c.version.value} but answers {self.version.value}")

    def as_json(self) -> dict[str, object]:
        c = self.claimed
        return {"url": c.url, "binding": c.binding.value, "claimed": c.version.value,
                "observed": self.observed.value if self.observed is not None else None, "status": self.status,
                "probes": [{"version": p.version.value, "verdict": p.verdict.value, "detail": p.detail}
                           for p in self.probes]}


def probe_request(iface: Interface) -> Outgoing:
    """GetTask of PROBE_TASK_ID spelled for `iface` (its version and binding); the path is relative to its URL."""
    call = Call(by_name("get_task"), Version.V10, Binding.JSONRPC, {"id": PROBE_TASK_ID}, rpc_id="a2a-gateway-probe")
    return Exchange(call, iface).upstream_request()


def probe_headers(iface: Interface) -> dict[str, str]:
    content_type = "application/json" if iface.binding is Binding.JSONRPC or iface.version is Version.V03 \
        else "application/a2a+json"
    return {**upstream_version_headers(iface.version), "Content-Type": content_type, "Accept": "application/json"}


# an integer code is written with these digits (ujson reads `-032601` as the integer too; an exponent is a float)
_METHOD_NOT_FOUND_DIGITS = str(abs(METHOD_NOT_FOUND)).encode()


def _rpc_code(body: bytes) -> int | None:
    try:
        doc = jsoncodec.loads(body)
    except GatewayError:  # not JSON: no JSON-RPC error code
        return None
    error = doc.get("error") if isinstance(doc, dict) else None
    code = error.get("code") if isinstance(error, dict) else None
    return code if type(code) is int else None


def method_missing(binding: Binding, status: int, body: bytes) -> bool:
    """Whether an agent's reply says it does not know the method or route at all: JSON-RPC -32601, or
    (HTTP+JSON) a framework's own 404/405 with no A2A error in the body."""
    if binding is Binding.JSONRPC:  # no digits of the code in the text: no such code (and no decode)
        return body.find(_METHOD_NOT_FOUND_DIGITS) >= 0 and _rpc_code(body) == METHOD_NOT_FOUND
    if status == 405:
        return True
    return status == 404 and b'"code"' not in body and b'"type"' not in body and b"Task" not in body \
        and b"TASK" not in body


def judge(binding: Binding, status: int, body: bytes) -> tuple[Verdict, str]:
    """The verdict of a probe's reply, with the evidence in a few words."""
    if method_missing(binding, status, body):
        return Verdict.DISPROVEN, "method not found" if binding is Binding.JSONRPC else f"HTTP {status}, no route"
    if binding is Binding.JSONRPC:
        code = _rpc_code(body)
        if status == 200 and code == TASK_NOT_FOUND:
            return Verdict.PROVEN, "TaskNotFound"
        return Verdict.UNKNOWN, f"HTTP {status}" + (f", code {code}" if code is not None else "")
    if status == 404 and (b"Task" in body or b"TASK" in body):
        return Verdict.PROVEN, "TaskNotFound"
    return Verdict.UNKNOWN, f"HTTP {status}"


# A gRPC probe's verdict by the call's status code (absent: UNKNOWN, with the status named): NOT_FOUND is
# the task lookup's TaskNotFound; UNIMPLEMENTED, a server without that version's service (the two versions'
# services live in different proto packages, so the other version's call reaches no handler).
_GRPC_VERDICTS = {5: (Verdict.PROVEN, "TaskNotFound (NOT_FOUND)"),
                  12: (Verdict.DISPROVEN, "UNIMPLEMENTED: no such service")}


def judge_grpc(code: int | None, name: str) -> tuple[Verdict, str]:
    """The verdict of a gRPC probe's final status `code` (named `name`); None: the call returned a task."""
    if code is None:
        return Verdict.UNKNOWN, "answered a task for an id no agent holds"
    return _GRPC_VERDICTS.get(code, (Verdict.UNKNOWN, f"gRPC {name}"))


def conclude(claimed: Interface, probes: list[Probe]) -> Verified:
    """What the probes (the claimed version first, then maybe the other) show of `claimed`."""
    proven = next((p.version for p in probes if p.verdict is Verdict.PROVEN), None)
    return Verified(claimed, proven, tuple(probes))
