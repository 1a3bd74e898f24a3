"""The translation core's front door: `translate()` over every `Family`, the registry built from each
family module's tables (no import side effects), and the helpers code outside the translators calls."""

from gateway.core.translate import agent_card, calls, errors, events, messages, parts, push_config, tasks
from gateway.core.translate.errors import StatusTable, jsonrpc_error, rest_body, rest_error, rest_error_from_http
from gateway.core.translate.events import infer_kind
from gateway.core.translate.registry import Family, FastPath, Registry, Table, Translate, Translator
from gateway.core.translate.shape import obj

# every family module's public tables; a Family with no translators fails tests/core/translate
TABLES: tuple[Table, ...] = (
    parts.TRANSLATORS, messages.TRANSLATORS, tasks.TRANSLATORS, events.TRANSLATORS, push_config.TRANSLATORS,
    agent_card.TRANSLATORS, calls.TRANSLATORS, errors.TRANSLATORS,
)
FAST_PATHS: tuple[FastPath, ...] = (*parts.FAST_PATHS, *messages.FAST_PATHS, *events.FAST_PATHS,
                                    *calls.FAST_PATHS)
ALIASES = calls.ALIASES
REGISTRY = Registry(TABLES, fast_paths=FAST_PATHS, aliases=ALIASES)
translate: Translate = REGISTRY.translate
families = REGISTRY.families
fast_paths = REGISTRY.fast_paths

__all__ = [
    "ALIASES",
    "FAST_PATHS",
    "REGISTRY",
    "TABLES",
    "Family",
    "FastPath",
    "Registry",
    "StatusTable",
    "Table",
    "Translate",
    "Translator",
    "families",
    "fast_paths",
    "infer_kind",
    "jsonrpc_error",
    "obj",
    "rest_body",
    "rest_error",
    "rest_error_from_http",
    "translate",
]
