"""Streaming throughput (field notes W3): one `message/stream` of N events (a Task, `working`, N text
chunks as artifact updates, `completed`) from a canned v1.0 agent, read directly, through two minimal
aiohttp proxies (the baselines: relaying chunks; parsing and re-encoding each event) and through the
gateway (pass-through; translated for a v0.3 client); arms interleaved. `python -m bench.stream`."""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections.abc import AsyncIterator
from contextlib import ExitStack

import aiohttp
from aiohttp import web

from bench.hop import (
    BODY_V03,
    BODY_V10,
    JSON,
    V10,
    agent_app,
    cpu_seconds,
    free_port,
    instructions,
    process,
    ready,
    serve,
)

CHUNK = "lorem ipsum dolor sit amet " * 3


def _frame(obj: object) -> bytes:
    return b"data: " + json.dumps({"jsonrpc": "2.0", "id": 1, "result": obj}).encode() + b"\n\n"


def stream_body(n: int) -> bytes:
    """The whole canned stream: 3 + n events."""
    ids = {"taskId": "t-1", "contextId": "c-1"}
    frames = [_frame({"task": {"id": "t-1", "contextId": "c-1", "status": {"state": "TASK_STATE_SUBMITTED"}}}),
              _frame({"statusUpdate": {**ids, "status": {"state": "TASK_STATE_WORKING",
                                                         "timestamp": "2025-04-02T16:59:25Z"}}})]
    for i in range(n):
        frames.append(_frame({"artifactUpdate": {**ids, "append": i > 0, "lastChunk": i == n - 1, "artifact": {
            "artifactId": "a-1", "parts": [{"text": f"{CHUNK}{i}"}]}}}))
    frames.append(_frame({"statusUpdate": {**ids, "status": {"state": "TASK_STATE_COMPLETED",
                                                             "timestamp": "2025-04-02T16:59:26Z"}}}))
    return b"".join(frames)


def stub_app(port: int, n: int) -> web.Application:
    """Every SendStreamingMessage is the same stream, written in 16 KiB pieces."""
    body = stream_body(n)

    async def rpc(request: web.Request) -> web.StreamResponse:
        await request.read()
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await resp.prepare(request)
        for start in range(0, len(body), 16384):
            await resp.write(body[start:start + 16384])
        await resp.write_eof()
        return resp

    return agent_app(port, "canned streaming v1.0 agent", rpc)


def proxy_app(upstream: str, rewrite: bool) -> web.Application:
    """A baseline: the least an aiohttp SSE proxy does — relay the chunks, or (rewrite) split them into
    events and re-encode each one's JSON with one member renamed, the floor of any per-event rewrite."""
    async def session(app: web.Application) -> AsyncIterator[None]:
        async with aiohttp.ClientSession() as app["session"]:   # closed when the server stops
            yield

    async def proxy(request: web.Request) -> web.StreamResponse:
        body = await request.read()
        headers = {"Content-Type": "application/json", "A2A-Version": "1.0", "Accept": "text/event-stream"}
        async with request.app["session"].post(upstream, data=body, headers=headers) as up:
            resp = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
            await resp.prepare(request)
            pending = b""
            async for chunk in up.content.iter_any():
                if not rewrite:
                    await resp.write(chunk)
                    continue
                *events, pending = (pending + chunk).split(b"\n\n")
                out = []
                for event in events:
                    value = json.loads(event[6:])
                    value["result"] = {"kind": "x", **value["result"]}
                    out.append(b"data: " + json.dumps(value).encode() + b"\n\n")
                await resp.write(b"".join(out))
            await resp.write_eof()
            return resp

    app = web.Application()
    app.cleanup_ctx.append(session)
    app.router.add_post("/", proxy)
    return app


async def _one(session: aiohttp.ClientSession, url: str, body: bytes, headers: dict[str, str]) -> tuple[
        float, float, int, bytes]:
    """(seconds to the first byte, seconds to the end, events, the last event) of one stream."""
    start = time.perf_counter()
    first = 0.0
    events = 0
    tail = b""
    async with session.post(url, data=body, headers={**headers, "Accept": "text/event-stream"}) as resp:
        if resp.status != 200 or resp.content_type != "text/event-stream":
            raise RuntimeError(f"{url} answered {resp.status} {resp.content_type}")
        async for chunk in resp.content.iter_any():
            if not first:
                first = time.perf_counter() - start
            tail = (tail + chunk)[-4096:]
            events += chunk.count(b"\n\n")   # one blank line ends each event (LF framing, both sides)
    last = tail.rstrip(b"\n").rsplit(b"\n\n", 1)[-1]
    return first, time.perf_counter() - start, events, last


