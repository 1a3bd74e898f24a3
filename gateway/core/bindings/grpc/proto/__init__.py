"""The two A2A protos (v0.3 `a2a.v1`, v1.0 `lf.a2a.v1`) and the modules protoc generated from them into
the gateway's own descriptor pool (pool.py); regenerate with `python3 dev.py protos`."""
