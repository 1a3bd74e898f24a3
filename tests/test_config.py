"""Tests for gateway/config/: load() with a dict environ and tmp TOML files, error messages that
name the key, precedence, the quirks mapping, and the shipped config files."""

from __future__ import annotations

import dataclasses
import ipaddress
import os
import re
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest

from gateway import config
from gateway.config import ConfigError, Settings, checks, load
from gateway.config.__main__ import main as config_main
from gateway.config.reference import regenerate
from gateway.core.quirks import Quirks

ROOT = Path(__file__).resolve().parent.parent
CONFIG_DIR = ROOT / "config"
URL = "http://agent.test:9999"
BASE = {"upstream.url": URL}

WriteToml = Callable[[str], Path]


@pytest.fixture
def toml(tmp_path: Path) -> WriteToml:
    def write(text: str) -> Path:
        path = tmp_path / "gateway.toml"
        path.write_text(text, encoding="utf-8")
        return path

    return write


def error(path: Path | None = None, environ: dict[str, str] | None = None, **overrides: object) -> str:
    with pytest.raises(ConfigError) as info:
        load(path, environ or {}, {**BASE, **{k.replace("__", "."): v for k, v in overrides.items()}})
    return str(info.value)


# --- defaults ---------------------------------------------------------------------------------------


def test_defaults() -> None:
    s = load(None, {}, BASE)
    assert s.server.listen == "127.0.0.1:8080"
    assert (s.server.host, s.server.port) == ("127.0.0.1", 8080)
    assert s.server.public_url == ""
    assert s.server.trusted_proxies == ()
    assert s.server.version_mode == "lenient"
    assert s.server.heartbeat_seconds == 15.0
    assert s.server.shutdown_grace_seconds == 30.0
    assert s.upstream.url == URL
    assert (s.upstream.version, s.upstream.binding, s.upstream.tenant) == ("auto", "auto", "")
    assert (s.upstream.card_refresh_seconds, s.upstream.card_retry_seconds) == (300.0, 5.0)
    assert dict(s.upstream.headers) == {}
    assert s.upstream.timeout == config.TimeoutSettings(
        connect=5.0, first_byte=60.0, idle_stream=300.0, total_unary=120.0
    )
    assert s.limits == config.LimitsSettings(
        max_body_bytes=10 * 1024 * 1024, max_sse_event_bytes=4 * 1024 * 1024, max_connections=1024,
        max_stream_connections=4096, pool_wait_seconds=5.0, max_client_connections=4096,
        max_agent_head_bytes=64 * 1024, max_agent_line_bytes=8190, max_agent_headers=128,
        max_agent_chunk_line_bytes=8190,
    )
    assert s.quirks == Quirks()
    assert s.log == config.LogSettings(format="json", level="info")


def test_settings_are_frozen() -> None:
    s = load(None, {}, BASE)
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.server.listen = "0.0.0.0:1"  # type: ignore[misc]
    with pytest.raises(TypeError):
        s.upstream.headers["X"] = "y"  # type: ignore[index]


def test_upstream_url_is_required() -> None:
    with pytest.raises(ConfigError) as info:
        load(None, {}, None)
    assert info.value.key == "upstream.url"
    assert "required" in str(info.value)
    assert "A2A_GATEWAY_UPSTREAM_URL" in str(info.value)
    assert "--upstream" in str(info.value)


# --- each type from a file --------------------------------------------------------------------------


