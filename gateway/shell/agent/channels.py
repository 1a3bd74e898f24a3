"""gRPC channels toward agents: one pooled grpc.aio channel per target (plaintext for `host:port`, `grpc://`
and `http://`, TLS for `grpcs://` and `https://`), unary and server-streaming calls with bytes in and out,
deadlines, the agent's metadata and final status read back; TLS as [upstream.tls] says (a TLS failure is the
link's TlsFailed, never retried). It never translates."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

import grpc

from gateway.config.tls import AgentTls
from gateway.core.bindings.grpc import DETAILS_KEY, GrpcStatus
from gateway.core.errors import UpstreamTimeout, UpstreamUnavailable
from gateway.shell.agent.link_failures import classify_grpc
from gateway.shell.agent.stream_link import TlsFailed, TlsHandshakeFailed, TlsVerificationFailed

__all__ = ["Channels", "GrpcReply", "GrpcStream", "target_of"]

Pairs = list[tuple[str, str | bytes]]
_PLAIN = {"": False, "grpc": False, "http": False, "grpcs": True, "https": True}
# statuses that say the call never reached an agent able to answer: the gateway's own upstream faults
_UNREACHABLE = frozenset({grpc.StatusCode.UNAVAILABLE})


def target_of(url: str) -> tuple[str, bool]:
    """An interface URL as the channel target `host:port` and whether it wants TLS. a2a-sdk's cards
    give `host:port` without a scheme (plaintext); a scheme says it (`grpcs://` or `https://`: TLS)."""
    if "://" not in url:
        return url.strip("/"), False
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in _PLAIN or not parts.hostname:
        raise UpstreamUnavailable(f"not a gRPC URL: {url[:200]!r}")
    secure = _PLAIN[scheme]
    port = parts.port or (443 if secure else 80)
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"{host}:{port}", secure


# grpcio says a TLS failure in its UNAVAILABLE status's details: what it says there, and the failure's kind
_TLS_MARKERS: tuple[tuple[str, type[TlsFailed]], ...] = (
    ("CERTIFICATE_VERIFY_FAILED", TlsVerificationFailed), ("Ssl handshake failed", TlsHandshakeFailed),
    ("SSL_ERROR", TlsHandshakeFailed), ("Handshake failed", TlsHandshakeFailed))
_TLS_WORDS: dict[type[TlsFailed], str] = {
    TlsVerificationFailed: "it presented a certificate the gateway does not trust (a private CA is set with "
                           "upstream.tls.ca_file, the name checked with upstream.tls.server_name)",
    TlsHandshakeFailed: "the handshake failed (the agent may want a client certificate: upstream.tls.cert_file "
                        "and key_file)"}


def _pairs(metadata: Any) -> Pairs:
    return [(str(k), v) for k, v in (metadata or ())]


def _status(err: grpc.aio.AioRpcError, url: str) -> GrpcStatus:
    """A failed call's status, or the gateway's own upstream fault when no agent answered it."""
    code = err.code()
    if code in _UNREACHABLE:
        said = err.details() or code.name
        tls = next((kind for marker, kind in _TLS_MARKERS if marker in said), None)
        if tls is not None:
            words = _TLS_WORDS[tls]
            raise tls(f"TLS with the gRPC agent at {url} failed: {words} (grpcio: {said[-300:]})") from None
        if "Socket closed" in said and target_of(url)[1]:   # grpcio's words for a TLS 1.3 refusal too
            said += (" (a TLS agent closes so when it wants a client certificate it trusts: "
                     "upstream.tls.cert_file and key_file)")
        raise UpstreamUnavailable(classify_grpc(said, url).message) from None
    if code is grpc.StatusCode.DEADLINE_EXCEEDED:
        raise UpstreamTimeout("upstream agent timed out") from None
    details = next((v for k, v in _pairs(err.trailing_metadata()) if k == DETAILS_KEY and isinstance(v, bytes)), b"")
    return GrpcStatus(code.value[0], err.details() or "", details)


@dataclass(slots=True)
class GrpcReply:
    """A unary call's outcome: the reply message (none when it failed), the agent's metadata, its status."""

    message: bytes | None
    initial: Pairs = field(default_factory=list)
    trailing: Pairs = field(default_factory=list)
    status: GrpcStatus | None = None  # None: OK


class Channels:
    """The gRPC channels of one upstream agent, by target: opened on first use, kept, closed together."""

    def __init__(self, max_message_bytes: int, tls: AgentTls | None = None) -> None:
        self.options: Sequence[tuple[str, Any]] = (
            ("grpc.max_receive_message_length", max_message_bytes),
            ("grpc.max_send_message_length", max_message_bytes),
            ("grpc.keepalive_time_ms", 60_000),
        )
        self.tls = tls
        self._channels: dict[str, grpc.aio.Channel] = {}
        self._retired: list[grpc.aio.Channel] = []   # TLS channels a reload replaced: closed with the rest

    def channel(self, url: str) -> grpc.aio.Channel:
        found = self._channels.get(url)
        if found is None:
            target, secure = target_of(url)
            found = self._secure(target) if secure else grpc.aio.insecure_channel(target, self.options)
            self._channels[url] = found
        return found

    def _secure(self, target: str) -> grpc.aio.Channel:
        """A TLS channel with [upstream.tls]'s CA certificates, client certificate and name (grpcio's own
        roots and the target's host without it)."""
        tls = self.tls
        if tls is None:
            return grpc.aio.secure_channel(target, grpc.ssl_channel_credentials(), self.options)
        credentials = grpc.ssl_channel_credentials(tls.roots, tls.key, tls.chain)
        options = [*self.options, *((("grpc.ssl_target_name_override", tls.server_name),) if tls.server_name else ())]
        return grpc.aio.secure_channel(target, credentials, options)

    def use_tls(self, tls: AgentTls | None) -> None:
        """New TLS settings (a reload: certificates read again): TLS channels are made anew for the next calls;
        the calls on the old ones finish there."""
        self.tls = tls
        for url in [url for url in self._channels if target_of(url)[1]]:
            self._retired.append(self._channels.pop(url))

    async def close(self) -> None:
        channels, self._channels = [*self._channels.values(), *self._retired], {}
        self._retired = []
        for channel in channels:
            await channel.close()

    async def unary(self, url: str, path: str, request: bytes, metadata: Pairs, *, timeout: float) -> GrpcReply:
        """One unary call within `timeout` seconds (the deadline the agent sees too)."""
        method: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = self.channel(url).unary_unary(path)
        call = method(request, metadata=metadata, timeout=timeout)
        try:
            message: bytes = await call
        except grpc.aio.AioRpcError as err:
            return GrpcReply(None, _pairs(err.initial_metadata()), _pairs(err.trailing_metadata()), _status(err, url))
        return GrpcReply(message, _pairs(await call.initial_metadata()), _pairs(await call.trailing_metadata()))

    def stream(self, url: str, path: str, request: bytes, metadata: Pairs, *, timeout: float | None,
               first_byte: float, idle: float) -> GrpcStream:
        """A server-streaming call (`timeout`: the caller's deadline, None when it has none), its head due
        within `first_byte` seconds and each message within `idle` of the last."""
        method: grpc.aio.UnaryStreamMultiCallable[bytes, bytes] = self.channel(url).unary_stream(path)
        return GrpcStream(method(request, metadata=metadata, timeout=timeout), first_byte, idle, url)