async def measure(n: int, streams: int, rounds: int) -> dict[str, dict[str, float]]:
    stub_port, gw_port = free_port(), free_port()
    upstream = f"http://127.0.0.1:{stub_port}/"
    stream_v03 = BODY_V03.replace(b'"message/send"', b'"message/stream"')
    stream_v10 = BODY_V10.replace(b'"SendMessage"', b'"SendStreamingMessage"')
    with ExitStack() as stack:
        stack.enter_context(process(["-m", "bench.stream", "--serve-stub", str(stub_port), "--events", str(n)]))
        await ready(upstream + ".well-known/agent-card.json")
        gw = stack.enter_context(process(["-m", "gateway", "--listen", f"127.0.0.1:{gw_port}", "--upstream",
                                           upstream], {"A2A_GATEWAY_ADMIN_LISTEN": f"127.0.0.1:{free_port()}"}))
        relay_port, rewrite_port = free_port(), free_port()
        relay = stack.enter_context(process(["-m", "bench.stream", "--serve-proxy", str(relay_port), upstream]))
        rewrite = stack.enter_context(process(["-m", "bench.stream", "--serve-proxy", str(rewrite_port),
                                                upstream, "--rewrite"]))
        await ready(f"http://127.0.0.1:{gw_port}/.well-known/agent-card.json")
        for port in (relay_port, rewrite_port):
            await ready(f"http://127.0.0.1:{port}/")
        arms = {
            "direct (v1.0 client)": (upstream, stream_v10, V10, None),
            "aiohttp chunk relay": (f"http://127.0.0.1:{relay_port}/", stream_v10, V10, relay.pid),
            "gateway pass-through": (f"http://127.0.0.1:{gw_port}/", stream_v10, V10, gw.pid),
            "aiohttp event rewrite": (f"http://127.0.0.1:{rewrite_port}/", stream_v10, V10, rewrite.pid),
            "gateway v1.0 → v0.3 client": (f"http://127.0.0.1:{gw_port}/", stream_v03, JSON, gw.pid),
        }
        totals = {name: {"first": 0.0, "total": 0.0, "events": 0.0, "cpu": 0.0} for name in arms}
        async with aiohttp.ClientSession() as session:
            for name, (url, body, headers, _) in arms.items():   # check and warm every arm
                _, _, events, last = await _one(session, url, body, headers)
                final = json.loads(last.split(b"data: ", 1)[1])["result"]
                done = final.get("final") is True if "v0.3" in name else "statusUpdate" in final
                done = done or (name == "aiohttp event rewrite" and final.get("kind") == "x")
                if events != n + 3 or not done:
                    raise RuntimeError(f"{name}: {events} events, last {final!r}")
            for _ in range(rounds):
                for name, (url, body, headers, pid) in arms.items():
                    before = cpu_seconds(pid) if pid else 0.0
                    for _ in range(streams // rounds):
                        first, total, events, _ = await _one(session, url, body, headers)
                        row = totals[name]
                        row["first"] += first
                        row["total"] += total
                        row["events"] += events
                    totals[name]["cpu"] += (cpu_seconds(pid) - before) if pid else 0.0
    count = streams // rounds * rounds
    return {name: {"ttfb_ms": t["first"] / count * 1000, "stream_ms": t["total"] / count * 1000,
                   "events_per_s": t["events"] / t["total"], "cpu_us_per_event": t["cpu"] / t["events"] * 1e6}
            for name, t in totals.items()}


async def icount(n: int, streams: int) -> dict[str, float]:
    """Instructions per event of each hop process under valgrind (`bench.hop.instructions`), counted only
    around `streams` sequential streams after a warm-up: deterministic where CPU time is not."""
    stub_port = free_port()
    upstream = f"http://127.0.0.1:{stub_port}/"
    stream_v03 = BODY_V03.replace(b'"message/send"', b'"message/stream"')
    stream_v10 = BODY_V10.replace(b'"SendMessage"', b'"SendStreamingMessage"')
    gateway = ["-m", "gateway", "--listen", "127.0.0.1:{port}", "--upstream", upstream]
    proxy = ["-m", "bench.stream", "--serve-proxy", "{port}", upstream]
    arms = {  # name: (arguments of the hop process, body, headers)
        "aiohttp chunk relay": (proxy, stream_v10, V10),
        "gateway pass-through": (gateway, stream_v10, V10),
        "aiohttp event rewrite": ([*proxy, "--rewrite"], stream_v10, V10),
        "gateway v1.0 → v0.3 client": (gateway, stream_v03, JSON),
    }
    out: dict[str, float] = {}
    with process(["-m", "bench.stream", "--serve-stub", str(stub_port), "--events", str(n)]):
        await ready(upstream + ".well-known/agent-card.json")
        for name, (args, body, headers) in arms.items():
            events = 0
            async with aiohttp.ClientSession() as session:
                async def warm(url: str, body: bytes = body, headers: dict[str, str] = headers) -> None:
                    for _ in range(3):   # every path and connection
                        await _one(session, url, body, headers)

                async def timed(url: str, body: bytes = body, headers: dict[str, str] = headers) -> None:
                    nonlocal events
                    for _ in range(streams):
                        events += (await _one(session, url, body, headers))[2]

                probe = ".well-known/agent-card.json" if "gateway" in name else ""
                out[name] = await instructions(args, probe, warm, timed) / events
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=1000, help="artifact chunks per stream (default 1000)")
    parser.add_argument("--streams", type=int, default=30, help="timed streams per arm (default 30)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    parser.add_argument("--serve-stub", type=int, metavar="PORT", help=argparse.SUPPRESS)
    parser.add_argument("--serve-proxy", nargs=2, metavar=("PORT", "UPSTREAM"), help=argparse.SUPPRESS)
    parser.add_argument("--rewrite", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--icount", action="store_true",
                        help="instructions per event of each hop under valgrind instead (slow)")
    args = parser.parse_args()
    if args.serve_stub:
        serve(stub_app(args.serve_stub, args.events), args.serve_stub)
        return
    if args.serve_proxy:
        port, upstream = args.serve_proxy
        serve(proxy_app(upstream, args.rewrite), int(port))
        return
    if args.icount:
        counts = asyncio.run(icount(args.events, args.streams))
        print(f"{args.events + 3} events per stream, {args.streams} streams per arm")
        print(f"{'arm':28} {'instructions/event':>19} {'× its baseline':>15}")
        for name, count in counts.items():
            base = {"gateway pass-through": "aiohttp chunk relay",
                    "gateway v1.0 → v0.3 client": "aiohttp event rewrite"}.get(name)
            ratio = f"{count / counts[base]:.2f}" if base else ""
            print(f"{name:28} {count:19,.0f} {ratio:>15}")
        return
    figures = asyncio.run(measure(args.events, args.streams, args.rounds))
    print(f"{args.events + 3} events per stream ({len(stream_body(args.events))} bytes upstream)")
    print(f"{'arm':28} {'TTFB ms':>8} {'stream ms':>10} {'events/s':>10} {'hop CPU µs/event':>17} "
          f"{'× its baseline':>15}")
    baselines = {"gateway pass-through": "aiohttp chunk relay", "gateway v1.0 → v0.3 client": "aiohttp event rewrite"}
    for name, f in figures.items():
        cpu = f"{f['cpu_us_per_event']:.1f}" if f["cpu_us_per_event"] else "–"
        base = baselines.get(name)
        base_cpu = figures[base]["cpu_us_per_event"] if base else 0.0   # 0: below the clock tick (tiny runs)
        ratio = f"{f['cpu_us_per_event'] / base_cpu:.2f}" if base_cpu else ("–" if base else "")
        print(f"{name:28} {f['ttfb_ms']:8.2f} {f['stream_ms']:10.2f} {f['events_per_s']:10.0f} {cpu:>17} {ratio:>15}")


if __name__ == "__main__":
    main()
