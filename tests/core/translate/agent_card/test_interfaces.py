"""The card's interfaces beyond the goldens: the other version's remnants, protocol versions on every
interface, legacy interfaces reordered or dropped, the default transport."""

from __future__ import annotations

import pytest

from tests.core.translate.agent_card.cards import V03REST, V03RPC, V10, golden, run


def test_interface_remnants_of_the_other_version_are_noted() -> None:
    card = golden("minimal.v10")
    card["protocolVersion"] = "0.3.0"  # a v0.3 member that describes no interface on its own
    out, notes = run(card, V10, V03RPC)
    assert out == golden("minimal.v03rpc")
    assert notes == [("union_member_ignored", "$.protocolVersion")]


def test_v03_card_without_url_takes_the_v10_interfaces() -> None:
    card = golden("full.v03rpc")
    del card["url"]
    card["supportedInterfaces"] = golden("full.v10")["supportedInterfaces"]
    out, notes = run(card, V03RPC, V10)
    assert out == golden("full.v10")
    assert notes == [("union_member_ignored", "$.protocolVersion"),
                     ("union_member_ignored", "$.preferredTransport"),
                     ("union_member_ignored", "$.additionalInterfaces"),
                     ("union_member_used", "$.supportedInterfaces")]


@pytest.mark.parametrize(("version", "interfaces", "note"), [
    ("0.3.2", "0.3", ("protocol_version_normalized", "$.protocolVersion")),
    ("0.2.6", "0.2", ("protocol_version_normalized", "$.protocolVersion")),
    (None, "0.3", ("protocol_version_defaulted", "$.protocolVersion")),
    ("", "0.3", ("protocol_version_defaulted", "$.protocolVersion")),
])
def test_card_protocol_version_goes_to_every_interface(version: str | None, interfaces: str,
                                                       note: tuple[str, str]) -> None:
    card = golden("full.v03rpc")
    if version is None:
        del card["protocolVersion"]
    else:
        card["protocolVersion"] = version
    out, notes = run(card, V03RPC, V10)
    assert [i["protocolVersion"] for i in out["supportedInterfaces"]] == [interfaces] * 3
    assert notes == [note]


def test_legacy_interface_after_an_older_one_is_reordered() -> None:
    card = golden("minimal.v10")
    card["supportedInterfaces"] = [
        {"url": "https://a.example.com/old", "protocolBinding": "JSONRPC", "protocolVersion": "0.2"},
        {"url": "https://a.example.com/new", "protocolBinding": "HTTP+JSON", "protocolVersion": "0.3"},
        {"url": "https://a.example.com/odd", "protocolBinding": "GRPC", "protocolVersion": "v-next"},
    ]
    out, notes = run(card, V10, V03RPC)
    assert (out["url"], out["preferredTransport"]) == ("https://a.example.com/new", "HTTP+JSON")
    assert out["additionalInterfaces"] == [{"url": "https://a.example.com/old", "transport": "JSONRPC"}]
    assert notes == [("protocol_version_normalized", "$.supportedInterfaces[0].protocolVersion"),
                     ("interface_reordered", "$.supportedInterfaces[1]"),
                     ("interface_dropped", "$.supportedInterfaces[2]")]


def test_empty_preferred_transport_is_the_default() -> None:
    card = golden("minimal.v03rest")
    card["preferredTransport"] = ""
    out, notes = run(card, V03REST, V10)
    assert out == golden("minimal.v10")
    assert notes == [("preferred_transport_defaulted", "$.preferredTransport")]
