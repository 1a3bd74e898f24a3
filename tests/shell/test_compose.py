"""shell.carrier.compose end to end over loopback, v1.0 clients in front of scripted v0.3 agents: ListTasks from the
task index (scoped, refreshed by GetTask, paged), SubscribeToTask composed (Task first, terminal and unknown
tasks refused), a push config got by id checked, the content-type rule of both doors, and a blocking send an
agent answered at once read again until it settled."""

from __future__ import annotations

from typing import Any

from gateway.core import jsoncodec

V10 = {"A2A-Version": "1.0", "Content-Type": "application/json"}
ALICE, BOB = {"Authorization": "Bearer alice"}, {"Authorization": "Bearer bob"}


def v03_task(task_id: str, state: str = "working", history: int = 0, context: str = "c1") -> dict[str, Any]:
    task: dict[str, Any] = {"kind": "task", "id": task_id, "contextId": context, "status": {"state": state}}
    if history:
        task["history"] = [{"kind": "message", "messageId": f"m{i}", "role": "user",
                            "parts": [{"kind": "text", "text": str(i)}]} for i in range(history)]
    task["artifacts"] = [{"artifactId": "a1", "parts": [{"kind": "text", "text": "out"}]}]
    return task


def send(text: str = "hi") -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": {
        "messageId": "m", "role": "ROLE_USER", "parts": [{"text": text}]}}}


async def rpc(client: Any, payload: dict[str, Any], **headers: str) -> Any:
    resp = await client.post("/", data=jsoncodec.dumpb(payload), headers={**V10, **headers})
    assert resp.status == 200
    return await resp.json()


def call(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 9, "method": method, "params": params}


def sse_items(body: bytes) -> list[Any]:
    return [jsoncodec.loads(line[5:]) for line in body.split(b"\n") if line.startswith(b"data:")]


async def test_list_tasks_answers_from_what_the_gateway_saw(fake_agent_factory, gateway_factory) -> None:
    fake = await fake_agent_factory("0.3")
    fake.reply_json("message/send", v03_task("t1")).reply_json("message/send", v03_task("t2"))
    fake.reply_json("message/send", v03_task("t3"))
    client = await gateway_factory(fake.url)
    await rpc(client, send(), **ALICE)
    await rpc(client, send(), **BOB)
    await rpc(client, send(), **BOB)
    fake.reply_json("tasks/get", v03_task("t1", "completed", history=3))
    body = await rpc(client, call("ListTasks", {"historyLength": 1}), **ALICE)
    result = body["result"]
    assert [t["id"] for t in result["tasks"]] == ["t1"]
    assert result["nextPageToken"] == "" and result["pageSize"] == 50 and result["totalSize"] == 1
    task = result["tasks"][0]
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"   # refreshed by GetTask
    assert "artifacts" not in task and len(task["history"]) == 1   # asked without artifacts, history cut
    (refresh,) = fake.calls("tasks/get")
    assert refresh.params == {"id": "t1", "historyLength": 1}
    assert refresh.headers["Authorization"] == "Bearer alice"   # with the caller's own credentials
    bob = await rpc(client, call("ListTasks", {}), **BOB)
    assert bob["result"]["totalSize"] == 2 and len(bob["result"]["tasks"]) == 2
    nobody = await rpc(client, call("ListTasks", {}))
    assert nobody["result"] == {"tasks": [], "nextPageToken": "", "pageSize": 50, "totalSize": 0}


