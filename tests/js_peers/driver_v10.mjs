// Drives the real @a2a-js/sdk 1.x client (installed by tests/node.py) in native v1.0 mode:
// node driver_v10.mjs <install dir>   with the scenario as JSON on stdin:
//   {"baseUrl": "...", "transport": "JSONRPC" | "HTTP+JSON"}
// The SDK's ClientFactory reads the card and picks the v1.0 interface of that binding. Against the test
// agent's script (tests/peers/peer_common.py) it sends two "echo" messages in a fresh context, reads an
// "ask"/"answer" task (of its own context) back with each historyLength, streams "stream 3", lists the
// context's tasks (all, paged by one, completed only), subscribes to a "slow" task sent with returnImmediately, and subscribes to a finished task (an
// error). Prints one JSON line: the SDK's version and each step's outcome, or its error.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import path from "node:path";

const installed = path.resolve(process.argv[2]);
const require = createRequire(path.join(installed, "package.json"));
const { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, RestTransportFactory } =
  await import(require.resolve("@a2a-js/sdk/client"));
const { TaskState, Role } = await import(require.resolve("@a2a-js/sdk"));
const sdkVersion = JSON.parse(readFileSync(
  path.join(installed, "node_modules", "@a2a-js", "sdk", "package.json"), "utf8")).version;

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

async function step(fn) {
  try {
    return await fn();
  } catch (error) {
    return { error: { type: error?.constructor?.name, code: error?.code, message: String(error?.message ?? error) } };
  }
}

const stateName = (state) => TaskState[state] ?? String(state);
const kind = (event) => event.payload?.$case;

function message(text, contextId = "", taskId = "") {
  return { messageId: randomUUID(), role: Role.ROLE_USER, contextId, taskId,
           parts: [{ content: { $case: "text", value: text } }] };
}

function asTask(result) {
  if (!result || !("status" in result)) throw new Error("expected a Task, got " + JSON.stringify(result));
  return result;
}

const scenario = await readStdin();
const factory = new ClientFactory({
  ...ClientFactoryOptions.default,
  transports: [new JsonRpcTransportFactory(), new RestTransportFactory()],
  preferredTransports: [scenario.transport],
});
const client = await factory.createFromUrl(scenario.baseUrl);
const contextId = `js-ctx-${randomUUID()}`;
const out = { sdkVersion, transport: client.transport?.constructor?.name, contextId };

out.send = await step(async () => {
  const tasks = [];
  for (const text of ["echo one", "echo two"]) {
    tasks.push(asTask(await client.sendMessage({ message: message(text, contextId) })));
  }
  return { ids: tasks.map((t) => t.id), states: tasks.map((t) => stateName(t.status.state)) };
});
const created = out.send.ids ?? [];

out.history = await step(async () => {
  const asked = asTask(await client.sendMessage({ message: message("ask", `${contextId}-history`) }));
  await client.sendMessage({ message: message("answer 7", asked.contextId, asked.id) });
  const counts = {};
  for (const limit of [undefined, 0, 1]) {
    const task = await client.getTask(limit === undefined ? { id: asked.id } : { id: asked.id, historyLength: limit });
    counts[String(limit)] = task.history.length;
  }
  return counts;
});

out.stream = await step(async () => {
  const kinds = [], states = [];
  for await (const event of client.sendMessageStream({ message: message("stream 3") })) {
    kinds.push(kind(event));
    const value = event.payload?.value;
    if (value?.status) states.push(stateName(value.status.state));
  }
  return { kinds, last: states.at(-1) };
});

out.list = await step(async () => {
  const all = await client.listTasks({ contextId });
  const page1 = await client.listTasks({ contextId, pageSize: 1 });
  const page2 = await client.listTasks({ contextId, pageSize: 1, pageToken: page1.nextPageToken });
  const done = await client.listTasks({ contextId, status: TaskState.TASK_STATE_COMPLETED, historyLength: 1 });
  return {
    ids: all.tasks.map((t) => t.id), total: all.totalSize, next: all.nextPageToken,
    pages: [page1.tasks.map((t) => t.id), page2.tasks.map((t) => t.id)], last: page2.nextPageToken,
    completed: done.tasks.map((t) => t.id), history: done.tasks.map((t) => t.history.length),
  };
});

out.subscribe = await step(async () => {
  const started = asTask(await client.sendMessage({
    message: message("slow 2 0.5"), configuration: { returnImmediately: true, acceptedOutputModes: [] } }));
  const kinds = [], states = [];
  for await (const event of client.resubscribeTask({ id: started.id })) {
    kinds.push(kind(event));
    const value = event.payload?.value;
    if (value?.status) states.push(stateName(value.status.state));
  }
  return { kinds, last: states.at(-1) };
});

out.subscribeFinished = await step(async () => {
  const events = [];
  for await (const event of client.resubscribeTask({ id: created[0] })) events.push(kind(event));
  return { events };
});

console.log(JSON.stringify(out));
