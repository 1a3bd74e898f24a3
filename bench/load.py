"""A swarm of streams (issue 12): C concurrent `message/stream` calls × N events from a canned v1.0 agent,
straight at the agent and through the gateway on its defaults (pass-through for a v1.0 client, translated
for a v0.3 client), every event checked (lost, duplicated, reordered, corrupt); prints events per CPU-second
and RSS per open stream of the process that carries them. Loopback only, bounded. `python -m bench.load`."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web

from bench.hop import agent_app as canned_agent
from bench.hop import cpu_seconds, free_port, process, ready

MAX_STREAMS, MAX_EVENTS = 5000, 100_000   # the bounds of one run
FILL = "lorem ipsum dolor sit amet " * 3
JSON = {"Content-Type": "application/json", "Accept": "text/event-stream"}
V10 = {**JSON, "A2A-Version": "1.0"}


def text_of(sid: int, seq: int) -> str:
    """The text of artifact chunk `seq` of stream `sid`: what the client expects, byte for byte."""
    return f"s{sid} e{seq} {FILL}"


# ---- the canned agent (its own process, so its CPU and memory are its own) ---------------------------

def _frame(rpc_id: str, result: str) -> bytes:
    return f'data: {{"jsonrpc":"2.0","id":{rpc_id},"result":{result}}}\n\n'.encode()


def agent_app(port: int, events: int, interval: float) -> web.Application:
    """A v1.0 agent: every SendStreamingMessage streams a Task, `working`, `events` text chunks (the stream's
    id, from the message id `m-<sid>`, in each) and `completed`; all at once, or one every `interval` s."""
    async def rpc(request: web.Request) -> web.StreamResponse:
        call = json.loads(await request.read())
        rpc_id, sid = json.dumps(call["id"]), int(call["params"]["message"]["messageId"][2:])
        ids = f'"taskId":"t-{sid}","contextId":"c-{sid}"'
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await resp.prepare(request)
        frames = [_frame(rpc_id, f'{{"task":{{"id":"t-{sid}","contextId":"c-{sid}","status":'
                                 f'{{"state":"TASK_STATE_SUBMITTED"}}}}}}'),
                  _frame(rpc_id, f'{{"statusUpdate":{{{ids},"status":{{"state":"TASK_STATE_WORKING"}}}}}}')]
        for seq in range(events):
            frames.append(_frame(rpc_id, f'{{"artifactUpdate":{{{ids},"append":{json.dumps(seq > 0)},'
                                         f'"lastChunk":{json.dumps(seq == events - 1)},"artifact":{{'
                                         f'"artifactId":"a-{sid}","parts":[{{"text":"{text_of(sid, seq)}"}}]}}}}}}'))
        frames.append(_frame(rpc_id, f'{{"statusUpdate":{{{ids},"status":{{"state":"TASK_STATE_COMPLETED"}}}}}}'))
        if interval <= 0:
            batch = 64   # ~16 KiB writes
            for start in range(0, len(frames), batch):
                await resp.write(b"".join(frames[start:start + batch]))
        else:
            for i, frame in enumerate(frames):
                if i > 1:
                    await asyncio.sleep(interval)
                await resp.write(frame)
        await resp.write_eof()
        return resp

    return canned_agent(port, "canned streaming v1.0 agent", rpc)


def serve_agent(port: int, events: int, interval: float) -> None:
    try:
        import uvloop
        loop: asyncio.AbstractEventLoop | None = uvloop.new_event_loop()
    except ImportError:
        loop = None
    web.run_app(agent_app(port, events, interval), host="127.0.0.1", port=port, access_log=None, print=None,
                backlog=4096, loop=loop)


# ---- one stream, every event checked ------------------------------------------------------------------

@dataclass
class Tally:
    """What the swarm received, summed over its streams."""

    streams: int = 0
    events: int = 0        # every SSE event with data
    chunks: int = 0        # artifact chunks that arrived in order, once, intact
    lost: int = 0
    duplicated: int = 0
    reordered: int = 0
    corrupt: int = 0
    errors: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not (self.lost or self.duplicated or self.reordered or self.corrupt or self.errors)


class Swarm:
    """C streams at one URL; `open` counts those whose reply has begun and not ended."""

    def __init__(self, url: str, v03: bool, streams: int, events: int, pid: int | None = None) -> None:
        self.url, self.v03, self.streams, self.events = url, v03, streams, events
        self.open = 0
        self.most_open, self.rss_at_most = 0, 0   # the RSS of process `pid` when the most were open
        self.pid = pid
        self.tally = Tally()

    def body(self, sid: int) -> bytes:
        if self.v03:
            return json.dumps({"jsonrpc": "2.0", "id": sid, "method": "message/stream", "params": {"message": {
                "kind": "message", "messageId": f"m-{sid}", "role": "user",
                "parts": [{"kind": "text", "text": "go"}]}}}).encode()
        return json.dumps({"jsonrpc": "2.0", "id": sid, "method": "SendStreamingMessage", "params": {"message": {
            "messageId": f"m-{sid}", "role": "ROLE_USER", "parts": [{"text": "go"}]}}}).encode()

    async def run(self, session: aiohttp.ClientSession) -> Tally:
        await asyncio.gather(*(self.one(session, sid) for sid in range(self.streams)))
        return self.tally

    async def one(self, session: aiohttp.ClientSession, sid: int) -> None:
        tally, n = self.tally, self.events
        seen = bytearray(n)
        high, head, done = -1, 0, False
        try:
            async with session.post(self.url, data=self.body(sid), headers=JSON if self.v03 else V10) as resp:
                if resp.status != 200 or resp.content_type != "text/event-stream":
                    tally.errors.append(f"stream {sid}: HTTP {resp.status} {(await resp.read())[:200]!r}")
                    tally.lost += n + 3   # the whole stream
                    tally.streams += 1
                    return
                self.open += 1
                if self.open > self.most_open:
                    self.most_open = self.open
                    if self.pid is not None:
                        self.rss_at_most = rss_bytes(self.pid)
                try:
                    pending = b""
                    async for chunk in resp.content.iter_any():
                        *blocks, pending = (pending + chunk).split(b"\n\n")
                        for block in blocks:
                            if not block.startswith(b"data: "):
                                continue   # a keep-alive comment
                            tally.events += 1
                            kind, seq = self.read(block[6:], sid)
                            if done:
                                tally.errors.append(f"stream {sid}: an event after the terminal one")
                            elif kind == "head":
                                head += 1
                            elif kind == "end":
                                done = True
                            elif kind == "chunk" and 0 <= seq < n:
                                if seen[seq]:
                                    tally.duplicated += 1
                                    continue
                                seen[seq] = 1
                                if seq < high:
                                    tally.reordered += 1
                                else:
                                    tally.chunks += 1
                                high = max(high, seq)
                            else:
                                tally.corrupt += 1
                    if pending.strip():
                        tally.corrupt += 1   # an event cut in the middle
                finally:
                    self.open -= 1
        except (aiohttp.ClientError, TimeoutError) as exc:
            tally.errors.append(f"stream {sid}: {type(exc).__name__}: {exc}")
        tally.streams += 1
        tally.lost += n - sum(seen) + (2 - min(head, 2)) + (0 if done else 1)

    def read(self, data: bytes, sid: int) -> tuple[str, int]:
        """("head" | "chunk" | "end" | "corrupt", chunk number) of one event's JSON."""
        try:
            msg = json.loads(data)
            if msg.get("id") != sid or "result" not in msg:
                return "corrupt", -1
            result = msg["result"]
            if self.v03:
                kind = result.get("kind")
                if kind == "artifact-update":
                    return _chunk(result["artifact"]["parts"][0], sid, "kind")
                if kind == "status-update" and result["status"]["state"] == "completed":
                    return ("end" if result.get("final") is True else "corrupt"), -1
                return ("head" if kind in ("task", "status-update") else "corrupt"), -1
            if "artifactUpdate" in result:
                return _chunk(result["artifactUpdate"]["artifact"]["parts"][0], sid, "")
            if "statusUpdate" in result and result["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED":
                return "end", -1
            return ("head" if "task" in result or "statusUpdate" in result else "corrupt"), -1
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            return "corrupt", -1


def _chunk(part: dict[str, Any], sid: int, kind_member: str) -> tuple[str, int]:
    text = part["text"]
    seq = int(text.split(" ", 2)[1][1:])
    ok = text == text_of(sid, seq) and (not kind_member or part.get(kind_member) == "text")
    return ("chunk" if ok else "corrupt"), seq


# ---- the run --------------------------------------------------------------------------------------------

def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


@dataclass
class Figures:
    tally: Tally
    seconds: float
    cpu: float
    rss_per_stream: float   # bytes, at the most streams open at once
    most_open: int


async def swarm(url: str, v03: bool, streams: int, events: int, pid: int, timeout: float) -> Figures:
    """Run one swarm against `url`, watching process `pid` (the one that carries the streams)."""
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0),
                                     timeout=aiohttp.ClientTimeout(total=None, sock_connect=30)) as session:
        await Swarm(url, v03, 4, 10).run(session)   # warm the path, then the baseline
        base = rss_bytes(pid)
        run = Swarm(url, v03, streams, events, pid)
        cpu0, start = cpu_seconds(pid), time.monotonic()
        try:
            async with asyncio.timeout(timeout):
                await run.run(session)
        except TimeoutError:
            run.tally.errors.append(f"the swarm did not finish within {timeout:g} s")
        seconds, cpu = time.monotonic() - start, cpu_seconds(pid) - cpu0
    per = (run.rss_at_most - base) / run.most_open if run.most_open else 0.0
    return Figures(run.tally, seconds, cpu, per, run.most_open)


