"""The agent side: one port toward the agent over any binding (its exchanges, its calls, their deadlines),
the HTTP/1.1 link and the gRPC channels under it, the agent's card and version as found."""
