"""The AG-UI front door's pure half: RunAgentInput in, one A2A call out, A2A items in, AG-UI events out,
with A2UI surfaces as activity snapshots. Sans-IO; the shell's doors/agui.py does the awaiting."""