async def test_list_tasks_filters_pages_and_forgets_over_rest(fake_agent_factory, gateway_factory) -> None:
    fake = await fake_agent_factory("0.3")
    for i in range(3):
        fake.reply_json("message/send", v03_task(f"t{i}", "completed", context=f"c{i % 2}"))
    client = await gateway_factory(fake.url)
    for _ in range(3):
        await rpc(client, send())
    fake.reply_json("tasks/get", v03_task("t2", "completed", context="c0"))   # the newest first: t2, then t0
    fake.reply_json("tasks/get", error={"code": -32001, "message": "Task not found"})
    resp = await client.get("/tasks", params={"contextId": "c0", "pageSize": "1", "includeArtifacts": "true"},
                            headers={"A2A-Version": "1.0"})
    assert resp.status == 200, await resp.text()
    first = await resp.json()
    assert [t["id"] for t in first["tasks"]] == ["t2"] and first["nextPageToken"] and first["totalSize"] == 2
    assert first["tasks"][0]["artifacts"]
    resp = await client.get("/tasks", params={"contextId": "c0", "pageSize": "1", "pageToken": first["nextPageToken"]},
                            headers={"A2A-Version": "1.0"})
    second = await resp.json()
    assert second["tasks"] == [] and second["nextPageToken"] == ""   # the agent forgot it: not listed
    assert [c.params["id"] for c in fake.calls("tasks/get")] == ["t2", "t0"]   # the order held between pages
    resp = await client.get("/tasks", params={"pageSize": "0"}, headers={"A2A-Version": "1.0"})
    assert resp.status == 400 and (await resp.json())["error"]["details"][0]["reason"] == "INVALID_PARAMS"


async def test_listing_keeps_its_order_when_the_agent_sends_no_timestamps(fake_agent_factory,
                                                                          gateway_factory) -> None:
    """a2a-sdk 0.3's HTTP+JSON binding sends no status timestamp: a task is placed by when the gateway first saw
    its state, not re-placed by every read (a listing's own refreshes would reorder the next page)."""
    fake = await fake_agent_factory("0.3")
    fake.reply_json("message/send", v03_task("t0", "completed")).reply_json("message/send", v03_task("t1", "completed"))
    client = await gateway_factory(fake.url)
    await rpc(client, send())
    await rpc(client, send())
    fake.reply_json("tasks/get", v03_task("t1", "completed")).reply_json("tasks/get", v03_task("t0", "completed"))
    listed = await rpc(client, call("ListTasks", {}))
    assert [t["id"] for t in listed["result"]["tasks"]] == ["t1", "t0"]   # newest first
    first = await rpc(client, call("ListTasks", {"pageSize": 1}))   # the refreshes read them again: same order
    assert first["result"]["totalSize"] == 2 and fake.calls("tasks/get")[-1].params["id"] == "t1"


