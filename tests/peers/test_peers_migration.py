"""The migration page in a real browser: a gateway on its defaults in front of a real a2a-sdk 1.x agent,
traffic from two named callers of different versions (and a real a2a-sdk 0.3 client), then the admin
listener's GET / in headless Chromium (the distribution's package): the DOM names each caller with its
version and counts (right-aligned), the requests without a caller name apart by version, the migration dates
set, each note code with what it means; a screenshot is kept as the test's artifact (its path printed), and
written to docs/assets/migration-page.png, which the documentation shows, when UPDATE_DOCS_ASSETS=1."""

from __future__ import annotations

import http.client
import json
import os
import shutil
import subprocess
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gateway.core.notes import EXPLAINED
from tests.peers.gateway import Gateway, run_gateway
from tests.peers.harness import Agent, agent_fixture, run_client

pytestmark = pytest.mark.peers

agent_v10 = agent_fixture("v10")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
TEXT_V03 = {"kind": "message", "messageId": "m-bot", "role": "user", "parts": [{"kind": "text", "text": "echo hi"}]}
TEXT_V10 = {"messageId": "m-ops", "role": "ROLE_USER", "parts": [{"text": "echo hi"}]}


ROOT = Path(__file__).resolve().parents[2]
# the dates the page shows: what an operator planning the end of v0.3 sets (the feature under test)
DATES = {"A2A_GATEWAY_MIGRATION_DEPRECATION": "2026-06-30", "A2A_GATEWAY_MIGRATION_SUNSET": "2027-06-30",
         "A2A_GATEWAY_MIGRATION_CUTOFF": "2027-12-31"}


@pytest.fixture(scope="module")
def gateway(agent_v10: Agent) -> Iterator[Gateway]:
    with run_gateway(agent_v10.base_url, env=DATES) as gw:
        yield gw


def _post_unnamed(gateway: Gateway, body: Any) -> Any:
    """A request without the caller header (User-Agent): http.client sends none unless told."""
    conn = http.client.HTTPConnection("127.0.0.1", gateway.port, timeout=20)
    try:
        conn.request("POST", "/", body=json.dumps(body), headers={"Content-Type": "application/json"})
        return json.loads(conn.getresponse().read())
    finally:
        conn.close()


def _post(url: str, body: Any, headers: dict[str, str]) -> Any:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", **headers})
    with urllib.request.urlopen(request, timeout=20) as resp:
        return json.load(resp)


def _traffic(gateway: Gateway) -> None:
    for i in range(3):   # a v0.3 JSON-RPC caller named by its User-Agent
        reply = _post(gateway.base_url + "/", {"jsonrpc": "2.0", "id": i, "method": "message/send",
                                               "params": {"message": {**TEXT_V03, "messageId": f"m-bot-{i}"}}},
                      {"User-Agent": "billing-bot/2.1"})
        assert reply["result"]["status"]["state"] == "completed", reply
    reply = _post(gateway.base_url + "/message:send", {"message": TEXT_V10},   # a v1.0 HTTP+JSON caller
                  {"User-Agent": "ops-console/1.0", "A2A-Version": "1.0"})
    assert reply["task"]["status"]["state"] == "TASK_STATE_COMPLETED", reply
    result = run_client("v03", gateway.base_url, "send_text")   # a real a2a-sdk 0.3 client
    assert result["ok"], result
    # without a caller name, and with a member v0.3 does not define (dropped: a translation note)
    reply = _post_unnamed(gateway, {"jsonrpc": "2.0", "id": 9, "method": "message/send",
                                    "params": {"message": {**TEXT_V03, "messageId": "m-anon", "x-trace": 1}}})
    assert reply["result"]["status"]["state"] == "completed", reply


def test_migration_json_names_each_caller(gateway: Gateway) -> None:
    _traffic(gateway)
    with urllib.request.urlopen(gateway.admin_url + "/migration", timeout=10) as resp:
        data = json.load(resp)
    callers = {c["caller"]: c for c in data["callers"]}
    assert callers["billing-bot/2.1"]["versions"] == ["0.3"] and callers["billing-bot/2.1"]["total"] == 3
    assert callers["ops-console/1.0"]["versions"] == ["1.0"]
    assert callers["ops-console/1.0"]["by"][0]["binding"] == "HTTP+JSON"
    sdk = [c for name, c in callers.items() if name.startswith("python-httpx")]
    assert sdk and sdk[0]["still_v03"], callers.keys()
    assert "billing-bot/2.1" in data["still_v03"] and "ops-console/1.0" not in data["still_v03"]
    assert data["agents"]["default"]["interfaces"][0]["status"] == "verified"
    assert "(none)" not in callers and [(u["client_version"], u["total"]) for u in data["unnamed"]] == [("0.3", 1)]
    assert data["policy"]["sunset"] == "Wed, 30 Jun 2027 00:00:00 GMT" and not data["policy"]["cutoff_in_force"]


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (make test installs it with apt-get as root)")
def test_the_page_in_headless_chromium(gateway: Gateway, tmp_path_factory: pytest.TempPathFactory) -> None:
    assert CHROMIUM is not None
    with urllib.request.urlopen(gateway.admin_url + "/migration", timeout=10) as resp:
        if not json.load(resp)["callers"]:   # run alone: make the traffic first
            _traffic(gateway)
    out = tmp_path_factory.mktemp("migration-page")
    profile = out / "profile"
    common = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--no-first-run", f"--user-data-dir={profile}", "--window-size=1280,1100"]
    dom = subprocess.run([*common, "--dump-dom", gateway.admin_url + "/"], capture_output=True, text=True,
                         timeout=90)
    assert dom.returncode == 0, dom.stderr[-2000:]
    page = dom.stdout
    assert "Migration from A2A 0.3 to 1.0" in page
    for caller in ("billing-bot/2.1", "ops-console/1.0"):
        assert caller in page, page[:3000]
    row = page[page.index("<td>billing-bot/2.1</td>"):]   # its row in the callers' table
    row = row[:row.index("</tr>")]
    assert "0.3" in row and "JSONRPC: 3" in row and '<td class="n">3</td>' in row, row   # counts right-aligned
    assert "still speak A2A 0.3" in page
    unnamed = page[page.index("Requests without a caller name"):]
    assert "User-Agent" in unnamed[:200] and '<td>0.3</td><td class="n">1</td>' in unnamed, unnamed[:1500]
    for date in ("Tue, 30 Jun 2026", "Wed, 30 Jun 2027", "Fri, 31 Dec 2027"):
        assert date in page
    notes = page[page.index("Translation notes"):]
    assert "<code>dropped_unknown_member</code>" in notes and EXPLAINED["dropped_unknown_member"] in notes, notes
    shot = out / "migration-page.png"
    done = subprocess.run([*common, f"--screenshot={shot}", gateway.admin_url + "/"], capture_output=True,
                          text=True, timeout=90)
    assert done.returncode == 0 and shot.exists() and shot.stat().st_size > 5000, done.stderr[-2000:]
    print(f"migration page screenshot: {shot}")
    Path(shot).with_suffix(".html").write_text(page, encoding="utf-8")
    if os.environ.get("UPDATE_DOCS_ASSETS") == "1":   # the picture the documentation shows
        (ROOT / "docs" / "assets").mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, ROOT / "docs" / "assets" / "migration-page.png")
