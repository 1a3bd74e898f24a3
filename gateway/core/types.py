"""The core's vocabulary: JSON aliases, the version, dialect and binding enums, and their members as
plain module constants. No functions live here."""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Any, Final

Json = Any
JsonObj = dict[str, Any]
Headers = Mapping[str, str]


class Version(str, Enum):  # noqa: UP042 - StrEnum would change str()/format() of members (logs, labels)
    V03 = "0.3"
    V10 = "1.0"


class Binding(str, Enum):  # noqa: UP042 - StrEnum would change str()/format() of members (logs, labels)
    JSONRPC = "JSONRPC"
    REST = "HTTP+JSON"
    GRPC = "GRPC"


class Dialect(str, Enum):  # noqa: UP042 - StrEnum would change str()/format() of members (logs, labels)
    """The three JSON dialects of A2A; v1.0 is the hub every translation goes through. Their
    differences, as data, are gateway/core/dialects.py."""

    V03RPC = "v03rpc"   # v0.3 JSON-RPC shapes, also v0.3 SSE results and v0.3 push bodies
    V03REST = "v03rest"  # ProtoJSON of the v0.3 proto, used by the v0.3 HTTP+JSON binding
    V10 = "v10"          # ProtoJSON of the v1.0 proto, every v1.0 binding


# Enum members as module constants, for per-event code: `from gateway.core.types import V10` makes a
# module global, which is cheaper to read than the class attribute `Dialect.V10` (a Python-level lookup).
V03RPC: Final = Dialect.V03RPC
V03REST: Final = Dialect.V03REST
V10: Final = Dialect.V10
JSONRPC: Final = Binding.JSONRPC
REST: Final = Binding.REST
GRPC: Final = Binding.GRPC
