"""Reload: a changed upstream gets a new session and the old one closes after its requests; an invalid
configuration keeps the running one; the keys read at start-up stay until a restart."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from gateway.config import Settings, load
from gateway.core import jsoncodec
from gateway.shell.app import build_app
from gateway.shell.keys import LIFECYCLE
from gateway.shell.lifecycle_reload import keep_static, restart_keys
from tests.shell.test_lifecycle import V10_SEND, V10_TASK, _until
from tests.shell.test_metrics import parse, value


async def test_reload_swaps_the_upstream_after_its_requests_finish(fake_agent_factory, gateway_factory) -> None:
    first, second = await fake_agent_factory("1.0"), await fake_agent_factory("1.0")
    for fake in (first, second):
        fake.reply_json("SendMessage", {"task": V10_TASK})
    first.reply_delay("SendMessage", 0.5)
    gateway = await gateway_factory(first.url, upstream__version="1.0")
    lc = gateway.app[LIFECYCLE]
    old = lc.settings

    async def send() -> Any:
        resp = await gateway.post("/", data=jsoncodec.dumpb(V10_SEND),
                                  headers={"A2A-Version": "1.0", "Content-Type": "application/json"})
        return await resp.json()

    slow = asyncio.get_running_loop().create_task(send())
    await _until(lambda: len(first.calls("SendMessage")) == 1)
    old_session = lc.upstream.session
    assert lc.reload(lambda: load(None, {}, {"upstream.url": second.url, "upstream.version": "1.0",
                                             "server.listen": "127.0.0.1:1", "log.format": "console"}))
    assert lc.settings.upstream.url == second.url
    assert lc.settings.server.listen == old.server.listen  # read at start-up: kept until a restart
    assert "result" in await send()  # new requests: the new agent, through a new session
    assert len(second.calls("SendMessage")) == 1 and lc.upstream.session is not old_session
    assert not old_session.closed  # the slow request still uses it
    assert "result" in await slow
    await _until(lambda: old_session.closed)
    assert not lc.reload(lambda: load(None, {"A2A_GATEWAY_SERVER_WORKERS": "0"}, {"upstream.url": second.url}))
    assert lc.settings.upstream.url == second.url


def _settings(**values: object) -> Settings:
    return load(None, {}, {"upstream.url": "http://127.0.0.1:9", "log.format": "console", **values})


def test_keys_read_at_start_up_need_a_restart_and_stay() -> None:
    old = _settings()
    new = _settings(**{"server.listen": "127.0.0.1:1", "upstream.url": "http://127.0.0.1:10",
                       "limits.max_body_bytes": 1000})
    assert restart_keys(old, new) == ["server.listen"]
    kept = keep_static(old, new)
    assert kept.server.listen == old.server.listen
    assert (kept.upstream.url, kept.limits.max_body_bytes) == ("http://127.0.0.1:10", 1000)
    assert restart_keys(old, old) == []


def test_with_routes_the_upstream_needs_a_restart_too(tmp_path: Path) -> None:
    path = tmp_path / "gateway.toml"
    path.write_text('[[routes]]\nname = "billing"\npath_prefix = "/billing"\n'
                    '[routes.upstream]\nurl = "http://127.0.0.1:9"\n', encoding="utf-8")
    old = load(path, {})
    new = load(path, {}, {"upstream.url": "http://127.0.0.1:10"})
    assert restart_keys(old, new) == ["upstream.url"]
    assert keep_static(old, new).routes == old.routes


async def test_an_invalid_configuration_keeps_the_running_one_and_is_counted_unless_supervised() -> None:
    lc = build_app(_settings())[LIFECYCLE]
    before = lc.settings

    def invalid() -> Settings:
        return load(None, {"A2A_GATEWAY_SERVER_WORKERS": "0"}, {"upstream.url": "http://127.0.0.1:10"})

    assert not lc.reload(invalid)
    assert lc.settings is before and lc.generation == 0
    lc.supervised = True  # a worker: its parent counts reloads
    assert not lc.reload(invalid)
    samples = parse(lc.metrics.render().decode())
    assert value(samples, "a2a_gateway_config_reloads_total", outcome="error") == 1