class GrpcStream:
    """One server-streaming call to an agent: its messages as they come, then its status; cancelled when
    the block that holds it ends first (the caller left, or the relay ended it)."""

    def __init__(self, call: grpc.aio.UnaryStreamCall[bytes, bytes], first_byte: float, idle: float,
                 url: str = "") -> None:
        self.call, self.url = call, url
        self.first_byte, self.idle = first_byte, idle   # its deadlines: the head, and between two messages
        self.status: GrpcStatus | None = None  # the failed call's status, once read (None: OK so far)
        self.trailing: Pairs = []
        self.drained = False
        self.events_out = 0  # messages read (shell.process.lifecycle's stream handle counts them)

    def set_exception(self, exc: BaseException) -> None:
        """The drain (shell.process.lifecycle.Wakeable): the call is cancelled, and its messages end cleanly."""
        self.drained = True
        self.call.cancel()

    async def __aenter__(self) -> GrpcStream:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        if not self.call.done():
            self.call.cancel()

    async def head(self) -> Pairs:
        """The agent's initial metadata (sent before its first message, or with its failure)."""
        try:
            async with asyncio.timeout(self.first_byte):
                return _pairs(await self.call.initial_metadata())
        except TimeoutError:
            raise UpstreamTimeout("upstream agent timed out") from None

    async def messages(self) -> AsyncIterator[bytes]:
        """Each message; a failure ends the iteration with `status` set; UpstreamTimeout after `idle`
        seconds without one."""
        idle = self.idle
        while True:
            try:
                message = await asyncio.wait_for(self.call.read(), idle)
            except TimeoutError:
                raise UpstreamTimeout(f"upstream stream idle for {idle:g} s") from None
            except (grpc.aio.AioRpcError, asyncio.CancelledError) as err:
                if self.drained:
                    return
                if isinstance(err, asyncio.CancelledError):
                    raise
                self.trailing = _pairs(err.trailing_metadata())
                self.status = _status(err, self.url)
                return
            if message is grpc.aio.EOF:
                self.trailing = _pairs(await self.call.trailing_metadata())
                return
            assert isinstance(message, bytes)
            self.events_out += 1
            yield message
