"""The SSRF guard for client webhook URLs: hosts that are or resolve to non-public addresses (any IP
spelling) are refused unless an allowed network admits them, a name that does not resolve yet is let
through with a note (delivery judges it again); a guarded resolver closes DNS rebinding."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Awaitable, Callable, Sequence
from urllib.parse import urlsplit

from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.resolver import ThreadedResolver

from gateway.core.notes import Note
from gateway.core.push import PushUrlRejected

__all__ = [
    "UNRESOLVED",
    "BlockedAddress",
    "GuardedResolver",
    "Network",
    "blocked_reason",
    "check_url",
    "is_blocked_address",
    "parse_ip_literal",
]

IP = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Resolve = Callable[[str, int], Awaitable[list[str]]]

DNS_TIMEOUT_S = 5.0
UNRESOLVED = "push_url_unresolved"  # the note of a webhook whose host did not resolve at registration
METADATA = frozenset({ipaddress.ip_address("169.254.169.254"), ipaddress.ip_address("fd00:ec2::254"),
                      ipaddress.ip_address("100.100.100.200")})  # AWS/GCP/Azure, AWS IPv6, Alibaba
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_SIX_TO_FOUR = ipaddress.ip_network("2002::/16")


class BlockedAddress(OSError):
    """Raised inside the sender's connector: the name resolved to an address the policy refuses."""


def parse_ip_literal(host: str) -> IP | None:
    """`host` as an IP address in any spelling getaddrinfo accepts (inet_aton's decimal, octal, hex and
    short IPv4 forms; IPv6 with brackets or a zone), else None for a name."""
    text = host.strip().rstrip(".").lower()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    if ":" in text:
        try:
            return ipaddress.IPv6Address(text.partition("%")[0])
        except ValueError:
            return None
    parts = text.split(".")
    if not 1 <= len(parts) <= 4:
        return None
    numbers: list[int] = []
    for part in parts:
        try:
            if part[:2] in ("0x", "0X"):
                numbers.append(int(part[2:] or "0", 16))
            elif len(part) > 1 and part.startswith("0"):
                numbers.append(int(part, 8))
            else:
                numbers.append(int(part, 10) if part.isascii() and part.isdigit() else -1)
        except ValueError:
            return None
    if any(n < 0 for n in numbers):
        return None
    *head, last = numbers
    if any(n > 255 for n in head) or last >= 256 ** (4 - len(head)):
        return None
    value = 0
    for n in head:
        value = value << 8 | n
    return ipaddress.IPv4Address(value << 8 * (4 - len(head)) | last)


def _embedded_v4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    if ip in _SIX_TO_FOUR:
        return ip.sixtofour
    return None


def blocked_reason(ip: IP) -> str | None:
    """Why the policy refuses `ip` (a short category), or None for a public unicast address."""
    if isinstance(ip, ipaddress.IPv6Address):
        inner = _embedded_v4(ip)
        if inner is not None:
            return blocked_reason(inner)
        if ip.is_site_local:
            return "site-local"
    checks = (
        (ip in METADATA, "cloud metadata"),
        (ip.is_unspecified, "unspecified"),
        (ip.is_loopback, "loopback"),
        (ip.is_link_local, "link-local"),
        (ip.is_multicast, "multicast"),
        (isinstance(ip, ipaddress.IPv6Address) and ip in ipaddress.ip_network("fc00::/7"), "unique-local"),
        (ip.is_reserved, "reserved"),
        (ip.is_private, "private"),
        (not ip.is_global, "non-public"),
    )
    return next((reason for hit, reason in checks if hit), None)


def is_blocked_address(ip: IP | str) -> bool:
    """Whether the policy refuses `ip` (an address object or any literal spelling) by itself."""
    address = parse_ip_literal(ip) if isinstance(ip, str) else ip
    if address is None:
        raise ValueError(f"{ip!r} is not an IP address")
    return blocked_reason(address) is not None


def _allowed(ip: IP, allow: Sequence[Network]) -> bool:
    candidates: list[IP] = [ip]
    if isinstance(ip, ipaddress.IPv6Address) and (inner := _embedded_v4(ip)) is not None:
        candidates.append(inner)
    return any(c.version == net.version and c in net for c in candidates for net in allow)


def refusal(ip: IP, allow: Sequence[Network]) -> str | None:
    """The category that refuses `ip` under this allow-list, or None when it may be called."""
    reason = blocked_reason(ip)
    return None if reason is None or _allowed(ip, allow) else reason


async def _getaddrinfo(host: str, port: int) -> list[str]:
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


async def check_url(url: str, allow: Sequence[Network], *, resolve: Resolve | None = None,
                    resolve_names: bool = True, at: str = "$") -> Note | None:
    """Refuse (PushUrlRejected, -32602) a webhook URL that is certainly blocked: not http(s), or a host
    that is, or resolves to (any of its addresses), an address the policy blocks and no `allow` network
    admits. A name that does not resolve now (no DNS, an outage, a name not yet published) is accepted
    with a note at `at`: every delivery resolves it again through the GuardedResolver and refuses it
    then if it is blocked. With `resolve_names` false only literals are judged."""
    try:
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise PushUrlRejected("push notification URL not allowed: not a valid URL") from None
    host = parts.hostname
    if parts.scheme not in ("http", "https") or not host:
        raise PushUrlRejected("push notification URL not allowed: it must be an absolute http(s) URL")
    literal = parse_ip_literal(host)
    if literal is not None:
        addresses: list[IP] = [literal]
    elif not resolve_names:
        return None
    else:
        try:
            async with asyncio.timeout(DNS_TIMEOUT_S):
                found = await (resolve or _getaddrinfo)(host, port)
        except (OSError, TimeoutError):
            found = []
        addresses = [a for a in (parse_ip_literal(f) for f in found) if a is not None]
        if not addresses:
            return Note(UNRESOLVED, at, f"{host} does not resolve now; it is checked again before each delivery")
    for address in addresses:
        reason = refusal(address, allow)
        if reason is not None:
            what = "the host is" if literal is not None else f"{host} resolves to"
            raise PushUrlRejected(f"push notification URL not allowed: {what} a {reason} address")
    return None


class GuardedResolver(AbstractResolver):
    """aiohttp resolver that refuses names resolving to blocked addresses, so the addresses checked are
    the ones connected to (no DNS-rebinding window between check and connect)."""

    def __init__(self, allow: Sequence[Network], inner: AbstractResolver | None = None) -> None:
        self._allow = tuple(allow)
        self._inner = inner or ThreadedResolver()  # needs a running loop: build it in the sender's start()

    async def resolve(self, host: str, port: int = 0,
                      family: socket.AddressFamily = socket.AF_INET) -> list[ResolveResult]:
        results = await self._inner.resolve(host, port, family)
        for result in results:
            address = parse_ip_literal(str(result["host"]))
            reason = "unparsable" if address is None else refusal(address, self._allow)
            if reason is not None:
                raise BlockedAddress(f"{host} resolves to a {reason} address")
        return results

    async def close(self) -> None:
        await self._inner.close()
