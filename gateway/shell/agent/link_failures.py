"""The ways a call to the agent fails, as one table: each failure class with its retry rule, whether it shows
the agent down (gateway.shell.agent.health), its metric label and its message in plain words naming the agent."""

from __future__ import annotations

import errno
import socket
import ssl
from dataclasses import dataclass
from enum import Enum
from urllib.parse import urlsplit

import aiohttp

from gateway.shell.agent.stream_link import ReplyTooLarge, TlsHandshakeFailed, TlsVerificationFailed

__all__ = ["CLASSES", "Failure", "FailureClass", "Retry", "classify", "classify_grpc", "origin", "stream_broke",
           "timed_out"]


class Retry(Enum):
    """When a call that failed so may be sent again (within the retry budget)."""

    NEVER = "never"     # the agent may have acted on it, or sending again cannot help
    UNSENT = "unsent"   # any call: not a byte of it reached the agent
    READ = "read"       # a read-only call only (reading again changes nothing)


@dataclass(frozen=True, slots=True)
class FailureClass:
    name: str     # the metric label (a2a_gateway_upstream_failures_total{class})
    kind: str     # the coarse a2a_gateway_upstream_errors_total{kind}
    retry: Retry
    down: bool    # it shows the agent cannot be reached at all: callers are answered at once until it is back
    words: str    # what happened, in plain words: {address} host:port, {host}, {detail} the system's own words
    verb: str = "unreachable"   # "agent <url> <verb>: <words>"


CLASSES: dict[str, FailureClass] = {c.name: c for c in (
    FailureClass("refused", "connect", Retry.UNSENT, True,
                 "the connection was refused (nothing listens on {address})"),
    FailureClass("unreachable", "connect", Retry.UNSENT, True, "no route to {address} ({detail})"),
    FailureClass("name_not_resolved", "connect", Retry.UNSENT, True,
                 "the name {host} could not be resolved ({detail})"),
    FailureClass("tls_verification", "connect", Retry.NEVER, True,
                 "its TLS certificate could not be verified ({detail})"),
    FailureClass("tls_handshake", "connect", Retry.NEVER, True, "the TLS handshake failed ({detail})"),
    FailureClass("connect_deadline", "connect", Retry.NEVER, True,
                 "no connection to {address} within upstream.timeout.connect"),
    FailureClass("head_deadline", "timeout", Retry.NEVER, False,
                 "no reply within upstream.timeout.first_byte", "timed out"),
    FailureClass("idle_deadline", "timeout", Retry.NEVER, False,
                 "the stream was silent longer than upstream.timeout.idle_stream", "timed out"),
    FailureClass("total_deadline", "timeout", Retry.NEVER, False,
                 "the call took longer than upstream.timeout.total_unary", "timed out"),
    FailureClass("dead_connection", "connect", Retry.UNSENT, False,
                 "it had closed the idle connection the call was to be sent on", "failed"),
    FailureClass("reset", "bad_reply", Retry.UNSENT, False,
                 "it reset the connection before reading the call ({detail})", "failed"),
    FailureClass("closed_early", "bad_reply", Retry.READ, False,
                 "it closed the connection before its reply was complete", "failed"),
    FailureClass("malformed_reply", "bad_reply", Retry.NEVER, False, "its reply was not valid HTTP ({detail})",
                 "failed"),
    FailureClass("oversized_reply", "bad_reply", Retry.NEVER, False, "its reply was too large ({detail})",
                 "failed"),
)}


@dataclass(frozen=True, slots=True)
class Failure:
    """One failed call: its class, the agent's URL and the system's own words on the cause (no type names)."""

    cls: FailureClass
    url: str
    detail: str = ""

    @property
    def cause(self) -> str:
        """What happened, in plain words: 'the connection was refused (nothing listens on host:port)'."""
        parts = urlsplit(self.url)
        host = parts.hostname or parts.netloc or "the agent"
        address = f"{host}:{parts.port or (443 if parts.scheme == 'https' else 80)}" if self.url else host
        return self.cls.words.format(address=address, host=host, detail=self.detail or "no detail")

    @property
    def message(self) -> str:
        """'agent http://host:port unreachable: the connection was refused (…)': the caller's error message."""
        return f"agent {origin(self.url)} {self.cls.verb}: {self.cause}"

    def retried(self, read_only: bool) -> bool:
        """Whether the call may be sent again by its class's rule."""
        rule = self.cls.retry
        return rule is Retry.UNSENT or (rule is Retry.READ and read_only)