def test_every_type_from_a_file(toml: WriteToml) -> None:
    path = toml(
        """
[server]
listen = "[::1]:9000"
public_url = "https://gw.example.com/base/"
trusted_proxies = ["10.0.0.0/8", "192.168.1.7", "fd00::/8"]
version_mode = "strict"
heartbeat_seconds = 0
shutdown_grace_seconds = 2.5

[upstream]
url = "https://agent.example.com/a2a"
version = "0.3"
binding = "HTTP+JSON"
tenant = "acme"
card_refresh_seconds = 60

[upstream.headers]
Authorization = "Bearer xyz"
X-Custom = "1"

[upstream.timeout]
connect = 1
idle_stream = 9.5

[limits]
max_body_bytes = 1_000
max_connections = 7

[quirks]
rest_double_base64 = true
final_on_interrupted = "input_required"

[log]
format = "console"
level = "debug"
"""
    )
    s = load(path, {})
    assert (s.server.host, s.server.port) == ("::1", 9000)
    assert s.server.public_url == "https://gw.example.com/base"  # trailing slash dropped
    assert s.server.trusted_proxies == (
        ipaddress.ip_network("10.0.0.0/8"),
        ipaddress.ip_network("192.168.1.7/32"),
        ipaddress.ip_network("fd00::/8"),
    )
    assert s.server.version_mode == "strict"
    assert s.server.heartbeat_seconds == 0.0
    assert isinstance(s.server.heartbeat_seconds, float)
    assert s.upstream.url == "https://agent.example.com/a2a"
    assert (s.upstream.version, s.upstream.binding, s.upstream.tenant) == ("0.3", "HTTP+JSON", "acme")
    assert s.upstream.card_refresh_seconds == 60.0
    assert dict(s.upstream.headers) == {"Authorization": "Bearer xyz", "X-Custom": "1"}
    assert (s.upstream.timeout.connect, s.upstream.timeout.idle_stream) == (1.0, 9.5)
    assert s.upstream.timeout.first_byte == 60.0
    assert (s.limits.max_body_bytes, s.limits.max_connections) == (1000, 7)
    assert s.quirks == Quirks(rest_double_base64=True, final_on_interrupted="input_required")
    assert s.log == config.LogSettings(format="console", level="debug")


@pytest.mark.parametrize(
    ("snippet", "key", "why"),
    [
        ('[limits]\nmax_body_bytes = "big"', "limits.max_body_bytes", "must be an integer"),
        ("[limits]\nmax_body_bytes = 1.5", "limits.max_body_bytes", "must be an integer"),
        ("[limits]\nmax_body_bytes = true", "limits.max_body_bytes", "must be an integer"),
        ("[limits]\nmax_connections = 0", "limits.max_connections", "at least 1"),
        ("[limits]\nmax_stream_connections = 0", "limits.max_stream_connections", "at least 1"),
        ("[limits]\npool_wait_seconds = -1", "limits.pool_wait_seconds", "at least 0"),
        ("[server]\nheader_timeout_seconds = 0", "server.header_timeout_seconds", "greater than 0"),
        ('[agui]\na2ui_versions = ["v0.9", "v0.9"]', "agui.a2ui_versions", "listed twice"),
        ('[agui]\na2ui_versions = ["v2"]', "agui.a2ui_versions", "not an A2UI version"),
        ('[upstream.timeout]\nconnect = "5"', "upstream.timeout.connect", "must be a number"),
        ("[upstream.timeout]\nconnect = 0", "upstream.timeout.connect", "greater than 0"),
        ("[upstream.timeout]\nconnect = nan", "upstream.timeout.connect", "finite"),
        ("[server]\nheartbeat_seconds = -1", "server.heartbeat_seconds", "at least 0"),
        ('[quirks]\nrest_double_base64 = "yes"', "quirks.rest_double_base64", "true or false"),
        ('[server]\ntrusted_proxies = "10.0.0.0/8"', "server.trusted_proxies", "list of strings"),
        ('[server]\ntrusted_proxies = ["10.0.0.300/8"]', "server.trusted_proxies", "CIDR"),
        ("[upstream]\nheaders = { X = 1 }", "upstream.headers", "must be a string"),
        ('[upstream.headers]\n"Bad Name" = "x"', "upstream.headers", "not a valid header name"),
        ('[upstream.headers]\nHost = "x"', "upstream.headers", "set by the gateway"),
        ('[upstream]\ntenant = "a/b"', "upstream.tenant", "one path segment"),
        ('[server]\nlisten = "8080"', "server.listen", "HOST:PORT"),
        ('[server]\nlisten = "127.0.0.1:99999"', "server.listen", "port must be"),
        ('[server]\nlisten = "::1:80"', "server.listen", "brackets"),
        ("[server]\nlisten = 8080", "server.listen", "must be a string"),
        ("server = 1", "server", "must be a table [server]"),
    ],
)
def test_bad_values_name_the_key(toml: WriteToml, snippet: str, key: str, why: str) -> None:
    path = toml(snippet)
    with pytest.raises(ConfigError) as info:
        load(path, {}, BASE)
    assert info.value.key == key
    message = str(info.value)
    assert message.startswith(f"{key}: ")
    assert why in message
    assert str(path) in message


