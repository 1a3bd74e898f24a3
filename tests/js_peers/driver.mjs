// Drives the real @a2a-js/sdk 0.3 client (installed by tests/node.py) over its HTTP+JSON transport:
// node driver.mjs <install dir>   with the scenario as JSON on stdin:
//   {"cardUrl": "...", "bytes": "<base64 of the file's content>", "mimeType": "...", "name": "..."}
// It reads the card, picks the interface the card offers for HTTP+JSON, and sends one "echo" message
// carrying a text part and a file part with those bytes, once with message:send and once with
// message:stream (blocking, so the echo comes back in the reply). Prints one JSON line: the SDK's version, the REST url used, and for each call the
// file parts (bytes, mimeType, name) of every message and artifact the client received, or the error.
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(path.join(path.resolve(process.argv[2]), "package.json"));
const { RestTransport } = require("@a2a-js/sdk/client");
import { readFileSync } from "node:fs";
const sdkVersion = JSON.parse(readFileSync(
  path.join(path.resolve(process.argv[2]), "node_modules", "@a2a-js", "sdk", "package.json"), "utf8")).version;

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

function fileParts(object) {
  const found = [];
  const visit = (parts) => {
    for (const part of parts ?? []) {
      if (part.kind === "file") found.push({ bytes: part.file.bytes, uri: part.file.uri,
                                             mimeType: part.file.mimeType, name: part.file.name });
    }
  };
  if (object.kind === "message") visit(object.parts);
  if (object.kind === "task") {
    visit(object.status?.message?.parts);
    for (const entry of object.history ?? []) if (entry.role === "agent") visit(entry.parts);
    for (const artifact of object.artifacts ?? []) visit(artifact.parts);
  }
  if (object.kind === "artifact-update") visit(object.artifact?.parts);
  if (object.kind === "status-update") visit(object.status?.message?.parts);
  return found;
}

function message(scenario, id) {
  return {
    kind: "message", role: "user", messageId: id,
    parts: [
      { kind: "text", text: "echo" },
      { kind: "file", file: { bytes: scenario.bytes, mimeType: scenario.mimeType, name: scenario.name } },
    ],
  };
}

async function attempt(fn) {
  try {
    return await fn();
  } catch (error) {
    return { error: String(error?.message ?? error) };
  }
}

const scenario = await readStdin();
const card = await (await fetch(scenario.cardUrl)).json();
const rest = [{ url: card.url, transport: card.preferredTransport }, ...(card.additionalInterfaces ?? [])]
  .find((i) => i.transport === "HTTP+JSON");
if (!rest) throw new Error("the card offers no HTTP+JSON interface: " + JSON.stringify(card));
const transport = new RestTransport({ endpoint: rest.url });
const send = await attempt(async () => {
  const result = await transport.sendMessage({
    message: message(scenario, "js-send-1"), configuration: { blocking: true },
  });
  return { kind: result.kind, files: fileParts(result) };
});
const stream = await attempt(async () => {
  const files = [], kinds = [];
  for await (const event of transport.sendMessageStream({ message: message(scenario, "js-stream-1") })) {
    kinds.push(event.kind);
    files.push(...fileParts(event));
  }
  return { kinds, files };
});
console.log(JSON.stringify({ sdkVersion, restUrl: rest.url, send, stream }));
