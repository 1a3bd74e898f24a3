"""Owns Key, the description of one setting (name, kind, default, doc, check), the REQUIRED marker
and the A2A_GATEWAY_* environment-variable naming."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

Kind = Literal["str", "int", "float", "bool", "list", "table", "enum"]

ENV_PREFIX = "A2A_GATEWAY_"
# Not a key: the config file path, read by the command line when --config is absent.
ENV_CONFIG_PATH = "A2A_GATEWAY_CONFIG"


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()


@dataclass(frozen=True, slots=True)
class Key:
    """One setting: dotted name, value kind, default (or REQUIRED), one-paragraph doc."""

    name: str
    kind: Kind
    default: Any
    doc: str
    choices: tuple[str, ...] = ()
    check: Callable[[Any], Any] | None = None  # validates and normalizes a typed value; raises _Bad
    example: str = ""  # TOML value shown (commented out) in the sample file for REQUIRED keys
    cli: str = ""  # the command-line flag that sets this key, if any

    @property
    def section(self) -> str:
        return self.name.rpartition(".")[0]

    @property
    def field(self) -> str:
        return self.name.rpartition(".")[2]

    @property
    def env(self) -> str:
        return ENV_PREFIX + self.name.upper().replace(".", "_")

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    @property
    def type_label(self) -> str:
        if self.kind == "enum":
            return " \\| ".join(f'`"{c}"`' for c in self.choices)
        return {
            "str": "string",
            "int": "integer",
            "float": "number",
            "bool": "boolean",
            "list": "list of strings",
            "table": "table of strings",
        }[self.kind]