@pytest.mark.parametrize("value", ["lenient", "LENIENT", " Strict "])
def test_enums_match_case_insensitively_and_normalize(value: str) -> None:
    s = load(None, {"A2A_GATEWAY_SERVER_VERSION_MODE": value}, BASE)
    assert s.server.version_mode == value.strip().lower()
    assert load(None, {"A2A_GATEWAY_UPSTREAM_BINDING": "http+json"}, BASE).upstream.binding == "HTTP+JSON"


def test_bad_enum(toml: WriteToml) -> None:
    message = error(toml('[upstream]\nversion = "2.0"'))
    assert message.startswith("upstream.version: ")
    assert '"auto", "0.3", "1.0"' in message
    assert "'2.0'" in message


def test_enum_written_as_a_number_gets_a_hint(toml: WriteToml) -> None:
    message = error(toml("[upstream]\nversion = 1.0"))
    assert message.startswith("upstream.version: must be a string")
    assert 'quote it: "1.0"' in message


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("agent.test:9999", "absolute http:// or https:// URL"),
        ("ftp://agent.test/", "absolute http:// or https:// URL"),
        ("http://", "absolute http:// or https:// URL"),
        ("http://agent.test:port/", "not a valid URL"),
        ("http://user:pw@agent.test/", "credentials"),
        ("http://agent.test/?x=1", "query or fragment"),
        ("http://agent test/", "whitespace"),
        ("", "absolute http:// or https:// URL"),
    ],
)
def test_bad_upstream_url(url: str, why: str) -> None:
    message = error(upstream__url=url)
    assert message.startswith("upstream.url: ")
    assert why in message


def test_bad_public_url() -> None:
    message = error(server__public_url="gw.example.com")
    assert message.startswith("server.public_url: ")


def test_unknown_key_in_file_is_named_with_a_suggestion(toml: WriteToml) -> None:
    message = error(toml("[upstream.timeout]\nconect = 1.0\n[upstream.timeouts]\nx = 1\n"))
    lines = message.splitlines()
    assert lines[0].startswith(
        "upstream.timeout.conect: unknown key (did you mean upstream.timeout.connect?)"
    )
    assert lines[1].startswith(
        "upstream.timeouts: unknown section [upstream.timeouts] (did you mean upstream.timeout?)"
    )


def test_all_problems_are_reported_together(toml: WriteToml) -> None:
    path = toml('[limits]\nmax_connections = -1\n[log]\nlevel = "loud"\n')
    with pytest.raises(ConfigError) as info:
        load(path, {"A2A_GATEWAY_UPSTREAM_TIMEOUT_CONNECT": "soon"}, None)
    keys = [p.key for p in info.value.problems]
    assert keys == ["limits.max_connections", "log.level", "upstream.timeout.connect", "upstream.url"]


def test_unreadable_and_invalid_files(tmp_path: Path, toml: WriteToml) -> None:
    missing = tmp_path / "nope.toml"
    message = error(missing)
    assert message.startswith(f"{missing}: cannot read the config file")
    broken = toml("[server\nlisten = ")
    assert error(broken).startswith(f"{broken}: invalid TOML")


# --- environment ------------------------------------------------------------------------------------


