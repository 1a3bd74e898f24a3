"""Wire envelopes per binding (JSON-RPC 2.0 here, HTTP+JSON routes in `rest`). Bindings frame and
route; they never look inside params or results (that is `core.translate`'s job)."""
