"""The process's operations: the app as assembled and run, its lifecycle (listeners, reload, drain), the
admin listener, metrics, worker processes, tracing, several routes, the probe command."""