def test_env_names_follow_the_rule() -> None:
    for key in config.SCHEMA:
        assert key.env == "A2A_GATEWAY_" + key.name.upper().replace(".", "_")
    assert config.ENV_NAMES["A2A_GATEWAY_UPSTREAM_URL"].name == "upstream.url"
    assert config.ENV_NAMES["A2A_GATEWAY_LIMITS_MAX_BODY_BYTES"].name == "limits.max_body_bytes"
    assert config.ENV_NAMES["A2A_GATEWAY_UPSTREAM_TIMEOUT_CONNECT"].name == "upstream.timeout.connect"
    assert len(config.ENV_NAMES) == len(config.SCHEMA)


def test_every_type_from_the_environment() -> None:
    env = {
        "A2A_GATEWAY_UPSTREAM_URL": "http://env.test",
        "A2A_GATEWAY_SERVER_LISTEN": "0.0.0.0:1234",
        "A2A_GATEWAY_SERVER_TRUSTED_PROXIES": "10.0.0.0/8, ,127.0.0.1",
        "A2A_GATEWAY_SERVER_HEARTBEAT_SECONDS": "2.5",
        "A2A_GATEWAY_LIMITS_MAX_BODY_BYTES": "2048",
        "A2A_GATEWAY_QUIRKS_RPC_BLOCKING_DEFAULT": "0",
        "A2A_GATEWAY_QUIRKS_REST_BLOCKING_DEFAULT": "TRUE",
        "A2A_GATEWAY_QUIRKS_IGNORE_BLOCKING_FALSE": "1",
        "A2A_GATEWAY_UPSTREAM_HEADERS": "Authorization=Bearer a=b, X-Two = 2",
        "A2A_GATEWAY_UPSTREAM_VERSION": "1.0",
        "A2A_GATEWAY_LOG_LEVEL": "WARNING",
        "A2A_GATEWAY_SERVER_PUBLIC_URL": "",
        "PATH": "/usr/bin",  # not ours: ignored
        "A2A_GATEWAY_CONFIG": "/etc/gateway.toml",  # the config path, read by the CLI: ignored here
    }
    s = load(None, env)
    assert s.upstream.url == "http://env.test"
    assert s.server.listen == "0.0.0.0:1234"
    assert s.server.trusted_proxies == (
        ipaddress.ip_network("10.0.0.0/8"),
        ipaddress.ip_network("127.0.0.1/32"),
    )
    assert s.server.heartbeat_seconds == 2.5
    assert s.limits.max_body_bytes == 2048
    assert s.quirks.rpc_blocking_default is False
    assert s.quirks.rest_blocking_default is True
    assert s.quirks.ignore_blocking_false is True
    assert dict(s.upstream.headers) == {"Authorization": "Bearer a=b", "X-Two": "2"}
    assert s.upstream.version == "1.0"
    assert s.log.level == "warning"
    assert s.server.public_url == ""


def test_empty_list_from_the_environment(toml: WriteToml) -> None:
    path = toml('[server]\ntrusted_proxies = ["10.0.0.0/8"]')
    assert load(path, {"A2A_GATEWAY_SERVER_TRUSTED_PROXIES": ""}, BASE).server.trusted_proxies == ()


@pytest.mark.parametrize(
    ("var", "value", "why"),
    [
        ("A2A_GATEWAY_LIMITS_MAX_BODY_BYTES", "10MiB", "must be an integer"),
        ("A2A_GATEWAY_LIMITS_MAX_BODY_BYTES", "", "must be an integer"),
        ("A2A_GATEWAY_UPSTREAM_TIMEOUT_CONNECT", "fast", "must be a number"),
        ("A2A_GATEWAY_UPSTREAM_TIMEOUT_CONNECT", "inf", "finite"),
        ("A2A_GATEWAY_QUIRKS_REST_DOUBLE_BASE64", "yes", "true, false, 1 or 0"),
        ("A2A_GATEWAY_UPSTREAM_HEADERS", "Authorization", "Name=value"),
        ("A2A_GATEWAY_LOG_FORMAT", "xml", 'one of "json", "console"'),
    ],
)
def test_bad_env_values_name_key_and_variable(var: str, value: str, why: str) -> None:
    key = config.ENV_NAMES[var].name
    message = error(None, {var: value})
    assert message.startswith(f"{key}: ")
    assert why in message
    assert f"from environment variable {var}" in message


