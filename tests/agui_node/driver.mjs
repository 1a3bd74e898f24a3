// Drives the real @ag-ui/client (installed by tests/agui_node/install.py) through a scripted conversation:
// node driver.mjs <client install dir>   with the scenario as JSON on stdin:
//   {"url": "...", "threadId": "...", "runs": [{"runId": "...", "message"?: "text", "forwardedProps"?: {...},
//                                                "url"?: "another replica"}]}
// One HttpAgent keeps the thread across runs, as a front end does. Prints one JSON line: per run the events
// (each also checked with @ag-ui/core's EventSchemas), the error the client raised, the agent's messages and
// the client's state after the run.
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(path.join(path.resolve(process.argv[2]), "package.json"));
const { HttpAgent } = require("@ag-ui/client");
// 0.0.x exports the zod union as EventSchemas from the package root; 1.0 as EventSchema from ./schemas
const EventSchemas = (() => {
  try {
    const schemas = require("@ag-ui/core/schemas");
    return schemas.EventSchemas ?? schemas.EventSchema;
  } catch {
    return require("@ag-ui/core").EventSchemas;
  }
})();
const clientVersion = require("@ag-ui/client/package.json").version;

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

function summarize(message) {
  if (message.role === "activity") {
    const ops = message.content?.a2ui_operations ?? [];
    return {
      id: message.id, role: "activity", activityType: message.activityType,
      ops: ops.map((op) => Object.keys(op).find((k) => k !== "version")),
      versions: [...new Set(ops.map((op) => op.version ?? null))],
    };
  }
  return { id: message.id, role: message.role, content: message.content };
}

async function main() {
  const scenario = await readStdin();
  const agent = new HttpAgent({ url: scenario.url, threadId: scenario.threadId });
  const runs = [];
  for (const run of scenario.runs) {
    if (run.url !== undefined) agent.url = run.url;  // the same thread, served by another gateway replica
    if (run.message !== undefined) {
      agent.addMessage({ id: `${run.runId}-user`, role: "user", content: run.message });
    }
    const events = [];
    const invalid = [];
    let error = null;
    try {
      await agent.runAgent({ runId: run.runId, forwardedProps: run.forwardedProps ?? {} }, {
        onEvent: ({ event }) => {
          events.push(event);
          const parsed = EventSchemas.safeParse(event);
          if (!parsed.success) invalid.push({ type: event.type, issues: parsed.error.issues });
        },
      });
    } catch (err) {
      error = String(err?.message ?? err);
    }
    runs.push({
      runId: run.runId, events, invalid, error, messages: agent.messages.map(summarize), state: agent.state,
    });
  }
  process.stdout.write(JSON.stringify({ client: clientVersion, runs }) + "\n");
}

main().catch((err) => {
  process.stderr.write(String(err?.stack ?? err) + "\n");
  process.exit(2);
});
