"""Security schemes, OAuth flows and requirements: the scheme
tables both ways, `in` ⇄ `location`, requirement forms, and the OAuth split/merge with its requirement
expansion and collapse."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.core.dialects import V03REST_SPEC, V03RPC_SPEC, V10_SPEC, DialectSpec
from gateway.core.errors import TranslationError
from gateway.core.notes import Cx
from gateway.core.translate import Family
from gateway.core.translate.agent_card import TRANSLATORS
from gateway.core.translate.agent_card.security import (
    FLOWS,
    MEMBERS,
    REQUIRED,
    TYPE_OF,
    V03_FLOWS,
    V03_REQUIRED,
    WRAPPER_OF,
    collapse,
    expand,
    flows_out,
    requirement_in,
    requirement_out,
    scheme_in,
    scheme_out,
    schemes_to_v03,
    split_schemes,
)
from gateway.core.types import Dialect, JsonObj
from tests.profiles import examples

V03RPC, V03REST, V10 = Dialect.V03RPC, Dialect.V03REST, Dialect.V10

# (v0.3 JSON-RPC scheme, hub / v1.0 scheme): one row per scheme type, every member set
IMPLICIT = {"implicit": {"authorizationUrl": "https://a", "refreshUrl": "https://r", "scopes": {"s": "S"}}}
SCHEMES = [
    ({"type": "apiKey", "in": "cookie", "name": "sid", "description": "d"},
     {"apiKeySecurityScheme": {"location": "cookie", "name": "sid", "description": "d"}}),
    ({"type": "http", "scheme": "basic", "bearerFormat": "none", "description": "d"},
     {"httpAuthSecurityScheme": {"scheme": "basic", "bearerFormat": "none", "description": "d"}}),
    ({"type": "oauth2", "description": "d", "oauth2MetadataUrl": "https://m",
      "flows": IMPLICIT},
     {"oauth2SecurityScheme": {"description": "d", "oauth2MetadataUrl": "https://m",
      "flows": IMPLICIT}}),
    ({"type": "openIdConnect", "openIdConnectUrl": "https://o", "description": "d"},
     {"openIdConnectSecurityScheme": {"openIdConnectUrl": "https://o", "description": "d"}}),
    ({"type": "mutualTLS", "description": "d"}, {"mtlsSecurityScheme": {"description": "d"}}),
]


def notes_of(cx: Cx) -> list[tuple[str, str]]:
    return [(n.code, n.path) for n in cx.notes]


def card(**security: Any) -> JsonObj:
    """A minimal v1.0 card around some security members."""
    return {"name": "n", "description": "d", "version": "1", "capabilities": {}, "defaultInputModes": [],
            "defaultOutputModes": [], "skills": [],
            "supportedInterfaces": [{"url": "u", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}],
            **security}


def v10_to_v03rpc(value: JsonObj) -> tuple[JsonObj, list[tuple[str, str]]]:
    cx = Cx()
    return TRANSLATORS[Family.AGENT_CARD][(V10, V03RPC)](value, cx, "$"), notes_of(cx)


def v03rpc_to_v10(value: JsonObj) -> tuple[JsonObj, list[tuple[str, str]]]:
    cx = Cx()
    return TRANSLATORS[Family.AGENT_CARD][(V03RPC, V10)](value, cx, "$"), notes_of(cx)


# -- tables --------------------------------------------------------------------------------------------

def test_tables_cover_every_scheme_type_and_flow() -> None:
    assert set(WRAPPER_OF) == set(MEMBERS) == set(REQUIRED) == {"apiKey", "http", "oauth2", "openIdConnect",
                                                                "mutualTLS"}
    assert set(TYPE_OF) == {"apiKeySecurityScheme", "httpAuthSecurityScheme", "oauth2SecurityScheme",
                            "openIdConnectSecurityScheme", "mtlsSecurityScheme"}
    assert set(V03_FLOWS) == set(V03_REQUIRED) == set(FLOWS) - {"deviceCode"}
    for kind, members in MEMBERS.items():
        assert set(REQUIRED[kind]) <= set(members)


@pytest.mark.parametrize(("v03", "v10"), SCHEMES, ids=[row[0]["type"] for row in SCHEMES])
def test_every_scheme_type_maps_both_ways(v03: JsonObj, v10: JsonObj) -> None:
    cx = Cx()
    assert scheme_in(v03, cx, "$.s", V03RPC_SPEC) == v10
    assert scheme_out(v10, cx, "$.s", V03RPC_SPEC) == v03
    assert scheme_in(v10, cx, "$.s", V10_SPEC) == v10
    assert scheme_out(v10, cx, "$.s", V03REST_SPEC) == v10   # the v0.3 proto uses the same wrappers
    assert scheme_in(v10, cx, "$.s", V03REST_SPEC) == v10
    assert cx.notes == []


# -- in / location -------------------------------------------------------------------------------------

def test_elixir_style_in_inside_the_wrapper_is_read_as_location() -> None:
    cx = Cx()
    hub = scheme_in({"apiKeySecurityScheme": {"in": "query", "name": "k"}}, cx, "$.s", V10_SPEC)
    assert hub == {"apiKeySecurityScheme": {"location": "query", "name": "k"}}
    assert notes_of(cx) == [("api_key_in_read_as_location", "$.s.apiKeySecurityScheme.in")]


def test_location_wins_over_in_inside_the_wrapper() -> None:
    cx = Cx()
    hub = scheme_in({"apiKeySecurityScheme": {"in": "query", "location": "header", "name": "k"}}, cx, "$.s", V10_SPEC)
    assert hub == {"apiKeySecurityScheme": {"location": "header", "name": "k"}}
    assert notes_of(cx) == [("dropped_unknown_member", "$.s.apiKeySecurityScheme.in")]


@pytest.mark.parametrize(("body", "expected", "notes"), [
    ({"location": "query", "name": "k"}, "query", []),
    ({"location": "QUERY", "name": "k"}, "query",
     [("api_key_location_coerced", "$.s.apiKeySecurityScheme.location")]),
    ({"location": "body", "name": "k"}, "header",
     [("api_key_location_coerced", "$.s.apiKeySecurityScheme.location")]),
    ({"name": "k"}, "header", [("required_member_defaulted", "$.s.apiKeySecurityScheme.location")]),
])
def test_api_key_location_for_the_v03_enum(body: JsonObj, expected: str,
                                           notes: list[tuple[str, str]]) -> None:
    cx = Cx()
    out = scheme_out({"apiKeySecurityScheme": body}, cx, "$.s", V03RPC_SPEC)
    assert out is not None and out["in"] == expected
    assert notes_of(cx) == notes
    cx = Cx()
    assert scheme_out({"apiKeySecurityScheme": body}, cx, "$.s", V03REST_SPEC) == {"apiKeySecurityScheme": body}
    assert cx.notes == []   # the v0.3 proto's `location` is a free string


# -- union schemes -------------------------------------------------------------------------------------

@pytest.mark.parametrize("spec", [V03RPC_SPEC, V03REST_SPEC, V10_SPEC], ids=lambda s: s.dialect.value)
def test_union_scheme_prefers_the_input_versions_form(spec: DialectSpec) -> None:
    typed = {"type": "http", "scheme": "bearer"}
    wrapped = {"httpAuthSecurityScheme": {"scheme": "basic"}}
    cx = Cx()
    v10 = spec is V10_SPEC
    out = scheme_in({**typed, **wrapped}, cx, "$.s", spec)
    assert out == (wrapped if v10 else {"httpAuthSecurityScheme": {"scheme": "bearer"}})
    assert notes_of(cx) == [("union_member_ignored", "$.s.type" if v10 else "$.s.httpAuthSecurityScheme")]


def test_scheme_needs_a_type_or_a_wrapper() -> None:
    with pytest.raises(TranslationError) as caught:
        scheme_in({"scheme": "bearer"}, Cx(), "$.s", V10_SPEC)
    assert caught.value.path == "$.s"


def test_v10_oauth_flows_are_a_oneof() -> None:
    flows = {"implicit": {"scopes": {}}, "password": {"scopes": {}}}
    with pytest.raises(TranslationError) as caught:
        scheme_in({"oauth2SecurityScheme": {"flows": flows}}, Cx(), "$.s", V10_SPEC)
    assert caught.value.path == "$.s.oauth2SecurityScheme.flows"


def test_v03_flow_members_of_v10_only_are_unknown_on_v03_input() -> None:
    cx = Cx()
    scheme = {"type": "oauth2", "flows": {"deviceCode": {"tokenUrl": "t", "scopes": {}},
                                          "authorizationCode": {"authorizationUrl": "a", "tokenUrl": "t",
                                                                "scopes": {}, "pkceRequired": True}}}
    hub = scheme_in(scheme, cx, "$.s", V03RPC_SPEC)
    assert hub == {"oauth2SecurityScheme": {"flows": {"authorizationCode": {
        "authorizationUrl": "a", "tokenUrl": "t", "scopes": {}}}}}
    assert notes_of(cx) == [("dropped_unknown_member", "$.s.flows.deviceCode"),
                            ("dropped_unknown_member", "$.s.flows.authorizationCode.pkceRequired")]


def test_flows_out_drops_v10_only_members() -> None:
    cx = Cx()
    flows = {"deviceCode": {"deviceAuthorizationUrl": "d", "tokenUrl": "t", "scopes": {}}}
    assert flows_out(flows, cx, "$.f", V03RPC_SPEC) == {}
    assert notes_of(cx) == [("oauth_flow_dropped", "$.f.deviceCode")]


def test_an_oauth_scheme_that_never_had_flows_stays() -> None:
    cx = Cx()
    assert scheme_out({"oauth2SecurityScheme": {"flows": {}}}, cx, "$.s", V03RPC_SPEC) == {"type": "oauth2",
                                                                                       "flows": {}}
    assert cx.notes == []


# -- requirement forms ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("src", "proto", "hub"), [
    ({"a": ["x"], "b": []}, False, {"schemes": {"a": {"list": ["x"]}, "b": {"list": []}}}),
    ({"schemes": {"a": {"list": ["x"]}}}, True, {"schemes": {"a": {"list": ["x"]}}}),
    ({"schemes": {"mtls": {}}}, True, {"schemes": {"mtls": {}}}),
    ({"schemes": {"mtls": {}}}, False, {"schemes": {"mtls": {}}}),
    ({"schemes": ["x"]}, False, {"schemes": {"schemes": {"list": ["x"]}}}),   # a scheme called "schemes"
    ({}, False, {"schemes": {}}),
    ({}, True, {}),
])
def test_requirement_forms_are_detected(src: JsonObj, proto: bool, hub: JsonObj) -> None:
    cx = Cx()
    assert requirement_in(src, cx, "$.r", V03REST_SPEC if proto else V03RPC_SPEC) == hub
    assert cx.notes == []


def test_requirement_out_spells_out_protojson_defaults_for_jsonrpc() -> None:
    cx = Cx()
    assert requirement_out({"schemes": {"mtls": {}, "k": {"list": ["s"]}}}, cx, "$.r", V03RPC_SPEC) == {
        "mtls": [], "k": ["s"]}
    assert requirement_out({}, cx, "$.q", V03RPC_SPEC) == {}
    assert notes_of(cx) == [("required_member_defaulted", "$.r.schemes.mtls.list"),
                            ("required_member_defaulted", "$.q.schemes")]
    cx = Cx()
    assert requirement_out({"schemes": {"mtls": {}}}, cx, "$.r", V03REST_SPEC) == {"schemes": {"mtls": {}}}
    assert cx.notes == []


# -- expansion and collapse ----------------------------------------------------------------------------

ALTERNATIVES = {"a": ["a", "a#implicit"], "b": ["b", "b#password", "b#implicit"]}


def test_expansion_is_the_product_in_order() -> None:
    assert expand({"a": ["x"], "c": [], "b": []}, ALTERNATIVES) == [
        {"a": ["x"], "c": [], "b": []}, {"a": ["x"], "c": [], "b#password": []},
        {"a": ["x"], "c": [], "b#implicit": []}, {"a#implicit": ["x"], "c": [], "b": []},
        {"a#implicit": ["x"], "c": [], "b#password": []}, {"a#implicit": ["x"], "c": [], "b#implicit": []},
    ]


@pytest.mark.parametrize(("reqs", "bad"), [
    ([{"a#implicit": []}], {"a"}),                 # a part alone
    ([{"a": []}], {"a"}),                          # the base alone: only its first flow
    ([{"a": [], "a#implicit": []}], {"a"}),        # both in one AND
    ([{"a": ["x"]}, {"a#implicit": ["y"]}], {"a"}),  # scopes differ
    ([{"a": []}, {"c": []}, {"a#implicit": []}], {"a"}),
])
def test_collapse_refuses_what_expansion_cannot_produce(reqs: list[JsonObj], bad: set[str]) -> None:
    assert collapse(reqs, ALTERNATIVES) == (None, bad, [])


REQS = st.lists(st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), st.lists(st.sampled_from(["x", "y"]),
                                                                                  max_size=2), max_size=3),
                max_size=4)


@settings(max_examples=examples(300), deadline=None)
@given(reqs=REQS)
def test_collapse_inverts_expansion(reqs: list[JsonObj]) -> None:
    expanded = [alt for req in reqs for alt in expand(req, ALTERNATIVES)]
    collapsed, bad, runs = collapse(expanded, ALTERNATIVES)
    assert (collapsed, bad) == (reqs, set())
    assert len(runs) == sum(1 for req in reqs if set(req) & set(ALTERNATIVES))


# -- split and merge over a card -----------------------------------------------------------------------

def _oauth(*flows: str, description: str = "d") -> JsonObj:
    return {"type": "oauth2", "description": description,
            "flows": {f: {"tokenUrl": "t", "authorizationUrl": "a", "scopes": {}} if f == "authorizationCode"
                      else {"tokenUrl": "t", "scopes": {}} if f in ("clientCredentials", "password")
                      else {"authorizationUrl": "a", "scopes": {}} for f in flows}}


def v03_card(schemes: JsonObj, security: list[JsonObj],
             skill_security: list[JsonObj] | None = None) -> JsonObj:
    skill: JsonObj = {"id": "s", "name": "s", "description": "s", "tags": []}
    if skill_security is not None:
        skill["security"] = skill_security
    return {"protocolVersion": "0.3.0", "name": "n", "description": "d", "url": "u",
            "preferredTransport": "JSONRPC",
            "version": "1", "capabilities": {}, "securitySchemes": schemes, "security": security,
            "defaultInputModes": [], "defaultOutputModes": [], "skills": [skill]}


def test_split_then_merge_is_exact() -> None:
    source = v03_card({"o": _oauth("implicit", "password", "clientCredentials"), "k": SCHEMES[0][0]},
                      [{"o": ["r"], "k": []}, {"k": []}], [{"o": []}])
    hub, notes = v03rpc_to_v10(source)
    assert sorted(hub["securitySchemes"]) == ["k", "o", "o#clientCredentials", "o#password"]
    assert hub["securityRequirements"] == [
        {"schemes": {"o": {"list": ["r"]}, "k": {"list": []}}},
        {"schemes": {"o#password": {"list": ["r"]}, "k": {"list": []}}},
        {"schemes": {"o#clientCredentials": {"list": ["r"]}, "k": {"list": []}}},
        {"schemes": {"k": {"list": []}}},
    ]
    assert notes == [("oauth_flows_split", "$.securitySchemes.o"),
                     ("security_requirement_expanded", "$.security[0]"),
                     ("security_requirement_expanded", "$.skills[0].security[0]")]
    back, notes = v10_to_v03rpc(hub)
    assert back == source
    assert notes == [("oauth_flows_merged", "$.securitySchemes.o"),
                     ("security_requirement_collapsed", "$.securityRequirements[0]"),
                     ("security_requirement_collapsed", "$.skills[0].securityRequirements[0]")]


def test_split_name_taken_by_a_scheme_or_a_requirement_drops_that_flow() -> None:
    source = v03_card({"o": _oauth("implicit", "password", "clientCredentials"),
                       "o#password": SCHEMES[4][0]}, [{"o#clientCredentials": []}])
    hub, notes = v03rpc_to_v10(source)
    assert sorted(hub["securitySchemes"]) == ["o", "o#password"]
    assert hub["securitySchemes"]["o#password"] == SCHEMES[4][1]
    assert notes == [("oauth_flows_split", "$.securitySchemes.o"),
                     ("oauth_flow_dropped", "$.securitySchemes.o.flows.password"),
                     ("oauth_flow_dropped", "$.securitySchemes.o.flows.clientCredentials")]


def test_no_merge_when_requirements_do_not_collapse() -> None:
    hub = card(securitySchemes={
        "o": {"oauth2SecurityScheme": {"flows": {"implicit": {"scopes": {}}}}},
        "o#password": {"oauth2SecurityScheme": {"flows": {"password": {"scopes": {}}}}}},
               securityRequirements=[{"schemes": {"o#password": {"list": []}}}])
    out, notes = v10_to_v03rpc(hub)
    assert sorted(out["securitySchemes"]) == ["o", "o#password"]
    assert out["security"] == [{"o#password": []}]
    assert notes == [("required_member_defaulted", "$.securitySchemes.o.oauth2SecurityScheme.flows.implicit"
                                                   ".authorizationUrl"),
                     ("required_member_defaulted", "$.securitySchemes.o#password.oauth2SecurityScheme.flows"
                                                   ".password.tokenUrl")]


def test_no_merge_when_siblings_differ_beyond_their_flow() -> None:
    source = v03_card({"o": _oauth("implicit"), "o#password": _oauth("password", description="other")}, [])
    hub, notes = v03rpc_to_v10(source)
    assert notes == []
    assert v10_to_v03rpc(hub) == (source, [])


def test_v03_card_that_already_uses_split_names_is_merged_with_notes() -> None:
    # the `name#flow` convention is the gateway's; a v0.3 card using it is folded (noted, not silent)
    source = v03_card({"o": _oauth("implicit"), "o#password": _oauth("password")}, [])
    hub, notes = v03rpc_to_v10(source)
    assert notes == []
    back, notes = v10_to_v03rpc(hub)
    assert back["securitySchemes"] == {"o": _oauth("implicit", "password")}
    assert notes == [("oauth_flows_merged", "$.securitySchemes.o")]


def test_device_code_part_goes_with_its_requirements() -> None:
    hub = card(
        securitySchemes={
            "o": {"oauth2SecurityScheme": {"flows": {"implicit": {"authorizationUrl": "a", "scopes": {}}}}},
            "o#deviceCode": {"oauth2SecurityScheme": {"flows": {"deviceCode": {"tokenUrl": "t"}}}}},
        securityRequirements=[{"schemes": {"o": {"list": []}}}, {"schemes": {"o#deviceCode": {"list": []}}}])
    out, notes = v10_to_v03rpc(hub)
    assert out["securitySchemes"] == {"o": {"type": "oauth2", "flows": {"implicit": {"authorizationUrl": "a",
                                                                                     "scopes": {}}}}}
    assert out["security"] == [{"o": []}]
    assert notes == [
        ("oauth_flow_dropped", "$.securitySchemes.o#deviceCode.oauth2SecurityScheme.flows.deviceCode"),
        ("security_scheme_removed", "$.securitySchemes.o#deviceCode"),
        ("security_requirement_removed", "$.securityRequirements[1]"),
    ]


def test_v03rest_keeps_split_schemes_apart() -> None:
    cx = Cx()
    schemes = {"o": {"oauth2SecurityScheme": {"flows": {"implicit": {"scopes": {}}}}},
               "o#password": {"oauth2SecurityScheme": {"flows": {"password": {"scopes": {}}}}}}
    reqs = [("$.securityRequirements", [{"schemes": {"o": {"list": []}}}, {"schemes": {"o#password": {}}}])]
    out, lists = schemes_to_v03(copy.deepcopy(schemes), reqs, cx, "$.securitySchemes", V03REST_SPEC)
    assert out == schemes   # the v0.3 proto's flows are a oneof too
    assert lists == [reqs[0][1]]
    assert cx.notes == []


def test_v03rest_wrapper_with_several_flows_is_split_too() -> None:
    cx = Cx()
    flows = {"implicit": {"scopes": {}}, "password": {"scopes": {}}}
    schemes = {"o": {"oauth2SecurityScheme": {"flows": flows}}}
    hub = {name: scheme_in(s, cx, f"$.securitySchemes.{name}", V03REST_SPEC)
           for name, s in schemes.items()}
    split, lists = split_schemes(hub, [("$.security", [{"schemes": {"o": {}}}])], cx, "$.securitySchemes")
    assert split == {"o": {"oauth2SecurityScheme": {"flows": {"implicit": {"scopes": {}}}}},
                     "o#password": {"oauth2SecurityScheme": {"flows": {"password": {"scopes": {}}}}}}
    assert lists == [[{"schemes": {"o": {}}}, {"schemes": {"o#password": {}}}]]
    assert notes_of(cx) == [("oauth_flows_split", "$.securitySchemes.o"),
                            ("security_requirement_expanded", "$.security[0]")]


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=3),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
                        st.sampled_from(["type", "in", "location", "name", "flows", "scheme", "implicit",
                                         "apiKeySecurityScheme", "oauth2SecurityScheme", "scopes", "x"]),
                        inner, max_size=4), max_leaves=10)


@settings(max_examples=examples(500), deadline=None)
@given(value=JSON, spec=st.sampled_from([V03RPC_SPEC, V03REST_SPEC, V10_SPEC]))
def test_any_scheme_json_reads_or_raises_translation_error(value: Any, spec: DialectSpec) -> None:
    try:
        hub = scheme_in(value, Cx(), "$.s", spec)
    except TranslationError:
        return
    if len(hub[next(iter(hub))].get("flows", {})) <= 1:
        scheme_out(hub, Cx(), "$.s", V03RPC_SPEC)
