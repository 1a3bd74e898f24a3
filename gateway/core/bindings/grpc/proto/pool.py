"""The gateway's own protobuf descriptor pool, which the generated a2a_v03_pb2 / a2a_v10_pb2 modules fill:
the A2A packages (`a2a.v1`, `lf.a2a.v1`) live here, never in protobuf's default pool, where a2a-sdk
registers its own copies of the same names; both can be imported in one process. Holds no A2A type itself."""

from __future__ import annotations

import google.api.annotations_pb2
import google.api.client_pb2
import google.api.field_behavior_pb2
from google.protobuf import descriptor_pool, empty_pb2, struct_pb2, timestamp_pb2
from google.protobuf.descriptor import FileDescriptor

# The files the two protos import (google.api options, well-known types) and, through them, theirs.
_IMPORTS = (google.api.annotations_pb2, google.api.client_pb2, google.api.field_behavior_pb2, empty_pb2, struct_pb2,
            timestamp_pb2)

POOL = descriptor_pool.DescriptorPool()


def _add(file: FileDescriptor, added: set[str]) -> None:
    """Copy `file` from the pool it was loaded into, after its dependencies (a pool needs them first)."""
    if file.name in added:
        return
    for dependency in file.dependencies:
        _add(dependency, added)
    POOL.AddSerializedFile(file.serialized_pb)
    added.add(file.name)


def _fill() -> None:
    added: set[str] = set()
    for module in _IMPORTS:
        _add(module.DESCRIPTOR, added)


_fill()