def test_unknown_env_var_is_an_error_naming_it() -> None:
    with pytest.raises(ConfigError) as info:
        load(None, {"A2A_GATEWAY_UPSTREAM_TIMEOUT_CONECT": "1"}, BASE)
    assert info.value.key == "A2A_GATEWAY_UPSTREAM_TIMEOUT_CONECT"
    assert "unknown environment variable" in str(info.value)
    assert "did you mean A2A_GATEWAY_UPSTREAM_TIMEOUT_CONNECT?" in str(info.value)


def test_env_overrides_file(toml: WriteToml) -> None:
    path = toml('[server]\nlisten = "127.0.0.1:1"\n[upstream]\nurl = "http://file.test"\n')
    s = load(path, {"A2A_GATEWAY_SERVER_LISTEN": "127.0.0.1:2"})
    assert s.server.listen == "127.0.0.1:2"
    assert s.upstream.url == "http://file.test"


def test_env_table_replaces_the_file_table(toml: WriteToml) -> None:
    path = toml('[upstream.headers]\nA = "1"\nB = "2"\n')
    s = load(path, {"A2A_GATEWAY_UPSTREAM_HEADERS": "C=3"}, BASE)
    assert dict(s.upstream.headers) == {"C": "3"}


def test_bad_file_value_is_reported_even_when_env_overrides_it(toml: WriteToml) -> None:
    path = toml("[limits]\nmax_connections = 0\n")
    with pytest.raises(ConfigError) as info:
        load(path, {"A2A_GATEWAY_LIMITS_MAX_CONNECTIONS": "5"}, BASE)
    assert info.value.key == "limits.max_connections"


# --- command-line overrides -------------------------------------------------------------------------


def test_cli_overrides_env_and_file(toml: WriteToml) -> None:
    path = toml('[server]\nlisten = "127.0.0.1:1"\npublic_url = "http://file.test"\n')
    env = {"A2A_GATEWAY_SERVER_LISTEN": "127.0.0.1:2", "A2A_GATEWAY_UPSTREAM_URL": "http://env.test"}
    overrides = {"server.listen": "127.0.0.1:3", "upstream.url": "http://cli.test", "server.public_url": None}
    s = load(path, env, overrides)
    assert s.server.listen == "127.0.0.1:3"
    assert s.upstream.url == "http://cli.test"
    assert s.server.public_url == "http://file.test"  # None means "flag not given"


def test_cli_values_may_be_typed_or_text() -> None:
    s = load(None, {}, {**BASE, "limits.max_connections": 3, "upstream.timeout.connect": "2.5"})
    assert (s.limits.max_connections, s.upstream.timeout.connect) == (3, 2.5)


def test_bad_cli_value_names_key_and_flag() -> None:
    message = error(server__listen="nowhere")
    assert message.startswith("server.listen: ")
    assert "(from --listen)" in message


def test_unknown_override_key() -> None:
    assert error(server__lisen="x").startswith("server.lisen: unknown key")


# --- quirks -----------------------------------------------------------------------------------------


def test_every_quirks_field_has_a_key_of_the_right_kind() -> None:
    quirk_keys = {k.field: k for k in config.SCHEMA if k.section == "quirks"}
    assert list(quirk_keys) == [f.name for f in dataclasses.fields(Quirks)]
    for f in dataclasses.fields(Quirks):
        key = quirk_keys[f.name]
        assert key.default == f.default
        assert key.doc, f"quirks.{f.name} has no description (gateway/config/schema.py, _QUIRK_DOCS)"
    assert quirk_keys["rest_double_base64"].kind == "auto_bool"  # "auto", or true/false to pin it
    assert quirk_keys["final_on_interrupted"].choices == ("lookahead", "input_required")
    assert quirk_keys["rest_v03_status_table"].choices == ("v10", "py03")
    # each field says what it does itself, even in a pair of related fields
    assert quirk_keys["rest_blocking_default"].doc != quirk_keys["rpc_blocking_default"].doc


