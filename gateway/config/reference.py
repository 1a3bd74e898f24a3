"""Owns the documents generated from the schema: reference_markdown() (the documentation site's
configuration reference page), sample_toml() (the shipped config/gateway.toml), and regenerate() (both)."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gateway.config.schema import ENV_CONFIG_PATH, ROUTE_KEYS, ROUTES_DOC, SCHEMA, SECTIONS

__all__ = ["REFERENCE_PATH", "SAMPLE_PATH", "reference_markdown", "regenerate", "sample_toml"]

# Both from the root of a checkout; each file is generated whole.
REFERENCE_PATH = "docs/reference/configuration.md"
SAMPLE_PATH = "config/gateway.toml"


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"no TOML form for {value!r}")  # pragma: no cover


def reference_markdown() -> str:
    """The configuration reference page of the documentation site (REFERENCE_PATH), generated from SCHEMA."""
    out = [
        "<!-- Generated from gateway/config/schema.py by `python -m gateway.config`: do not edit by hand. -->",
        "",
        "# Configuration reference",
        "",
        "Settings come from built-in defaults, then the TOML file (`--config FILE` or "
        f"`{ENV_CONFIG_PATH}`), then environment variables, then command-line flags; later sources "
        "win. Every key has an environment variable: `A2A_GATEWAY_` followed by the dotted key "
        "upper-cased with dots replaced by underscores (`upstream.timeout.connect` is "
        "`A2A_GATEWAY_UPSTREAM_TIMEOUT_CONNECT`). From the environment, booleans are "
        "`true`/`false`/`1`/`0`, lists are comma-separated, and tables are comma-separated "
        "`Name=value` pairs. An unknown key or `A2A_GATEWAY_*` variable is an error.",
    ]
    for section, sdoc in SECTIONS.items():
        out += ["", f"## `[{section}]`", "", sdoc, ""]
        out += ["| Key | Type | Default | Environment variable | Description |", "|---|---|---|---|---|"]
        for k in SCHEMA:
            if k.section != section:
                continue
            default = "required" if k.required else f"`{_toml_value(k.default)}`"
            doc = k.doc.replace("|", "\\|") + (f" Flag: `{k.cli}`." if k.cli else "")
            out.append(f"| `{k.field}` | {k.type_label} | {default} | `{k.env}` | {doc} |")
    out += ["", "## `[[routes]]`", "", ROUTES_DOC, "",
            "| Key | Type | Default | Description |", "|---|---|---|---|"]
    out += [f"| `{k.name}` | {k.type_label} | {k.default} | {k.doc} |" for k in ROUTE_KEYS]
    return "\n".join(out) + "\n"


def _comment(text: str) -> list[str]:
    return textwrap.wrap(text, width=98, initial_indent="# ", subsequent_indent="# ", break_on_hyphens=False)


_SAMPLE_HEAD = (
    "# a2a-gateway configuration: every key at its built-in default.",
    "#",
    "# Generated from gateway.config.SCHEMA; regenerate it (and docs/reference/configuration.md) with",
    "#   python -m gateway.config",
    "#",
    "# Precedence: defaults < this file < environment < command-line flags. Every key can be set",
    "# by an environment variable named A2A_GATEWAY_ + the dotted key upper-cased with dots as",
    "# underscores, e.g. upstream.timeout.connect -> A2A_GATEWAY_UPSTREAM_TIMEOUT_CONNECT.",
    "# Check a file with: a2a-gateway check-config FILE",
)
_SAMPLE_ROUTES = (
    *_comment("[[routes]]: several agents behind one gateway (see docs/reference/configuration.md); "
              "file only, restart to change. Without routes the gateway is a sidecar in front of [upstream]. "
              "For example:"),
    "#",
    "# [[routes]]",
    '# name = "billing"',
    '# path_prefix = "/agents/billing"',
    "# [routes.upstream]",
    '# url = "http://billing-agent:9000"',
    '# version = "0.3"',
    "# [routes.upstream.headers]",
    '# Authorization = "Bearer <token>"',
    "#",
    "# [[routes]]",
    '# name = "search"',
    '# host = "search.agents.example.com"',
    "# [routes.upstream]",
    '# url = "http://search-agent:9000"',
    "# [routes.quirks]",
    "# # any [quirks] key",
)


def sample_toml() -> str:
    """The shipped config/gateway.toml: every key at its default, documented, generated from SCHEMA."""
    out = list(_SAMPLE_HEAD)
    for section in SECTIONS:  # a section's table-valued keys come after its plain keys
        out += ["", f"[{section}]", *_comment(SECTIONS[section])]
        for k in (k for k in SCHEMA if k.section == section and k.kind != "table"):
            out += ["", *_comment(k.doc), f"# env: {k.env}"]
            if k.kind == "enum":
                out.append("# one of: " + ", ".join(f'"{c}"' for c in k.choices))
            # a required key is set to its example, so the file passes check-config as shipped
            out.append(f"{k.field} = {k.example}  # an example: required" if k.required
                       else f"{k.field} = {_toml_value(k.default)}")
        for k in (k for k in SCHEMA if k.section == section and k.kind == "table"):
            out += ["", f"[{k.name}]", *_comment(k.doc), f"# env: {k.env}"]
            if example := k.example.strip("{} "):
                out.append(f"# {example}")
    out += ["", *_SAMPLE_ROUTES]
    return "\n".join(out) + "\n"


def regenerate(root: Path) -> list[Path]:
    """Rewrite what is generated from the schema in the checkout at `root`: the configuration reference page
    (REFERENCE_PATH) and config/gateway.toml. Returns the files that changed."""
    wanted = {root / REFERENCE_PATH: reference_markdown(), root / SAMPLE_PATH: sample_toml()}
    changed = []
    for path, content in wanted.items():
        if not path.exists() or path.read_text(encoding="utf-8") != content:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content, encoding="utf-8")
            changed.append(path)
    return changed