async def measure(streams: int, events: int, interval: float, arms: list[str], timeout: float) -> dict[str, Figures]:
    """Each gateway arm gets a gateway process of its own, so that no arm inherits another's heap."""
    agent_port = free_port()
    upstream = f"http://127.0.0.1:{agent_port}/"
    out: dict[str, Figures] = {}
    with process(["-m", "bench.load", "--serve-agent", str(agent_port), "--events", str(events), "--interval",
                  str(interval)]) as agent:
        await ready(upstream + ".well-known/agent-card.json")
        for arm in arms:
            if arm == "direct":
                out[arm] = await swarm(upstream, False, streams, events, agent.pid, timeout)
                continue
            gw_port = free_port()
            # the gateway as the README starts it: the defaults; only the admin port moved off 9090
            with process(["-m", "gateway", "--listen", f"127.0.0.1:{gw_port}", "--upstream", upstream],
                         {"A2A_GATEWAY_ADMIN_LISTEN": f"127.0.0.1:{free_port()}"}) as gw:
                gateway = f"http://127.0.0.1:{gw_port}/"
                await ready(gateway + ".well-known/agent-card.json")
                out[arm] = await swarm(gateway, arm == "translated", streams, events, gw.pid, timeout)
    return out


ARM_NAMES = {"direct": "direct (v1.0 client, agent)", "pass-through": "gateway pass-through (v1.0)",
             "translated": "gateway v0.3 client → v1.0"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--streams", "-c", type=int, default=100, help=f"concurrent streams (default 100, at most "
                        f"{MAX_STREAMS})")
    parser.add_argument("--events", "-n", type=int, default=100, help=f"artifact chunks per stream (default 100, at "
                        f"most {MAX_EVENTS}); each stream also has a Task, `working` and `completed` "
                        "(a stream refused loses them all)")
    parser.add_argument("--slow", action="store_true", help="the agent sends one event a second (--interval 1)")
    parser.add_argument("--interval", type=float, default=0.0, help="seconds between the agent's events (0: at once)")
    parser.add_argument("--arms", default="direct,pass-through,translated",
                        help="comma-separated: direct, pass-through, translated (default: all three)")
    parser.add_argument("--timeout", type=float, default=900.0, help="bound on each arm's swarm, seconds")
    parser.add_argument("--serve-agent", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    interval = 1.0 if args.slow and not args.interval else args.interval
    if args.serve_agent:
        serve_agent(args.serve_agent, args.events, interval)
        return 0
    if not (1 <= args.streams <= MAX_STREAMS and 1 <= args.events <= MAX_EVENTS):
        parser.error(f"--streams must be 1..{MAX_STREAMS} and --events 1..{MAX_EVENTS}")
    arms = [a.strip() for a in args.arms.split(",") if a.strip()]
    if not arms or any(a not in ARM_NAMES for a in arms):
        parser.error(f"--arms takes some of {', '.join(ARM_NAMES)}")
    figures = asyncio.run(measure(args.streams, args.events, interval, arms, args.timeout))
    mode = f"one event every {interval:g} s" if interval > 0 else "events at once"
    print(f"{args.streams} streams × {args.events + 3} events ({mode})")
    print(f"{'arm':30} {'events':>9} {'lost':>5} {'dup':>4} {'reord':>5} {'corrupt':>7} {'errors':>6} "
          f"{'wall s':>7} {'CPU s':>7} {'events/CPU-s':>12} {'most open':>9} {'RSS/open KiB':>12}")
    clean = True
    for arm, f in figures.items():
        t = f.tally
        clean = clean and t.clean
        rate = f"{t.events / f.cpu:12.0f}" if f.cpu else f"{'–':>12}"
        # per open stream only when (nearly) all were open at once: else it is mostly buffers of a few
        rss = f"{f.rss_per_stream / 1024:12.1f}" if f.most_open >= 0.9 * args.streams else f"{'–':>12}"
        print(f"{ARM_NAMES[arm]:30} {t.events:9d} {t.lost:5d} {t.duplicated:4d} {t.reordered:5d} {t.corrupt:7d} "
              f"{len(t.errors):6d} {f.seconds:7.2f} {f.cpu:7.2f} {rate} {f.most_open:9d} {rss}")
    for arm, f in figures.items():
        for error in f.tally.errors[:5]:
            print(f"{arm}: {error}")
    print("CPU and RSS are those of the process carrying the streams (the agent for direct, else the gateway); "
          "RSS/open is its growth over the idle process, per stream, when the most were open at once.")
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())