def test_quirks_mapping(toml: WriteToml) -> None:
    path = toml(
        """
[quirks]
rest_double_base64 = true
rpc_blocking_default = false
rest_blocking_default = true
ignore_blocking_false = true
final_on_interrupted = "input_required"
rest_push_create_body = "request"
rest_v03_status_table = "py03"
"""
    )
    s = load(path, {}, BASE)
    assert s.quirks == Quirks(
        rest_double_base64=True,
        rpc_blocking_default=False,
        rest_blocking_default=True,
        ignore_blocking_false=True,
        final_on_interrupted="input_required",
        rest_push_create_body="request",
        rest_v03_status_table="py03",
    )
    assert isinstance(s.quirks, Quirks)


def test_bad_quirk_enum(toml: WriteToml) -> None:
    message = error(toml('[quirks]\nrest_push_create_body = "body"'))
    assert message.startswith('quirks.rest_push_create_body: must be one of "auto", "config", "request"')


# --- schema as data ---------------------------------------------------------------------------------


def test_schema_matches_settings() -> None:
    s = load(None, {}, BASE)
    for key in config.SCHEMA:
        value: object = s
        for part in key.name.split("."):
            value = getattr(value, part)
        if not key.required:
            assert value == key.default, key.name
        assert key.doc, key.name


def test_reference_markdown_lists_every_key() -> None:
    md = config.reference_markdown()
    for key in config.SCHEMA:
        assert f"| `{key.field}` |" in md
        assert f"`{key.env}`" in md
    for section in config.SECTIONS:
        assert f"\n## `[{section}]`\n" in md
    assert '`"lenient"` \\| `"strict"`' in md


# Source abbreviations (S03, P10, PY03, JS03, GO, ...) may appear in code comments, never in what users
# read; nor citations of documents the repository does not ship. "the JS SDK" says it in words.
USER_TEXT_BANNED = re.compile(r"\b(S03|S10|P03|P10|J03|PY03|PYcore|PY|JS03|GO)\b|\bJS\b(?! SDK)|wire-mapping|§")


def test_user_facing_text_has_no_source_abbreviations() -> None:
    texts = {f"[{name}]": doc for name, doc in config.SECTIONS.items()}
    texts |= {key.name: key.doc for key in config.SCHEMA}
    texts |= {"reference": config.reference_markdown(), "sample": config.sample_toml()}
    bad = {where: USER_TEXT_BANNED.findall(text) for where, text in texts.items() if USER_TEXT_BANNED.search(text)}
    assert not bad, f"say these in words: {bad}"
    assert USER_TEXT_BANNED.search("as PY03 does") and USER_TEXT_BANNED.search("(JS)")
    assert not USER_TEXT_BANNED.search("the JS SDK, a2a-sdk 0.3 for Python, HTTP+JSON, \"py03\"")


# --- shipped files ----------------------------------------------------------------------------------


def test_shipped_gateway_toml_is_the_generated_sample() -> None:
    shipped = (CONFIG_DIR / "gateway.toml").read_text(encoding="utf-8")
    assert shipped == config.sample_toml(), (
        "config/gateway.toml is out of date with gateway.config.SCHEMA; regenerate it with: python -m gateway.config"
    )


def test_regenerate_rewrites_only_the_generated_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "config").mkdir()
    page, sample = tmp_path / "docs" / "reference" / "configuration.md", tmp_path / "config" / "gateway.toml"
    sample.write_text("stale = true\n")
    other = tmp_path / "README.md"
    other.write_text("# Title\n")
    assert config_main([str(tmp_path)]) == 0  # the page is made where there was none
    assert capsys.readouterr().out == f"regenerated {page}\nregenerated {sample}\n"
    assert page.read_text() == config.reference_markdown()
    assert sample.read_text() == config.sample_toml()
    assert other.read_text() == "# Title\n"
    page.write_text("stale\n")
    assert regenerate(tmp_path) == [page]
    assert regenerate(tmp_path) == []  # nothing left to do


