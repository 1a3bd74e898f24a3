"""Owns the real langgraph-api test agent (LangGraph's own A2A implementation, no a2a-sdk): `langgraph dev` (the
in-memory server, offline: no browser, reload, tracing, version check or persistence) serving a deterministic
graph of LangGraph's own kind that follows peer_common's grammar as far as langgraph's A2A carries it; no LLM."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import peer_common as common
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import interrupt

GRAPH_ID = "agent"
# the assistant `langgraph dev` makes of each graph is named uuid5(its graph namespace, graph id)
GRAPH_NAMESPACE = uuid.UUID("6ba7b821-9dad-11d1-80b4-00c04fd430c8")
ASSISTANT_ID = str(uuid.uuid5(GRAPH_NAMESPACE, GRAPH_ID))
READY_POLL_S, READY_TIMEOUT_S = 0.1, 60.0
QUESTION = "What is the answer?"


def _text(content: Any) -> str:
    """The first text of a message's content (a string, or LangChain content blocks)."""
    if isinstance(content, str):
        return content
    return next((b["text"] for b in content if isinstance(b, dict) and b.get("type") == "text"), "")


def _last_human(messages: list[AnyMessage]) -> HumanMessage:
    return next(m for m in reversed(messages) if isinstance(m, HumanMessage))


def respond(state: MessagesState) -> dict[str, list[AnyMessage]]:
    """Picks a behaviour from the first text of the caller's last message (peer_common's grammar)."""
    said = _last_human(state["messages"])
    command, args = common.parse_command(_text(said.content))
    if command == "stream":  # each message a node writes is an event of langgraph's `messages` stream mode
        count = common.int_arg(args, 0, common.STREAM_CHUNKS)
        return {"messages": [AIMessage(content=f"chunk {i}") for i in range(count)]}
    if command == "ask":  # the run stops at the interrupt (input-required); a reply to the task resumes it
        answer = str(interrupt(QUESTION))
        _, words = common.parse_command(answer)
        return {"messages": [AIMessage(content="got " + " ".join(words))]}
    if command == "fail":
        raise RuntimeError("scripted failure")
    # echo (and anything else): the caller's content back, text and files (langgraph answers no plain data part)
    return {"messages": [AIMessage(content=said.content)]}


builder = StateGraph(MessagesState)
builder.add_node("respond", respond)
builder.add_edge(START, "respond")
builder.add_edge("respond", END)
graph = builder.compile()


# ---- the launcher ------------------------------------------------------------------------------------


def _announce_when_ready(port: int, stop: threading.Event) -> None:
    """Print `READY <port>` once the agent card answers (bounded); the server runs in the main thread."""
    url = f"http://127.0.0.1:{port}{common.CARD_PATH}"
    deadline = time.monotonic() + READY_TIMEOUT_S
    while not stop.is_set() and time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as reply:
                if reply.status == 200:
                    print(f"READY {port}", flush=True)
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(READY_POLL_S)


def main() -> None:
    args = common.agent_argparser("langgraph-api test agent").parse_args()
    sock = common.bind(args.host, args.port)  # a free port, released just before langgraph dev binds it
    port = sock.getsockname()[1]
    sock.close()
    workdir = Path(tempfile.mkdtemp(prefix="peer-langgraph-"))
    (workdir / "langgraph.json").write_text(json.dumps({
        "dependencies": ["."], "graphs": {GRAPH_ID: f"{Path(__file__).resolve()}:graph"},
        "disable_persistence": True}))
    os.chdir(workdir)  # where langgraph dev would keep its state (nothing, persistence off)
    os.environ.update({
        "DEFAULT_A2A_ASSISTANT_ID": ASSISTANT_ID,  # the card at the domain root, as other agents serve theirs
        "LANGSMITH_TRACING": "false", "LANGCHAIN_TRACING_V2": "false", "LANGGRAPH_CLI_NO_ANALYTICS": "1",
        "LANGGRAPH_NO_VERSION_CHECK": "true", "LANGSMITH_API_KEY": "", "LANGCHAIN_API_KEY": "",
    })
    stop = threading.Event()
    threading.Thread(target=_announce_when_ready, args=(port, stop), daemon=True).start()
    from langgraph_cli.cli import cli

    sys.argv = ["langgraph", "dev", "--host", args.host, "--port", str(port), "--no-browser", "--no-reload",
                "--config", str(workdir / "langgraph.json")]
    # the harness stops agents with SIGTERM, which langgraph dev leaves to its default (death, no cleanup)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        cli(standalone_mode=False)
    finally:
        stop.set()
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