def origin(url: str) -> str:
    """scheme://host:port of `url`: the agent's address, as its health is kept (gateway.shell.agent.health)."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}"


_RESETS = frozenset({errno.ECONNRESET, errno.EPIPE})


def _words(exc: BaseException) -> str:
    """The system's own account of `exc`, without a library's type name or the address it already says."""
    if isinstance(exc, ssl.SSLCertVerificationError) and exc.verify_message:
        return str(exc.verify_message)
    if isinstance(exc, ssl.SSLError):
        return str(getattr(exc, "reason", None) or exc.strerror or exc)
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or "no detail"


def classify(exc: BaseException, url: str) -> Failure:
    """The failure of a call to `url` that raised `exc` (aiohttp's types, as shell.agent.stream_link raises them;
    a TimeoutError is the head's deadline here: the caller that knows better says so with `timed_out`)."""
    if isinstance(exc, TlsVerificationFailed | TlsHandshakeFailed | ReplyTooLarge):   # the link's own words
        name = "tls_verification" if isinstance(exc, TlsVerificationFailed) else \
            "tls_handshake" if isinstance(exc, TlsHandshakeFailed) else "oversized_reply"
        return Failure(CLASSES[name], url, _detail(exc))
    if isinstance(exc, aiohttp.ClientConnectorError):
        cause: BaseException = exc.os_error
        if isinstance(cause, ssl.SSLCertVerificationError):
            return Failure(CLASSES["tls_verification"], url, _words(cause))
        if isinstance(cause, ssl.SSLError):
            return Failure(CLASSES["tls_handshake"], url, _words(cause))
        if isinstance(cause, socket.gaierror):
            return Failure(CLASSES["name_not_resolved"], url, _words(cause))
        if isinstance(cause, TimeoutError):
            return Failure(CLASSES["connect_deadline"], url)
        if isinstance(cause, ConnectionRefusedError):
            return Failure(CLASSES["refused"], url)
        if isinstance(cause, ConnectionResetError | ConnectionAbortedError):   # a TLS handshake the agent cut
            return Failure(CLASSES["tls_handshake"], url, _words(cause))
        return Failure(CLASSES["unreachable"], url, _words(cause))
    if isinstance(exc, TimeoutError):
        return Failure(CLASSES["head_deadline"], url)
    if isinstance(exc, aiohttp.ClientConnectionResetError) or isinstance(exc.__cause__,
                                                                        aiohttp.ClientConnectionResetError):
        return Failure(CLASSES["dead_connection"], url)
    if isinstance(exc, aiohttp.ClientOSError) and exc.errno in _RESETS:
        return Failure(CLASSES["reset"], url, _words(exc))
    if isinstance(exc, aiohttp.ServerDisconnectedError | aiohttp.ClientOSError):
        return Failure(CLASSES["closed_early"], url)
    text = str(exc)
    if text.startswith("the agent's reply was cut"):   # shell.agent.stream_link's words
        return Failure(CLASSES["closed_early"], url)
    if "too large" in text or "larger than" in text or "longer than" in text:
        return Failure(CLASSES["oversized_reply"], url, text)
    return Failure(CLASSES["malformed_reply"], url, text.removeprefix("malformed reply from the agent: "))


def timed_out(name: str, url: str) -> Failure:
    """A deadline's failure: `name` is head_deadline, idle_deadline or total_deadline."""
    return Failure(CLASSES[name], url)



def stream_broke(exc: BaseException) -> str:
    """The words for a stream the agent broke after its head (`exc` as its reads raise it)."""
    return f"the agent's stream broke: {classify(exc, '').cause}"


# gRPC's own words in the details of a call that reached no agent (status UNAVAILABLE), by the class they show
_GRPC_CAUSES = (("connection refused", "refused"), ("dns resolution failed", "name_not_resolved"),
                ("certificate_verify_failed", "tls_verification"), ("certificate verify failed", "tls_verification"),
                ("handshake", "tls_handshake"), ("ssl", "tls_handshake"), ("deadline", "connect_deadline"))


def classify_grpc(details: str, url: str) -> Failure:
    """The failure of a gRPC call to `url` (an interface URL, `host:port` or with a scheme) that reached no
    agent, from grpcio's details ("failed to connect to all addresses; last error: …: Connection refused")."""
    url = url if "://" in url else f"grpc://{url}"
    said = details.lower()
    name = next((name for words, name in _GRPC_CAUSES if words in said), "unreachable")
    return Failure(CLASSES[name], url, details.rpartition(": ")[2].strip() or "no detail")


def _detail(exc: BaseException) -> str:
    """What the link said of a failure it words itself (a GatewayError's message, else its text)."""
    return str(getattr(exc, "message", "") or exc)
