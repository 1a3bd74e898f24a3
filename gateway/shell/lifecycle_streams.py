"""Owns one open stream as the drain sees it: the relay loop's handle (stop after the last complete event,
wake a loop waiting on the upstream, count relayed events) and the Drained signal that wakes it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

import aiohttp

if TYPE_CHECKING:
    from gateway.shell.lifecycle import Lifecycle

__all__ = ["Drained", "Stoppable", "StreamHandle"]


class Drained(Exception):
    """Set on a stream's upstream reader to wake its relay loop: the gateway is draining."""


class Stoppable(Protocol):
    """What a stream handle needs of the relay's translator (see shell.relay.Relay)."""

    @property
    def events_out(self) -> int: ...


class StreamHandle:
    """One open stream, registered by the relay loop while it runs."""

    __slots__ = ("_counted", "_lifecycle", "_reader", "mode", "relay", "stopping")

    def __init__(self, lifecycle: Lifecycle, reader: aiohttp.StreamReader, relay: Stoppable,
                 mode: str) -> None:
        self._lifecycle = lifecycle
        self._reader = reader
        self.relay = relay
        self.mode = mode
        self.stopping = False
        self._counted = 0

    @property
    def at_boundary(self) -> bool:
        """Everything written so far ends with a complete event (a translator only writes whole ones)."""
        return bool(getattr(self.relay, "at_boundary", True))

    def stop(self) -> None:
        """End this stream after its last complete event; wake the loop if it waits for the upstream."""
        if self.stopping:
            return
        self.stopping = True
        if hasattr(self.relay, "stopping"):
            self.relay.stopping = True  # a pass-through cuts its next chunk at an event boundary
        if self.at_boundary:
            self._reader.set_exception(Drained())

    def sync(self) -> None:
        """Count the events written since the last call."""
        n = self.relay.events_out - self._counted
        if n > 0:
            self._counted += n
            self._lifecycle.metrics.events_relayed(n, self.mode)

    def upstream_error(self, kind: str) -> None:
        self._lifecycle.metrics.upstream_error(kind)

    def close(self) -> None:
        self.sync()
        self._lifecycle._streams.discard(self)
        self._lifecycle.metrics.open_streams.dec()
