"""a2a-gateway: a translating reverse proxy between A2A v0.3 and A2A v1.0."""

__version__ = "0.1.0"
