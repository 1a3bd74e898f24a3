"""Owns the real a2a-sdk card-signature check, either line (run by the v0.3 or the v1.0 peer venv's python):
fetch a card with the SDK's card resolver and verify it with the SDK's own verifier (a2a.utils.signing), the key
found through the signature's `jku` JWKS; or, with --canonical (a2a-sdk 0.3), print that SDK's canonical form of
a card file."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

import httpx
from a2a.client.card_resolver import A2ACardResolver
from a2a.utils.signing import SignatureVerificationError, create_signature_verifier
from jwt import PyJWKSet


def key_provider(base_url: str) -> Any:
    """The key of `kid` from the JWKS at `jku`, which must be on the host the card came from."""

    def provide(kid: str | None, jku: str | None) -> Any:
        if not jku or not jku.startswith(base_url):
            raise SignatureVerificationError(f"jku {jku!r} is not on {base_url}")
        jwks = PyJWKSet.from_dict(httpx.get(jku, timeout=5).json())
        return next(k for k in jwks.keys if k.key_id == kid)

    return provide


async def run(url: str, version: str) -> dict[str, Any]:
    async with httpx.AsyncClient(timeout=10, headers={"A2A-Version": version} if version else {}) as http:
        resolver = A2ACardResolver(http, url)
        verifier = create_signature_verifier(key_provider(url), ["ES256", "ES384", "RS256", "EdDSA"])
        try:
            card = await resolver.get_agent_card(signature_verifier=verifier)
        except Exception as exc:  # the verdict is the output
            cause = exc.__cause__ or exc
            return {"ok": False, "error": f"{type(cause).__name__}: {cause}"}
        return {"ok": True, "name": card.name, "signatures": len(card.signatures)}


def canonical(path: str) -> str:
    """a2a-sdk 0.3's canonical form of the v0.3 card in `path`, as its signer and verifier make it."""
    from a2a.types import AgentCard
    from a2a.utils.helpers import canonicalize_agent_card

    with open(path, encoding="utf-8") as f:
        return canonicalize_agent_card(AgentCard.model_validate(json.load(f)))


def main() -> int:
    parser = argparse.ArgumentParser(description="verify a card's signature with the installed a2a-sdk")
    parser.add_argument("--url", help="the base URL serving /.well-known/agent-card.json")
    parser.add_argument("--version", default="1.0", help="the A2A-Version header sent ('' for none)")
    parser.add_argument("--canonical", help="print a2a-sdk 0.3's canonical form of this card file instead")
    args = parser.parse_args()
    if args.canonical:
        print(canonical(args.canonical), flush=True)
        return 0
    print(json.dumps(asyncio.run(run(args.url, args.version))), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
