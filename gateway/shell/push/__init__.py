"""The push relay's shell half: the webhook door and the background relay of each notification (relay.py),
outbound deliveries to client webhooks (sender.py) and the SSRF policy they pass (ssrf.py)."""