def test_shipped_gateway_toml_loads_and_equals_the_defaults() -> None:
    path = CONFIG_DIR / "gateway.toml"
    assert load(path, {}, BASE) == load(None, {}, BASE)
    # the one required key is set to its example, so the file passes check-config as shipped
    assert load(path, {}, None).upstream.url == "http://127.0.0.1:9999"


def test_shipped_gateway_toml_mentions_every_key() -> None:
    text = (CONFIG_DIR / "gateway.toml").read_text(encoding="utf-8")
    doc = tomllib.loads(text)
    for key in config.SCHEMA:
        if key.kind == "table":
            assert f"[{key.name}]" in text
        else:
            section = doc
            for part in key.section.split("."):
                section = section[part]
            assert key.field in section, key.name


@pytest.mark.parametrize(
    "path",
    [CONFIG_DIR / "dev.toml", *sorted((CONFIG_DIR / "examples").glob("*.toml"))],
    ids=lambda p: p.name,
)
def test_every_shipped_example_loads(path: Path) -> None:
    s = load(path, {})
    assert isinstance(s, Settings)


SHIPPED = sorted(CONFIG_DIR.glob("*.toml")) + sorted((CONFIG_DIR / "examples").glob("*.toml"))


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(CONFIG_DIR)))
def test_every_shipped_configuration_passes_check_config(path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("A2A_GATEWAY_")}
    done = subprocess.run([sys.executable, "-m", "gateway", "check-config", str(path)], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, f"ok: {path}\n", "")


def _quirk_tables(doc: dict[str, object]) -> list[dict[str, object]]:
    routes = doc.get("routes", [])
    assert isinstance(routes, list)
    tables = [doc.get("quirks", {}), *(route.get("quirks", {}) for route in routes)]
    return [t for t in tables if isinstance(t, dict)]


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(CONFIG_DIR)))
def test_no_shipped_configuration_pins_a_detected_quirk(path: Path) -> None:
    """A quirk whose default is "auto" is detected per peer (the recommended setting): an example that
    pins it would teach the wrong thing."""
    detected = {k.field for k in config.SCHEMA if k.section == "quirks" and k.default == "auto"}
    assert detected, "no quirk is detected any more: this test has nothing to hold"
    for table in _quirk_tables(tomllib.loads(path.read_text(encoding="utf-8"))):
        pinned = {name: value for name, value in table.items() if name in detected and value != "auto"}
        assert not pinned, f"{path.name} pins {pinned}: leave them at \"auto\""


def test_examples_cover_both_directions() -> None:
    v10 = load(CONFIG_DIR / "examples" / "v03-clients-to-v10-agent.toml", {})
    v03 = load(CONFIG_DIR / "examples" / "v10-clients-to-v03-agent.toml", {})
    assert (v10.upstream.version, v03.upstream.version) == ("1.0", "0.3")


def test_dev_toml_is_for_development() -> None:
    s = load(CONFIG_DIR / "dev.toml", {})
    assert s.log.format == "console"
    assert s.server.host == "127.0.0.1"
    assert s.upstream.timeout.first_byte < load(None, {}, BASE).upstream.timeout.first_byte


# --- running it: admin listener, workers, event loop, tracing, drain ---------------------------------


def test_operations_defaults() -> None:
    s = load(None, {}, BASE)
    assert (s.admin.listen, s.admin.host, s.admin.port) == ("127.0.0.1:9090", "127.0.0.1", 9090)
    assert (s.server.workers, s.server.event_loop, s.server.stream_drain_seconds) == (1, "auto", 5.0)
    assert (s.tracing.enabled, s.tracing.exporter) == (False, "otlp")
    assert s.limits.max_client_connections == 4096


def test_admin_listener_can_be_disabled_but_not_malformed() -> None:
    assert load(None, {"A2A_GATEWAY_ADMIN_LISTEN": ""}, BASE).admin.listen == ""
    with pytest.raises(ConfigError) as err:
        load(None, {"A2A_GATEWAY_ADMIN_LISTEN": "9090"}, BASE)
    assert err.value.key == "admin.listen"


def test_workers_must_be_positive() -> None:
    with pytest.raises(ConfigError) as err:
        load(None, {"A2A_GATEWAY_SERVER_WORKERS": "0"}, BASE)
    assert err.value.key == "server.workers"


