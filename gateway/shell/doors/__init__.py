"""The gateway's doors, one module each: JSON-RPC (jsonrpc.py), HTTP+JSON (rest.py), the agent card
(card.py) and AG-UI (agui.py). A door reads its request into a call and hands it to shell.carrier.pipeline."""
