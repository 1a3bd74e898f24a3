"""The agent card as a translated object: `card` (the card, provider, capabilities, skills), `interfaces`,
`security` (schemes, OAuth flows, requirements, the OAuth split and merge) and `readers`."""

from gateway.core.translate.agent_card.card import TRANSLATORS, read_card, write_v03

__all__ = ["TRANSLATORS", "read_card", "write_v03"]