def test_uvloop_and_tracing_require_their_extras(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(checks, "installed", lambda module: False)
    with pytest.raises(ConfigError) as err:
        load(None, {"A2A_GATEWAY_SERVER_EVENT_LOOP": "uvloop", "A2A_GATEWAY_TRACING_ENABLED": "true"}, BASE)
    assert [p.key for p in err.value.problems] == ["server.event_loop", "tracing.enabled"]
    assert "a2a-gateway[uvloop]" in str(err.value) and "a2a-gateway[otel]" in str(err.value)
    assert load(None, {"A2A_GATEWAY_SERVER_EVENT_LOOP": "auto"}, BASE).server.event_loop == "auto"


@pytest.mark.parametrize(("raw", "normal"), [
    ("", ""), ("2026-06-30", "@1782777600"), ("2026-06-30T02:00:00+02:00", "@1782777600"),
    ("2026-06-30T00:00:00Z", "@1782777600"), ("@1782777600", "@1782777600"),
])
def test_migration_instants_are_normalised(raw: str, normal: str) -> None:
    assert load(None, {}, {"upstream.url": "http://a", "migration.deprecation": raw}).migration.deprecation == normal


@pytest.mark.parametrize("raw", ["tomorrow", "2026-06-30T00:00:00", "30/06/2026", "@-5"])
def test_migration_instants_refuse_what_is_not_one(raw: str) -> None:
    with pytest.raises(ConfigError, match=r"migration\.cutoff"):
        load(None, {}, {"upstream.url": "http://a", "migration.cutoff": raw})


def test_migration_caller_header_and_link_are_checked() -> None:
    with pytest.raises(ConfigError, match=r"migration\.caller_header"):
        load(None, {}, {"upstream.url": "http://a", "migration.caller_header": "Bad Header"})
    with pytest.raises(ConfigError, match=r"migration\.link"):
        load(None, {}, {"upstream.url": "http://a", "migration.link": "ftp://x"})


def test_grpc_listener_keys() -> None:
    """Off by default; HOST:PORT (the flag too); the card's address HOST:PORT or a grpc(s):// URL; refused
    beside [[routes]] (gRPC has no path prefix to choose a route by)."""
    assert load(None, {}, {"upstream.url": "http://a:1"}).grpc.listen == ""
    s = load(None, {"A2A_GATEWAY_GRPC_PUBLIC_ADDRESS": "grpcs://gw.example:443"},
             {"upstream.url": "http://a:1", "grpc.listen": "0.0.0.0:50051"})
    assert (s.grpc.host, s.grpc.port, s.grpc.public_address) == ("0.0.0.0", 50051, "grpcs://gw.example:443")
    for bad in ({"grpc.listen": "50051"}, {"grpc.public_address": "https://gw"}):
        with pytest.raises(ConfigError, match=re.escape(next(iter(bad)))):
            load(None, {}, {"upstream.url": "http://a:1", **bad})


def test_grpc_listener_is_refused_with_routes(tmp_path: Path) -> None:
    path = tmp_path / "gateway.toml"
    path.write_text('[grpc]\nlisten = "127.0.0.1:50051"\n[[routes]]\nname = "a"\npath_prefix = "/a"\n'
                    '[routes.upstream]\nurl = "http://a:1"\n')
    with pytest.raises(ConfigError, match=r"grpc\.listen"):
        load(path, {})


@pytest.mark.parametrize("edge", [{"auth.api_keys": ["k"]}, {"callers.requests_per_second": 5.0}])
def test_grpc_listener_beside_the_edge_guard(edge: dict[str, object]) -> None:
    """[auth] and [callers] guard the gRPC door too (tests/shell/test_edge.py): the listener goes with them."""
    settings = load(None, {}, {"upstream.url": "http://a:1", "grpc.listen": "127.0.0.1:50051", **edge})
    assert settings.grpc.listen == "127.0.0.1:50051" and (settings.auth.enabled or settings.callers.enabled)
