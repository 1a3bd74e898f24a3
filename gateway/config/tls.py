"""Owns the TLS toward agents that [upstream.tls] describes: its files read into one ssl.SSLContext for the
HTTP link and the PEM bytes gRPC channels take, or the reason a file does not load (a configuration problem)."""

from __future__ import annotations

import os
import ssl
from dataclasses import dataclass
from pathlib import Path

from gateway.config.settings import TlsSettings

__all__ = ["AgentTls", "TlsFileError", "agent_tls"]


class TlsFileError(ValueError):
    """A file of [upstream.tls] is missing or does not load: `key` is the key that names it."""

    def __init__(self, key: str, reason: str) -> None:
        super().__init__(reason)
        self.key = key


@dataclass(frozen=True, slots=True, eq=False)
class AgentTls:
    """The TLS toward one agent, read once (and again on each reload): the context the HTTP link connects
    with, the name it sends and checks (None: the URL's host), and for gRPC the CA certificates (None:
    grpcio's own roots) and the client certificate chain and key (None: no client certificate)."""

    context: ssl.SSLContext
    server_name: str | None
    insecure: bool
    roots: bytes | None
    chain: bytes | None
    key: bytes | None


def agent_tls(settings: TlsSettings) -> AgentTls:
    """The TLS of `settings`, its files read now; TlsFileError naming the key of a file that does not load.
    Without ca_file the system's CA store is used, as Python finds it (SSL_CERT_FILE when set)."""
    if settings.key_file and not settings.cert_file:
        raise TlsFileError("key_file", "needs cert_file: a key without its certificate")
    roots = _read("ca_file", settings.ca_file)
    if roots is not None:
        if b"-----BEGIN CERTIFICATE-----" not in roots:
            raise TlsFileError("ca_file", f"{settings.ca_file} holds no PEM certificate")
        try:
            context = ssl.create_default_context(cadata=roots.decode("ascii", "replace"))
        except ssl.SSLError as exc:
            raise TlsFileError("ca_file", f"{settings.ca_file} does not load: {_reason(exc)}") from None
    else:
        context = ssl.create_default_context()
        named = os.environ.get(ssl.get_default_verify_paths().openssl_cafile_env)   # SSL_CERT_FILE
        if named and os.path.isfile(named):
            roots = Path(named).read_bytes()   # for gRPC, whose own roots ignore SSL_CERT_FILE
    chain = _read("cert_file", settings.cert_file)
    key = _read("key_file", settings.key_file)
    if chain is not None:
        try:
            context.load_cert_chain(settings.cert_file, settings.key_file or None)
        except (ssl.SSLError, ValueError) as exc:
            raise TlsFileError("key_file" if settings.key_file else "cert_file",
                               f"the client certificate and key do not load together: {_reason(exc)}") from None
        if key is None:
            key = chain   # the key in the certificate's file: grpcio finds it among the PEM blocks
    if settings.insecure:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    return AgentTls(context, settings.server_name or None, settings.insecure, roots, chain, key)


def _read(key: str, path: str) -> bytes | None:
    if not path:
        return None
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise TlsFileError(key, f"cannot read {path}: {exc.strerror or exc}") from None


def _reason(exc: Exception) -> str:
    return getattr(exc, "reason", None) or str(exc)

