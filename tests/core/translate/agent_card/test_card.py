"""Agent card translation beyond the goldens: inputs the oracle cannot hold (JSON-RPC-shaped cards on the
v0.3 REST path, union v1.0 cards, unknown members), errors with their paths, and the properties
"no notes ⇒ exact round trip" and "any JSON in ⇒ a card or a TranslationError out"."""

from __future__ import annotations

import contextlib
import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gateway.core.errors import TranslationError
from gateway.core.types import Dialect, JsonObj
from tests import oracle
from tests.core.translate.agent_card.cards import TRANSLATORS, V03REST, V03RPC, V10, golden, run
from tests.profiles import examples


def deep_merge(a: Any, b: Any) -> Any:
    """a2a-python's union card (`agent_card_to_dict`): the v1.0 dict deep-merged with the v0.3 one."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = dict(a)
        for key, value in b.items():
            out[key] = deep_merge(a[key], value) if key in a else value
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [deep_merge(x, y) for x, y in zip(a, b, strict=True)]
    return a


# -- v0.3 REST input leniency -------------------------------------------------------------------------

def test_jsonrpc_shaped_card_is_accepted_on_v03rest_input() -> None:
    # a2a-python answers GET /v1/card with the JSON-RPC-dialect card
    assert run(golden("full.v03rpc"), V03REST, V10) == (golden("full.v10"), [])
    assert run(golden("full.v03rpc"), V03REST, V03RPC) == (golden("full.v03rpc"), [])


def test_v03rest_input_may_mix_both_forms() -> None:
    card = golden("full.v03rest")
    rpc = golden("full.v03rpc")
    card["securitySchemes"]["bearer"] = rpc["securitySchemes"]["bearer"]
    card["security"][1] = rpc["security"][1]
    card["skills"][0]["security"] = rpc["skills"][0]["security"]
    card["capabilities"]["stateTransitionHistory"] = False
    out, notes = run(card, V03REST, V10)
    assert out == golden("full.v10")
    assert notes == [("state_transition_history_dropped", "$.capabilities.stateTransitionHistory")]


# -- union ("hybrid") cards: both versions' members in one card (a2a-python serves them) ------------

def test_agreeing_union_card_reads_like_either_card() -> None:
    union = deep_merge(golden("full.v10"), golden("full.v03rpc"))
    assert run(union, V10, V03RPC) == (golden("full.v03rpc"), [])
    assert run(union, V10, V03REST) == (golden("full.v03rest"), [])
    assert run(union, V03RPC, V10) == (golden("full.v10"), [])   # valid v0.3 too (extra members allowed)


def test_union_v10_card_prefers_v10_members_and_notes_disagreement() -> None:
    union = deep_merge(golden("full.v10"), golden("full.v03rpc"))
    union["url"] = "https://elsewhere.example.com/"
    union["securitySchemes"]["bearer"]["bearerFormat"] = "opaque"
    union["skills"][0]["security"] = [{"bearer": []}]
    out, notes = run(union, V10, V03RPC)
    assert out == golden("full.v03rpc")
    assert notes == [
        ("union_member_ignored", "$.url"),
        ("union_member_ignored", "$.protocolVersion"),
        ("union_member_ignored", "$.preferredTransport"),
        ("union_member_ignored", "$.additionalInterfaces"),
        ("union_member_ignored", "$.securitySchemes.bearer.type"),
        ("union_member_ignored", "$.skills[0].security"),
    ]


def test_union_v03_card_prefers_v03_members() -> None:
    union = deep_merge(golden("full.v03rpc"), golden("full.v10"))
    union["capabilities"]["extendedAgentCard"] = False
    union["securityRequirements"] = []
    out, notes = run(union, V03RPC, V10)
    assert out == golden("full.v10")
    assert notes == [("union_member_ignored", "$.capabilities.extendedAgentCard"),
                     ("union_member_ignored", "$.securityRequirements")]


def test_v10_card_with_only_v03_members_falls_back_to_them() -> None:
    card = golden("full.v10")
    del card["supportedInterfaces"], card["securityRequirements"]
    v03 = golden("full.v03rpc")
    for key in ("url", "protocolVersion", "preferredTransport", "additionalInterfaces", "security"):
        card[key] = v03[key]
    out, notes = run(card, V10, V03RPC)
    assert out == v03
    assert notes == [("union_member_used", "$.url"), ("union_member_used", "$.protocolVersion"),
                     ("union_member_used", "$.preferredTransport"),
                     ("union_member_used", "$.additionalInterfaces"), ("union_member_used", "$.security")]


# -- members, defaults, coercions ----------------------------------------------------------------------

def test_unknown_members_are_dropped_with_notes() -> None:
    card = golden("full.v03rpc")
    card["kind"] = "agent-card"
    card["capabilities"]["x-custom"] = 1
    card["skills"][1]["owner"] = "me"
    card["securitySchemes"]["mtls"]["certificates"] = []
    card["additionalInterfaces"][0]["priority"] = 1
    out, notes = run(card, V03RPC, V10)
    assert out == golden("full.v10")
    assert notes == [
        ("dropped_unknown_member", "$.kind"),
        ("dropped_unknown_member", "$.additionalInterfaces[0].priority"),
        ("dropped_unknown_member", "$.capabilities.x-custom"),
        ("dropped_unknown_member", "$.securitySchemes.mtls.certificates"),
        ("dropped_unknown_member", "$.skills[1].owner"),
    ]


def test_null_means_unset() -> None:
    card = golden("minimal.v03rpc")
    card["documentationUrl"] = None
    card["provider"] = None
    out, notes = run(card, V03RPC, V10)
    assert out == golden("minimal.v10")
    assert notes == [("null_member_dropped", "$.documentationUrl"), ("null_member_dropped", "$.provider")]


def test_proto_field_names_on_v10_input() -> None:
    card = golden("minimal.v10")
    card["supported_interfaces"] = card.pop("supportedInterfaces")
    iface = card["supported_interfaces"][0]
    iface["protocol_binding"] = iface.pop("protocolBinding")
    oracle.check("agent_card", V10, card)  # ProtoJSON parsers accept proto names
    card["icon_file"] = "x.png"            # ... but not made-up ones
    out, notes = run(card, V10, V03RPC)
    assert out == golden("minimal.v03rpc")
    assert notes == [("proto_field_name_read", "$.supported_interfaces"),
                     ("dropped_unknown_member", "$.icon_file"),
                     ("proto_field_name_read", "$.supportedInterfaces[0].protocol_binding")]


def test_extended_card_false_is_omitted_with_a_note() -> None:
    card = golden("minimal.v10")
    card["capabilities"] = {"extendedAgentCard": False}
    out, notes = run(card, V10, V03RPC)
    assert "supportsAuthenticatedExtendedCard" not in out and out["capabilities"] == {}
    assert notes == [("default_value_omitted", "$.capabilities.extendedAgentCard")]


def test_v03rest_card_without_capabilities_gets_them() -> None:
    card = golden("minimal.v03rest")
    del card["capabilities"]
    card["supportsAuthenticatedExtendedCard"] = True
    out, notes = run(card, V03REST, V10)
    assert out["capabilities"] == {"extendedAgentCard": True}
    assert notes == [("required_member_defaulted", "$.capabilities")]


# -- bad input -----------------------------------------------------------------------------------------

def _del(*path: Any) -> Any:
    def edit(card: JsonObj) -> None:
        target: Any = card
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]
    return edit


def _set(value: Any, *path: Any) -> Any:
    def edit(card: JsonObj) -> None:
        target: Any = card
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return edit


@pytest.mark.parametrize(("src", "edit", "path"), [
    (V03RPC, _del("name"), "$.name"),
    (V03RPC, _del("url"), "$.url"),
    (V03RPC, _del("skills"), "$.skills"),
    (V03RPC, _set({}, "skills"), "$.skills"),
    (V03RPC, _set("x", "skills", 0, "tags"), "$.skills[0].tags"),
    (V03RPC, _del("skills", 0, "id"), "$.skills[0].id"),
    (V03RPC, _set(1, "url"), "$.url"),
    (V03RPC, _set("yes", "capabilities", "streaming"), "$.capabilities.streaming"),
    (V03RPC, _set([1], "additionalInterfaces"), "$.additionalInterfaces[0]"),
    (V03RPC, _del("additionalInterfaces", 0, "transport"), "$.additionalInterfaces[0].transport"),
    (V03RPC, _set("kerberos", "securitySchemes", "bearer", "type"), "$.securitySchemes.bearer.type"),
    (V03RPC, _set(["x"], "securitySchemes", "bearer", "type"), "$.securitySchemes.bearer.type"),
    (V03RPC, _del("securitySchemes", "api-key", "in"), "$.securitySchemes.api-key.in"),
    (V03RPC, _del("securitySchemes", "oauth-code", "flows", "authorizationCode", "tokenUrl"),
     "$.securitySchemes.oauth-code.flows.authorizationCode.tokenUrl"),
    (V03RPC, _set([], "securitySchemes", "mtls"), "$.securitySchemes.mtls"),
    (V03RPC, _set({}, "securitySchemes", "mtls"), "$.securitySchemes.mtls"),
    (V03RPC, _set(["x"], "security", 0), "$.security[0]"),
    (V03RPC, _set({"oauth-code": "read"}, "security", 0), "$.security[0].oauth-code"),
    (V03RPC, _set("sig", "signatures"), "$.signatures"),
    (V03RPC, _set({"x": 1}, "capabilities", "extensions", 0, "params", "nested"), None),
    (V10, _set([], "supportedInterfaces"), "$.supportedInterfaces"),
    (V10, _del("supportedInterfaces"), "$.supportedInterfaces"),
    (V10, _del("supportedInterfaces", 0, "url"), "$.supportedInterfaces[0].url"),
    (V10, _set(5, "securitySchemes", "oauth-code", "oauth2SecurityScheme", "flows", "authorizationCode",
               "scopes", "trips:read"),
     '$.securitySchemes.oauth-code.oauth2SecurityScheme.flows.authorizationCode.scopes["trips:read"]'),
    (V10, _set({"implicit": {"scopes": {}}, "password": {"scopes": {}}},
               "securitySchemes", "oauth-code", "oauth2SecurityScheme", "flows"),
     "$.securitySchemes.oauth-code.oauth2SecurityScheme.flows"),
    (V10, _set({"scheme": "basic"}, "securitySchemes", "api-key", "httpAuthSecurityScheme"),
     "$.securitySchemes.api-key"),
    (V10, _set({"x": 1}, "securitySchemes", "api-key"), "$.securitySchemes.api-key"),
    (V10, _set({"schemes": {"a": {"list": "x"}}}, "securityRequirements", 0),
     "$.securityRequirements[0].schemes.a.list"),
    (V10, _set({"schemes": {"a": []}}, "securityRequirements", 0), "$.securityRequirements[0].schemes.a"),
    (V10, _set(1, "capabilities", "extendedAgentCard"), "$.capabilities.extendedAgentCard"),
    (V10, _set("1", "capabilities", "extensions", 0, "required"), "$.capabilities.extensions[0].required"),
    (V10, _set([], "capabilities", "extensions", 0, "params"), "$.capabilities.extensions[0].params"),
    (V10, _set(None, "name"), "$.name"),
])
def test_bad_input_raises_with_its_path(src: Dialect, edit: Any, path: str | None) -> None:
    card = golden("full.v03rpc" if src is V03RPC else "full.v10")
    edit(card)
    dst = V10 if src is V03RPC else V03RPC
    if path is None:   # free-form members are not inspected
        run(card, src, dst)
        return
    with pytest.raises(TranslationError) as caught:
        run(card, src, dst)
    assert caught.value.path == path


@pytest.mark.parametrize("value", [None, [], "card", 1, True])
def test_a_card_must_be_an_object(value: Any) -> None:
    for pair in TRANSLATORS:
        with pytest.raises(TranslationError) as caught:
            run(value, *pair)
        assert caught.value.path == "$"


# -- properties ----------------------------------------------------------------------------------------

WORDS = st.text(alphabet="abcxyz:/. _-", max_size=6)
STRS = st.lists(WORDS, max_size=2)
SCHEME_NAMES = st.sampled_from(["a", "b", "a#implicit", "a#password", "a#clientCredentials",
                                "b#authorizationCode", "a#deviceCode", "c"])
FLOW_MEMBERS = {
    "authorizationCode": ("authorizationUrl", "tokenUrl", "refreshUrl", "scopes", "pkceRequired"),
    "clientCredentials": ("tokenUrl", "refreshUrl", "scopes"),
    "implicit": ("authorizationUrl", "refreshUrl", "scopes"),
    "password": ("tokenUrl", "refreshUrl", "scopes"),
    "deviceCode": ("deviceAuthorizationUrl", "tokenUrl", "refreshUrl", "scopes"),
}
SCOPES = st.dictionaries(WORDS, WORDS, max_size=2)


def _member(name: str) -> st.SearchStrategy[Any]:
    return {"scopes": SCOPES, "pkceRequired": st.booleans()}.get(name, WORDS)


def _obj(required: dict[str, Any], optional: dict[str, Any], *, full: bool) -> st.SearchStrategy[JsonObj]:
    """`required` always present when `full` (the subset v0.3 JSON-RPC can say), else optional too."""
    if full:
        return st.fixed_dictionaries(required, optional=optional)
    return st.fixed_dictionaries({}, optional={**required, **optional})


V03_REQUIRED_FLOW = {"authorizationCode": ("authorizationUrl", "tokenUrl", "scopes"),
                     "clientCredentials": ("tokenUrl", "scopes"), "implicit": ("authorizationUrl", "scopes"),
                     "password": ("tokenUrl", "scopes"), "deviceCode": ()}


def _flow(name: str, *, v10: bool, full: bool) -> st.SearchStrategy[JsonObj]:
    members = [m for m in FLOW_MEMBERS[name] if v10 or m != "pkceRequired"]
    required = {m: _member(m) for m in members if m in V03_REQUIRED_FLOW[name]}
    return _obj(required, {m: _member(m) for m in members if m not in required}, full=full)


def _v10_card(full: bool) -> st.SearchStrategy[JsonObj]:
    flow_names = sorted(FLOW_MEMBERS) if not full else sorted(set(FLOW_MEMBERS) - {"deviceCode"})
    flows = st.sampled_from(flow_names).flatmap(
        lambda f: _flow(f, v10=True, full=full).map(lambda body: {f: body}))
    described = {"description": WORDS}
    locations = ["header", "query", "cookie"] + ([] if full else ["Header", "body"])
    scheme = st.one_of(
        st.fixed_dictionaries({"apiKeySecurityScheme": _obj(
            {"location": st.sampled_from(locations), "name": WORDS}, described, full=full)}),
        st.fixed_dictionaries({"httpAuthSecurityScheme": _obj(
            {"scheme": WORDS}, {"bearerFormat": WORDS, **described}, full=full)}),
        st.fixed_dictionaries({"oauth2SecurityScheme": _obj(
            {"flows": st.one_of(st.just({}), flows)}, {"oauth2MetadataUrl": WORDS, **described}, full=full)}),
        st.fixed_dictionaries({"openIdConnectSecurityScheme": _obj(
            {"openIdConnectUrl": WORDS}, described, full=full)}),
        st.fixed_dictionaries({"mtlsSecurityScheme": _obj({}, described, full=full)}),
    )
    scopes = st.fixed_dictionaries({"list": STRS}) if full else st.one_of(
        st.just({}), st.fixed_dictionaries({"list": STRS}))
    requirement = st.fixed_dictionaries({"schemes": st.dictionaries(SCHEME_NAMES, scopes, max_size=2)})
    requirements = st.lists(requirement if full else st.one_of(st.just({}), requirement), max_size=3)
    versions = st.sampled_from(["0.3", "1.0", "", "0.2", "0.3.1", "x"])
    interface = _obj({"protocolVersion": st.just("0.3")} if full else {},
                     {} if full else {"protocolVersion": versions, "tenant": WORDS}, full=full)
    interface = st.tuples(interface, st.sampled_from(["u1", "u2"]),
                          st.sampled_from(["JSONRPC", "HTTP+JSON"])).map(
        lambda t: {**t[0], "url": t[1], "protocolBinding": t[2]})
    extension = _obj({"uri": WORDS}, {**described, "required": st.booleans(), "params": st.dictionaries(
        WORDS, st.one_of(st.integers(), WORDS, st.none()), max_size=2)}, full=full)
    capabilities = st.fixed_dictionaries({}, optional={
        "streaming": st.booleans(), "pushNotifications": st.booleans(),
        "extensions": st.lists(extension, max_size=2),
        "extendedAgentCard": st.just(True) if full else st.booleans()})
    skill = _obj({"id": WORDS, "name": WORDS, "description": WORDS, "tags": STRS},
                 {"examples": STRS, "inputModes": STRS, "outputModes": STRS,
                  "securityRequirements": requirements},
                 full=full)
    required = {"description": WORDS, "version": WORDS, "capabilities": capabilities,
                "defaultInputModes": STRS, "defaultOutputModes": STRS, "skills": st.lists(skill, max_size=2)}
    optional: dict[str, Any] = {
        "documentationUrl": WORDS, "iconUrl": WORDS,
        "provider": _obj({"organization": WORDS, "url": WORDS}, {}, full=full),
        "securitySchemes": st.dictionaries(SCHEME_NAMES, scheme, max_size=4),
        "securityRequirements": requirements}
    if not full:
        optional["signatures"] = st.lists(st.fixed_dictionaries({"protected": WORDS, "signature": WORDS}),
                                          max_size=1)
    interfaces = st.lists(interface, min_size=1, max_size=3)
    if full:  # no (url, binding) repeats of the first interface: v0.3 -> v1.0 would fold them
        interfaces = interfaces.filter(lambda xs: all(
            (x["url"], x["protocolBinding"]) != (xs[0]["url"], xs[0]["protocolBinding"]) for x in xs[1:]))
    return st.tuples(WORDS, interfaces, _obj(required, optional, full=full)).map(
        lambda t: {"name": t[0], "supportedInterfaces": t[1], **t[2]})


V10_CARD = st.one_of(_v10_card(full=True), _v10_card(full=False))

DESCRIBED = {"description": WORDS}
SKILL_TEXT = {"id": WORDS, "name": WORDS, "description": WORDS}
EXTENSION = st.fixed_dictionaries({"uri": WORDS}, optional={
    **DESCRIBED, "required": st.booleans(),
    "params": st.dictionaries(WORDS, st.one_of(st.integers(), WORDS, st.none()), max_size=2)})

V03_FLOW_NAMES = st.sampled_from(["authorizationCode", "clientCredentials", "implicit", "password"])
V03_FLOWS = st.dictionaries(V03_FLOW_NAMES, st.just(None), max_size=4).flatmap(
    lambda names: st.fixed_dictionaries({n: _v03_flow(n) for n in names}))


def _v03_flow(name: str) -> st.SearchStrategy[JsonObj]:
    required = V03_REQUIRED_FLOW[name]
    return st.fixed_dictionaries({m: _member(m) for m in required}, optional={"refreshUrl": WORDS})


V03_SCHEME = st.one_of(
    st.fixed_dictionaries({"type": st.just("apiKey"), "in": st.sampled_from(["header", "query", "cookie"]),
                           "name": WORDS}, optional=DESCRIBED),
    st.fixed_dictionaries({"type": st.just("http"), "scheme": WORDS}, optional={"bearerFormat": WORDS,
                                                                               **DESCRIBED}),
    st.fixed_dictionaries({"type": st.just("oauth2"), "flows": V03_FLOWS},
                          optional={"oauth2MetadataUrl": WORDS, **DESCRIBED}),
    st.fixed_dictionaries({"type": st.just("openIdConnect"), "openIdConnectUrl": WORDS}, optional=DESCRIBED),
    st.fixed_dictionaries({"type": st.just("mutualTLS")}, optional=DESCRIBED),
)
V03_REQUIREMENTS = st.lists(st.dictionaries(SCHEME_NAMES, STRS, max_size=2), max_size=3)
V03_CARD = st.fixed_dictionaries(
    {"protocolVersion": st.sampled_from(["0.3.0", "0.3.0", "0.3"]), "name": WORDS, "description": WORDS,
     "url": st.sampled_from(["u1", "u2"]), "version": WORDS,
     "capabilities": st.fixed_dictionaries({}, optional={
         "streaming": st.booleans(), "pushNotifications": st.booleans(),
         "stateTransitionHistory": st.booleans(), "extensions": st.lists(EXTENSION, max_size=2)}),
     "defaultInputModes": STRS, "defaultOutputModes": STRS,
     "skills": st.lists(st.fixed_dictionaries({**SKILL_TEXT, "tags": STRS}, optional={
         "examples": STRS, "inputModes": STRS, "outputModes": STRS, "security": V03_REQUIREMENTS}),
         max_size=2)},
    optional={
        "preferredTransport": st.sampled_from(["JSONRPC", "HTTP+JSON"]),
        "additionalInterfaces": st.lists(st.fixed_dictionaries({
            "url": st.sampled_from(["u1", "u2"]), "transport": st.sampled_from(["JSONRPC", "HTTP+JSON"])}),
            max_size=2),
        "provider": st.fixed_dictionaries({"organization": WORDS, "url": WORDS}),
        "documentationUrl": WORDS, "iconUrl": WORDS,
        "securitySchemes": st.dictionaries(SCHEME_NAMES, V03_SCHEME, max_size=4),
        "security": V03_REQUIREMENTS,
        "supportsAuthenticatedExtendedCard": st.booleans(),
    })

PROPERTY = settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(card=V10_CARD, via=st.sampled_from([V03RPC, V03REST]))
def test_v10_round_trip_is_exact_when_nothing_is_noted(card: JsonObj, via: Dialect) -> None:
    there, notes_there = run(card, V10, via)
    oracle.check("agent_card", via, there)
    back, notes_back = run(there, via, V10)
    oracle.check("agent_card", V10, back)
    if not notes_there and not notes_back:
        assert back == card


@PROPERTY
@given(card=V03_CARD)
def test_v03_round_trip_is_exact_when_nothing_is_noted(card: JsonObj) -> None:
    oracle.check("agent_card", V03RPC, card)
    hub, notes_there = run(card, V03RPC, V10)
    oracle.check("agent_card", V10, hub)
    back, notes_back = run(hub, V10, V03RPC)
    if not notes_there and not notes_back:
        assert back == card


@PROPERTY
@given(card=V03_CARD)
def test_oauth_split_comes_back_merged(card: JsonObj) -> None:
    """The split notes its loss-free work; the merge on the way back restores the v0.3 card exactly
    whenever nothing else was noted."""
    hub, notes_there = run(card, V03RPC, V10)
    back, notes_back = run(hub, V10, V03RPC)
    benign = {"oauth_flows_split", "security_requirement_expanded", "oauth_flows_merged",
              "security_requirement_collapsed"}
    if all(code in benign for code, _ in notes_there + notes_back):
        assert back == card


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=12)


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            out += _paths(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out += _paths(item, (*path, i))
    return out


@st.composite
def mutated(draw: st.DrawFn) -> tuple[Dialect, Any]:
    src = draw(st.sampled_from([V03RPC, V03REST, V10]))
    card = copy.deepcopy(golden({V03RPC: "full.v03rpc", V03REST: "full.v03rest", V10: "full.v10"}[src]))
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(_paths(card)))
        if not path:
            return src, draw(JSON)
        target = card
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = draw(JSON)
    return src, card


def _survives(src: Dialect, card: Any) -> None:
    for dst in (d for d in Dialect if d is not src):
        with contextlib.suppress(TranslationError):
            run(card, src, dst)


@PROPERTY
@given(case=mutated())
def test_mutated_cards_translate_or_raise_translation_error(case: tuple[Dialect, Any]) -> None:
    _survives(*case)


@PROPERTY
@given(src=st.sampled_from(list(Dialect)), card=JSON)
def test_arbitrary_json_translates_or_raises_translation_error(src: Dialect, card: Any) -> None:
    _survives(src, card)
