"""The AG-UI front door's pure half: RunAgentInput in, one A2A call out, A2A items in, AG-UI events out,
with A2UI surfaces as activity snapshots. Sans-IO; the shell's doors/agui.py does the awaiting."""

from gateway.core.agui.a2ui import PROFILES, RENDERED

# What configuration may name: every A2UI version the front door speaks, and the ones it offers by default
# (what the renderers people run draw, best first).
A2UI_VERSIONS: tuple[str, ...] = tuple(PROFILES)
A2UI_DEFAULT_VERSIONS: tuple[str, ...] = RENDERED

__all__ = ["A2UI_DEFAULT_VERSIONS", "A2UI_VERSIONS"]
