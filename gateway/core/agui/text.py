"""Agent text as AG-UI text messages: at most one open at a time, cumulative re-sends of one A2A message
turned into deltas, non-prefix rewrites and reopened sources as `<id>#n`, never an empty delta."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import gateway.core.agui.events as ev
from gateway.core.types import JsonObj

Mode = Literal["cumulative", "append", "new"]
# cumulative: the source's whole text so far (status messages, replays); append: a chunk to add
# (artifact `append: true`); new: a fresh text for the source (artifact `append: false`)


@dataclass(slots=True)
class _Source:
    message_id: str   # the AG-UI id currently used for this source
    text: str         # everything sent for the source so far
    count: int        # how many AG-UI messages the source has opened


class Texts:
    __slots__ = ("_open", "_sources")

    def __init__(self) -> None:
        self._open: str | None = None
        self._sources: dict[str, _Source] = {}

    @property
    def open_id(self) -> str | None:
        return self._open

    def say(self, source: str, text: str, mode: Mode = "cumulative") -> list[JsonObj]:
        """Events that bring the client's copy of `source` up to `text`."""
        st = self._sources.get(source)
        is_open = st is not None and st.message_id == self._open
        if st is not None and mode == "cumulative":
            if text == st.text:
                return []
            if is_open and text.startswith(st.text):
                delta, st.text = text[len(st.text):], text
                return [ev.text_content(st.message_id, delta)]
        if st is not None and mode == "append" and is_open:
            if not text:
                return []
            st.text += text
            return [ev.text_content(st.message_id, text)]
        body, total = text, text
        if st is not None and mode == "append":
            total = st.text + text
        elif st is not None and mode == "cumulative" and text.startswith(st.text):
            body = text[len(st.text):]
        if not body.strip():
            return []
        out = self.close()
        count = st.count + 1 if st is not None else 1
        message_id = source if count == 1 else f"{source}#{count}"
        self._sources[source] = _Source(message_id, total, count)
        self._open = message_id
        return [*out, ev.text_start(message_id), ev.text_content(message_id, body)]

    def end(self, source: str) -> list[JsonObj]:
        """Close `source` if it is the open message (an artifact's `lastChunk`)."""
        st = self._sources.get(source)
        return self.close() if st is not None and st.message_id == self._open else []

    def close(self) -> list[JsonObj]:
        if self._open is None:
            return []
        out = [ev.text_end(self._open)]
        self._open = None
        return out
