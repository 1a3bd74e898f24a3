"""Fake upstream agents for the shell tests: scripted JSON/SSE replies and connection faults
(see tests/fakes/agents.py for the scripting API and the `start_fake` helper)."""
