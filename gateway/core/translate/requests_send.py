"""SendMessage params in every dialect (`params.send_message`): the message, the configuration
(blocking ⇄ returnImmediately, the inline push config, historyLength) and metadata; the commonest
shapes take a short path, everything else the full one, which alone notes and raises."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gateway.core.errors import TranslationError
from gateway.core.notes import Cx
from gateway.core.translate import messages, push_config
from gateway.core.translate.requests_common import history_from_v10, history_to_v10, tenant_out
from gateway.core.translate.shape import drop_unknown, obj, strings
from gateway.core.types import JsonObj

Fn = Callable[[Any, Cx, str], JsonObj]


_NO_CONF: JsonObj = {}
_SEND_RPC = frozenset(("message", "configuration", "metadata"))
_SEND_REST = frozenset(("message", "configuration", "metadata", "request"))
_SEND_V10 = frozenset(("message", "configuration", "metadata", "tenant"))
_RPC_CONF = frozenset(("acceptedOutputModes", "historyLength", "pushNotificationConfig", "blocking"))
_REST_CONF = frozenset(("acceptedOutputModes", "historyLength", "pushNotification", "blocking"))
_V10_CONF = frozenset(("acceptedOutputModes", "historyLength", "taskPushNotificationConfig",
                       "returnImmediately"))


def _plain_modes(modes: Any) -> list[str] | None:
    """A copy of acceptedOutputModes when it is a list of strings; None sends the caller to the full path."""
    if type(modes) is not list:
        return None
    for mode in modes:
        if type(mode) is not str:
            return None
    return list(modes)


def _conf_to_v10(rest: bool) -> Fn:
    """The commonest configuration (output modes, blocking) inline, anything else the full path.
    `at` comes in as the params' path: the configuration's own is built only when needed."""
    def convert(conf: Any, cx: Cx, at: str) -> JsonObj:
        if type(conf) is dict and len(conf) == 2 and conf.get("blocking") is True \
                and (modes := _plain_modes(conf.get("acceptedOutputModes"))) is not None:
            return {"acceptedOutputModes": modes}
        return _conf_to_v10_full(conf, cx, at + ".configuration", rest)
    return convert


def _conf_to_v10_full(conf: Any, cx: Cx, at: str, rest: bool) -> JsonObj:
    conf = obj(conf, at)
    drop_unknown(conf, _REST_CONF if rest else _RPC_CONF, cx, at)
    out: JsonObj = {}
    if "acceptedOutputModes" in conf:
        out["acceptedOutputModes"] = strings(conf["acceptedOutputModes"], f"{at}.acceptedOutputModes")
    push_key = "pushNotification" if rest else "pushNotificationConfig"
    if conf.get(push_key) is not None:
        out["taskPushNotificationConfig"] = push_config.inline_to_v10(conf[push_key], cx, f"{at}.{push_key}")
    if conf.get("historyLength") is not None:
        history = history_to_v10(conf["historyLength"], cx, f"{at}.historyLength")
        if history is not None:
            out["historyLength"] = history
    blocking = conf.get("blocking")
    if blocking is not None and type(blocking) is not bool:
        raise TranslationError(f"{at}.blocking", "expected a boolean")
    if blocking is False and cx.quirks.ignore_blocking_false:
        cx.note("blocking_ignored", f"{at}.blocking", "quirk ignore_blocking_false")
        blocking = None
    if blocking is None:
        blocking = cx.quirks.rest_blocking_default if rest else cx.quirks.rpc_blocking_default
        cx.note("blocking_defaulted", f"{at}.blocking", str(blocking).lower())
    if not blocking:
        out["returnImmediately"] = True
    return out


def _conf_from_v10(rest: bool) -> Fn:
    """As `_conf_to_v10`: the commonest configuration (output modes only) inline."""
    def convert(conf: Any, cx: Cx, at: str) -> JsonObj:
        if type(conf) is dict and len(conf) == 1 \
                and (modes := _plain_modes(conf.get("acceptedOutputModes"))) is not None:
            return {"acceptedOutputModes": modes, "blocking": True}
        return _conf_from_v10_full(conf, cx, at + ".configuration", rest)
    return convert


def _conf_from_v10_full(conf: Any, cx: Cx, at: str, rest: bool) -> JsonObj:
    conf = obj(conf, at)
    drop_unknown(conf, _V10_CONF, cx, at)
    out: JsonObj = {}
    if not conf:
        out["blocking"] = True
        return out
    modes = conf.get("acceptedOutputModes")
    if modes is not None:
        out["acceptedOutputModes"] = strings(modes, f"{at}.acceptedOutputModes")
    if conf.get("taskPushNotificationConfig") is not None:
        out["pushNotification" if rest else "pushNotificationConfig"] = push_config.inline_from_v10(
            conf["taskPushNotificationConfig"], cx, f"{at}.taskPushNotificationConfig")
    if conf.get("historyLength") is not None:
        history = history_from_v10(conf["historyLength"], cx, f"{at}.historyLength")
        if history is not None:
            out["historyLength"] = history
    immediate = conf.get("returnImmediately", False)
    if type(immediate) is not bool:
        raise TranslationError(f"{at}.returnImmediately", "expected a boolean")
    out["blocking"] = not immediate
    return out


def send_to_v10(rest: bool) -> Fn:
    """One converter per v0.3 dialect, its tables bound once (no per-call branching on the dialect)."""
    known = _SEND_REST if rest else _SEND_RPC
    msg_fn = messages.rest_to_v10 if rest else messages.rpc_to_v10
    conf_fn = _conf_to_v10(rest)

    def convert(params: Any, cx: Cx, at: str) -> JsonObj:
        if type(params) is not dict:
            params = obj(params, at)
        msg_key = "message" if "message" in params or not rest else "request"
        if not known.issuperset(params):
            drop_unknown(params, known, cx, at)
        message = params.get(msg_key)
        if message is None:
            raise TranslationError(f"{at}.message", "required member is missing")
        out: JsonObj = {"tenant": cx.tenant} if cx.tenant else {}  # v1.0 requests carry the tenant (§3.1)
        out["message"] = msg_fn(message, cx, at + "." + msg_key)
        conf = params.get("configuration")
        if conf is not None or rest:  # a v0.3 REST body always has the proto's default config
            out["configuration"] = conf_fn(conf if conf is not None else _NO_CONF, cx, at)
        metadata = params.get("metadata")
        if metadata is not None:
            out["metadata"] = metadata if type(metadata) is dict else obj(metadata, f"{at}.metadata")
        return out
    return convert


def send_from_v10(rest: bool) -> Fn:
    msg_fn = messages.rest_from_v10 if rest else messages.rpc_from_v10
    conf_fn = _conf_from_v10(rest)

    def convert(params: Any, cx: Cx, at: str) -> JsonObj:
        if type(params) is not dict:
            params = obj(params, at)
        if not _SEND_V10.issuperset(params):
            drop_unknown(params, _SEND_V10, cx, at)
        if "tenant" in params:
            tenant_out(params, cx, at)
        message = params.get("message")
        if message is None:
            raise TranslationError(f"{at}.message", "required member is missing")
        conf = params.get("configuration")
        out: JsonObj = {"message": msg_fn(message, cx, at + ".message"),
                        "configuration": conf_fn(conf if conf is not None else _NO_CONF, cx, at)}
        metadata = params.get("metadata")
        if metadata is not None:
            out["metadata"] = metadata if type(metadata) is dict else obj(metadata, f"{at}.metadata")
        return out
    return convert