async def test_subscribe_opens_with_the_task_and_ends_at_the_terminal_state(fake_agent_factory,
                                                                           gateway_factory) -> None:
    fake = await fake_agent_factory("0.3")
    fake.reply_json("tasks/get", v03_task("t1", history=2))
    update = {"kind": "status-update", "taskId": "t1", "contextId": "c1", "final": False,
              "status": {"state": "working"}}
    done = {**update, "final": True, "status": {"state": "completed"}}
    fake.reply_sse("tasks/resubscribe", [update, done, update], then="hang")
    client = await gateway_factory(fake.url)
    resp = await client.post("/", data=jsoncodec.dumpb(call("SubscribeToTask", {"id": "t1"})), headers=V10)
    assert resp.status == 200 and resp.content_type == "text/event-stream"
    items = [e["result"] for e in sse_items(await resp.read())]
    assert list(items[0]) == ["task"] and len(items[0]["task"]["history"]) == 2   # GetTask's Task first
    assert [list(i) for i in items[1:]] == [["statusUpdate"], ["statusUpdate"]]
    assert items[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"   # and nothing after it
    listed = await rpc(client, call("ListTasks", {}))
    assert [t["id"] for t in listed["result"]["tasks"]] == ["t1"]   # seen while subscribing


async def test_subscribe_refusals(fake_agent_factory, gateway_factory) -> None:
    fake = await fake_agent_factory("0.3")
    fake.reply_json("tasks/get", v03_task("t1", "completed")).reply_json("tasks/get", v03_task("t1", "completed"))
    fake.reply_json("tasks/get", error={"code": -32001, "message": "Task not found"})
    client = await gateway_factory(fake.url)
    body = await rpc(client, call("SubscribeToTask", {"id": "t1"}))
    assert body["id"] == 9 and body["error"]["code"] == -32004   # terminal: UnsupportedOperation
    resp = await client.get("/tasks/t1:subscribe", headers={"A2A-Version": "1.0"})
    assert resp.status == 400 and (await resp.json())["error"]["details"][0]["reason"] == "UNSUPPORTED_OPERATION"
    body = await rpc(client, call("SubscribeToTask", {"id": "nope"}))
    assert body["error"]["code"] == -32001
    assert not fake.calls("tasks/resubscribe")


async def test_subscribe_follows_a_task_the_agent_no_longer_streams(fake_agent_factory, gateway_factory) -> None:
    """a2a-sdk 0.3 has no live events for an input-required task (it answers TaskNotFound): the Task as it is
    now first, then the gateway reads it again until its state changes, and ends at the terminal state."""
    fake = await fake_agent_factory("0.3")
    for state in ("input-required", "input-required", "input-required", "working", "completed"):
        fake.reply_json("tasks/get", v03_task("t1", state))
    fake.reply_json("tasks/resubscribe", error={"code": -32001, "message": "Task not found"})
    client = await gateway_factory(fake.url)
    resp = await client.post("/", data=jsoncodec.dumpb(call("SubscribeToTask", {"id": "t1"})), headers=V10)
    items = [i["result"] for i in sse_items(await resp.read())]
    assert items[0]["task"]["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    assert [i["statusUpdate"]["status"]["state"] for i in items[1:]] == ["TASK_STATE_WORKING", "TASK_STATE_COMPLETED"]
    assert all(i["statusUpdate"]["taskId"] == "t1" for i in items[1:])
    assert len(fake.calls("tasks/get")) == 5   # read again after the refusal, then until it ended


def v03_config(config_id: str) -> dict[str, Any]:
    return {"taskId": "t1", "pushNotificationConfig": {"id": config_id, "url": f"https://hooks.example/{config_id}"}}


async def test_push_config_get_never_answers_another_config(fake_agent_factory, gateway_factory) -> None:
    fake = await fake_agent_factory("0.3")
    fake.reply_json("tasks/pushNotificationConfig/get", v03_config("first"))
    fake.reply_json("tasks/pushNotificationConfig/list", [v03_config("first"), v03_config("second")])
    client = await gateway_factory(fake.url, push__enabled=False)
    body = await rpc(client, call("GetTaskPushNotificationConfig", {"taskId": "t1", "id": "second"}))
    assert body["result"]["id"] == "second" and body["result"]["url"] == "https://hooks.example/second"
    body = await rpc(client, call("GetTaskPushNotificationConfig", {"taskId": "t1", "id": "first"}))
    assert body["result"]["id"] == "first"
    body = await rpc(client, call("GetTaskPushNotificationConfig", {"taskId": "t1", "id": "third"}))
    assert body["error"]["code"] == -32001 and "third" in body["error"]["message"]


async def test_wrong_content_type(fake_agent_factory, gateway_factory) -> None:
    fake = await fake_agent_factory("0.3")
    fake.reply_json("message/send", v03_task("t1"))
    client = await gateway_factory(fake.url)
    for data in (jsoncodec.dumpb(send()), b"<xml/>"):
        resp = await client.post("/", data=data, headers={**V10, "Content-Type": "text/plain"})
        body = await resp.json()
        assert body["error"]["code"] == -32005 and "content type" in body["error"]["message"].lower()
    # the version declared in the query parameter instead (S10 §3.6.1) is the same caller
    resp = await client.post("/?A2A-Version=1.0", data=b"<xml/>", headers={"Content-Type": "text/plain"})
    assert (await resp.json())["error"]["code"] == -32005
    resp = await client.post("/", data=b"<xml/>", headers={"Content-Type": "text/plain"})
    assert (await resp.json())["error"]["code"] == -32700   # no version declared: a v0.3 caller's parse error
    v03 = {"jsonrpc": "2.0", "id": 2, "method": "message/send", "params": {"message": {
        "kind": "message", "messageId": "m", "role": "user", "parts": [{"kind": "text", "text": "hi"}]}}}
    resp = await client.post("/", data=jsoncodec.dumpb(v03), headers={"Content-Type": "text/plain"})
    assert (await resp.json())["result"]["id"] == "t1"   # a v0.3 caller keeps its version's answer
    resp = await client.post("/message:send", data=jsoncodec.dumpb(send()["params"]),
                             headers={"A2A-Version": "1.0", "Content-Type": "text/plain"})
    assert resp.status == 415
    assert (await resp.json())["error"]["details"][0]["reason"] == "CONTENT_TYPE_NOT_SUPPORTED"
    assert len(fake.calls("message/send")) == 1


async def test_push_config_calls_are_refused_when_the_card_has_no_push(fake_agent_factory, gateway_factory) -> None:
    """a2a-sdk 0.3 answers -32603 for an agent without push; v1.0 says PushNotificationNotSupportedError."""
    fake = await fake_agent_factory("0.3")
    card = dict(fake.card)
    fake.card_override = {**card, "capabilities": {**card.get("capabilities", {}), "pushNotifications": False}}
    client = await gateway_factory(fake.url)
    body = await rpc(client, call("CreateTaskPushNotificationConfig", {"taskId": "t1", "url": "https://h.example/"}))
    assert body["error"]["code"] == -32003
    resp = await client.get("/tasks/t1/pushNotificationConfigs", headers={"A2A-Version": "1.0"})
    assert resp.status == 400
    assert (await resp.json())["error"]["details"][0]["reason"] == "PUSH_NOTIFICATION_NOT_SUPPORTED"
    assert not fake.calls("tasks/pushNotificationConfig/set") and not fake.calls("tasks/pushNotificationConfig/list")


async def test_history_limits_hold_both_ways(fake_agent_factory, gateway_factory) -> None:
    """historyLength is kept whatever the agent sends: a v1.0 caller's limit in front of a v0.3 agent, a v0.3
    caller's positive one in front of a v1.0 agent (its 0 means "all" in v0.3, so no limit is sent)."""
    v03 = await fake_agent_factory("0.3")
    v03.reply_json("tasks/get", v03_task("t1", history=3))
    body = await rpc(await gateway_factory(v03.url), call("GetTask", {"id": "t1", "historyLength": 1}))
    assert [m["messageId"] for m in body["result"]["history"]] == ["m2"]
    v10 = await fake_agent_factory("1.0")
    v10.reply_json("GetTask", {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"},
                               "history": [{"messageId": f"m{i}", "role": "ROLE_USER", "parts": [{"text": "x"}]}
                                           for i in range(3)]})
    client = await gateway_factory(v10.url)
    for limit, expected in ((2, ["m1", "m2"]), (0, ["m0", "m1", "m2"])):
        resp = await client.post("/", data=jsoncodec.dumpb({"jsonrpc": "2.0", "id": 1, "method": "tasks/get",
                                                             "params": {"id": "t1", "historyLength": limit}}),
                                 headers={"Content-Type": "application/json"})
        assert [m["messageId"] for m in (await resp.json())["result"]["history"]] == expected
    assert [c.params.get("historyLength") for c in v10.calls("GetTask")] == [2, None]


# ---- a blocking send answered at once (fasta2a) ------------------------------------------------------------

def v10_task(task_id: str, state: str, history: int = 0) -> dict[str, Any]:
    task: dict[str, Any] = {"id": task_id, "contextId": "c1", "status": {"state": state}}
    if history:
        task["history"] = [{"messageId": f"m{i}", "role": "ROLE_USER", "parts": [{"text": str(i)}]}
                           for i in range(history)]
    return task


async def test_a_blocking_send_answered_just_submitted_is_answered_once_settled(fake_agent_factory,
                                                                                 gateway_factory) -> None:
    """Same version and binding (the pass-through): the agent's `submitted` task is read again until it is
    terminal, with the caller's credentials and history limit, and that is the send's result."""
    fake = await fake_agent_factory("1.0")
    fake.reply_json("SendMessage", {"task": v10_task("t1", "TASK_STATE_SUBMITTED")})
    fake.reply_json("GetTask", v10_task("t1", "TASK_STATE_WORKING"))
    fake.reply_json("GetTask", v10_task("t1", "TASK_STATE_COMPLETED", history=3))
    client = await gateway_factory(fake.url)
    payload = send()
    payload["params"]["configuration"] = {"historyLength": 1}
    body = await rpc(client, payload, **ALICE)
    assert body["id"] == 1
    assert body["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED", body
    assert [m["messageId"] for m in body["result"]["task"]["history"]] == ["m2"]
    reads = fake.calls("GetTask")
    assert len(reads) == 2 and reads[0].params == {"id": "t1", "historyLength": 1}
    assert reads[0].headers["Authorization"] == "Bearer alice"


async def test_a_v03_caller_gets_the_settled_task_in_its_shapes(fake_agent_factory, gateway_factory) -> None:
    fake = await fake_agent_factory("1.0")
    fake.reply_json("SendMessage", {"task": v10_task("t1", "TASK_STATE_SUBMITTED")})
    fake.reply_json("GetTask", v10_task("t1", "TASK_STATE_INPUT_REQUIRED"))   # interrupted: settled too
    client = await gateway_factory(fake.url)
    v03 = {"jsonrpc": "2.0", "id": 5, "method": "message/send", "params": {"message": {
        "kind": "message", "messageId": "m", "role": "user", "parts": [{"kind": "text", "text": "hi"}]}}}
    resp = await client.post("/", data=jsoncodec.dumpb(v03), headers={"Content-Type": "application/json"})
    body = await resp.json()
    assert body["result"]["kind"] == "task" and body["result"]["status"]["state"] == "input-required", body
    assert len(fake.calls("GetTask")) == 1


async def test_a_rest_caller_of_a_jsonrpc_agent_gets_the_settled_task(fake_agent_factory, gateway_factory) -> None:
    fake = await fake_agent_factory("1.0")
    fake.reply_json("SendMessage", {"task": v10_task("t1", "TASK_STATE_SUBMITTED")})
    fake.reply_json("GetTask", v10_task("t1", "TASK_STATE_COMPLETED"))
    client = await gateway_factory(fake.url)
    resp = await client.post("/message:send", data=jsoncodec.dumpb(send()["params"]),
                             headers={"A2A-Version": "1.0", "Content-Type": "application/a2a+json"})
    body = await resp.json()
    assert resp.status == 200 and body["task"]["status"]["state"] == "TASK_STATE_COMPLETED", body


async def test_what_the_gateway_does_not_wait_on(fake_agent_factory, gateway_factory) -> None:
    """A caller that asked not to wait, an agent that answered `working` (its own choice: a2a-sdk does when
    its executor leaves the task so), and a task that cannot be read again: the agent's reply as it was."""
    fake = await fake_agent_factory("1.0")
    fake.reply_json("SendMessage", {"task": v10_task("t1", "TASK_STATE_SUBMITTED")})
    fake.reply_json("GetTask", error={"code": -32001, "message": "Task not found"})
    client = await gateway_factory(fake.url)
    quick = send()
    quick["params"]["configuration"] = {"returnImmediately": True}
    assert (await rpc(client, quick))["result"]["task"]["status"]["state"] == "TASK_STATE_SUBMITTED"
    assert fake.calls("GetTask") == []
    assert (await rpc(client, send()))["result"]["task"]["status"]["state"] == "TASK_STATE_SUBMITTED"
    assert len(fake.calls("GetTask")) == 1   # read once, it failed: the agent's own reply
    working = await fake_agent_factory("1.0")
    working.reply_json("SendMessage", {"task": v10_task("t2", "TASK_STATE_WORKING")})
    other = await gateway_factory(working.url)
    assert (await rpc(other, send()))["result"]["task"]["status"]["state"] == "TASK_STATE_WORKING"
    assert working.calls("GetTask") == []


async def test_an_agent_that_leaves_tasks_submitted_is_waited_on_once(fake_agent_factory, gateway_factory) -> None:
    """A queue that leaves a blocking send's task submitted (its workers take it later, told by push): waited
    on until the unary deadline once, the agent's own reply then; its later sends are answered at once."""
    fake = await fake_agent_factory("1.0")
    fake.reply_json("SendMessage", {"task": v10_task("t1", "TASK_STATE_SUBMITTED")})
    fake.reply_json("GetTask", v10_task("t1", "TASK_STATE_SUBMITTED"))
    client = await gateway_factory(fake.url, upstream__timeout__total_unary=0.4)
    assert (await rpc(client, send()))["result"]["task"]["status"]["state"] == "TASK_STATE_SUBMITTED"
    reads = len(fake.calls("GetTask"))
    assert reads >= 2   # 20 ms, 40, 80, 160 ms: read again until the deadline
    assert (await rpc(client, send()))["result"]["task"]["status"]["state"] == "TASK_STATE_SUBMITTED"
    assert len(fake.calls("GetTask")) == reads   # not waited on again
