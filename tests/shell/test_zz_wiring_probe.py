from typing import Any
from gateway.core import jsoncodec
from tests.shell.test_push_relay import gateway, V10_TASK, V03_TASK, hook_factory  # noqa: F401

async def test_probe(fake_agent_factory, gateway_factory, hook_factory) -> None:
    fake, hook = await fake_agent_factory("1.0"), await hook_factory()
    gw = await gateway(gateway_factory, fake.url)
    cfg = {"taskId": "t1", "pushNotificationConfig": {"id": "cfg-1", "url": hook.url, "token": "T",
           "authentication": {"schemes": ["Bearer"], "credentials": "x"}}}
    fake.reply_json("CreateTaskPushNotificationConfig", {"id": "cfg-1", "taskId": "t1", "url": "PLACEHOLDER"})
    resp = await gw.post("/", data=jsoncodec.dumpb({"jsonrpc": "2.0", "id": 1, "method": "tasks/pushNotificationConfig/set", "params": cfg}),
                         headers={"Content-Type": "application/json"})
    print(resp.status, await resp.text())
    (rec,) = fake.calls("CreateTaskPushNotificationConfig")
    print(rec.params)
