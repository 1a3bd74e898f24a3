"""The core's vocabulary: JSON aliases and the version, dialect and binding enums.
No functions live here."""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Any

Json = Any
JsonObj = dict[str, Any]
Headers = Mapping[str, str]


class Version(str, Enum):  # noqa: UP042 - StrEnum would change str()/format() of members (logs, labels)
    V03 = "0.3"
    V10 = "1.0"


class Binding(str, Enum):  # noqa: UP042 - StrEnum would change str()/format() of members (logs, labels)
    JSONRPC = "JSONRPC"
    REST = "HTTP+JSON"


class Dialect(str, Enum):  # noqa: UP042 - StrEnum would change str()/format() of members (logs, labels)
    """The three JSON dialects of A2A (wire-mapping.md §0): v1.0 is the hub."""

    V03RPC = "v03rpc"   # v0.3 JSON-RPC shapes, also v0.3 SSE results and v0.3 push bodies
    V03REST = "v03rest"  # ProtoJSON of the v0.3 proto, used by the v0.3 HTTP+JSON binding
    V10 = "v10"          # ProtoJSON of the v1.0 proto, every v1.0 binding
