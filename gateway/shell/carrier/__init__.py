"""What carries a call from its door to the agent and back: the pipeline (the one boundary, log line and
metrics), pass-through and translation, composed flows, the relay loop, the task index, header rules."""
