"""The agent-card door over loopback: one variant per A2A-Version, each with its strong ETag, the card's
Last-Modified, Cache-Control and Vary, and conditional GETs (If-None-Match, If-Modified-Since) answered 304."""

from __future__ import annotations

from email.utils import formatdate, parsedate_to_datetime

CARD = "/.well-known/agent-card.json"


async def test_card_validators_per_variant(fake_agent_factory, gateway_factory) -> None:
    fake = await fake_agent_factory("0.3")
    client = await gateway_factory(fake.url)
    v03 = await client.get(CARD)
    v10 = await client.get(CARD, headers={"A2A-Version": "1.0"})
    for resp in (v03, v10):
        assert resp.status == 200
        assert resp.headers["Cache-Control"] == "public, max-age=60" and resp.headers["Vary"] == "A2A-Version"
        assert resp.headers["ETag"].startswith('"') and not resp.headers["ETag"].startswith("W/")
        parsedate_to_datetime(resp.headers["Last-Modified"])
    assert v03.headers["ETag"] != v10.headers["ETag"]   # each variant its own tag
    again = await client.get(CARD, headers={"A2A-Version": "1.0"})
    assert again.headers["ETag"] == v10.headers["ETag"] and await again.read() == await v10.read()


async def test_conditional_gets(fake_agent_factory, gateway_factory) -> None:
    fake = await fake_agent_factory("1.0")
    client = await gateway_factory(fake.url)
    first = await client.get(CARD, headers={"A2A-Version": "1.0"})
    etag, modified = first.headers["ETag"], first.headers["Last-Modified"]
    for headers in ({"If-None-Match": etag}, {"If-None-Match": f'"other", W/{etag}'}, {"If-None-Match": "*"},
                    {"If-Modified-Since": modified}):
        resp = await client.get(CARD, headers={"A2A-Version": "1.0", **headers})
        assert resp.status == 304, headers
        assert await resp.read() == b"" and resp.headers["ETag"] == etag and resp.headers["Vary"] == "A2A-Version"
    # the other variant's tag, an older date, or a tag that does not match beside a matching date: 200
    other = (await client.get(CARD)).headers["ETag"]
    for headers in ({"If-None-Match": other}, {"If-Modified-Since": formatdate(0, usegmt=True)},
                    {"If-None-Match": '"nope"', "If-Modified-Since": modified}, {"If-Modified-Since": "garbage"}):
        resp = await client.get(CARD, headers={"A2A-Version": "1.0", **headers})
        assert resp.status == 200 and (await resp.json())["name"], headers
