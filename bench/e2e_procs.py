"""The end-to-end bench's processes: starting the peer agents (through the TCP_NODELAY launcher) and the
hops per arm (gateways, the floor's minimal proxy), pinning them to CPUs, and reading their and the
machine's CPU and identity from /proc."""

from __future__ import annotations

import contextlib
import os
import platform
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from pathlib import Path

import gateway
from bench.e2e_arms import ARMS, ArmRun, BenchError
from tests.peers.gateway import Gateway, run_gateway
from tests.peers.harness import PEERS_DIR, Agent, start_agent
from tests.peers.venvs import ensure_venv

# --pin layouts: role -> CPU. split (the field notes' layout): client + agents on CPU0, hops (gateways and
# the floor's proxy) on CPU1; one: every process on CPU1 (the chain is sequential anyway, and outside load
# hits every arm alike).
PIN_LAYOUTS: dict[str, dict[str, int]] = {
    "split": {"client": 0, "agent": 0, "hop": 1},
    "one": {"client": 1, "agent": 1, "hop": 1},
    "none": {},
}

# tests/peers/peer_common.bind() makes the listening socket with proto 0, and asyncio sets TCP_NODELAY
# only on sockets whose proto is IPPROTO_TCP: the agent's reply (head and body are two writes) then
# meets Nagle + the client's delayed ACK and every keep-alive request after the first stalls ~40 ms.
# This launcher re-wraps that socket (proto is then read back from the fd: IPPROTO_TCP) and runs the
# agent script unchanged; a no-op once bind() creates the socket with IPPROTO_TCP itself.
_AGENT_LAUNCHER = """
import runpy, socket, sys
sys.path.insert(0, sys.argv[1])
import peer_common
_bind = peer_common.bind
def bind(host, port):
    sock = _bind(host, port)
    return socket.socket(fileno=sock.detach()) if sock.proto == 0 else sock
peer_common.bind = bind
sys.argv = sys.argv[2:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


# ---- machine probes (Linux /proc) ----------------------------------------------------------------------


def proc_cpu_s(pid: int | str) -> float:
    """utime + stime of a whole process (all threads), in seconds."""
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_jiffies() -> tuple[int, int]:
    """(busy, total) jiffies over all CPUs since boot."""
    with open("/proc/stat") as handle:
        values = [int(v) for v in handle.readline().split()[1:]]
    idle = values[3] + (values[4] if len(values) > 4 else 0)
    return sum(values) - idle, sum(values)


def cpu_model() -> str:
    with contextlib.suppress(OSError), open("/proc/cpuinfo") as handle:
        for line in handle:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "?"


def loadavg() -> list[float]:
    return [round(v, 2) for v in os.getloadavg()]


def pin(pid: int, cpu: int) -> None:
    """Pin every thread of `pid` (threads started later inherit the main thread's mask)."""
    try:
        tids = [int(t) for t in os.listdir(f"/proc/{pid}/task")]
    except OSError:
        tids = [pid]
    for tid in tids:
        with contextlib.suppress(OSError):  # a thread that has just ended
            os.sched_setaffinity(tid, {cpu})


def pin_layout(name: str) -> dict[str, int]:
    """The CPU layout to apply; empty (with a note) when this machine cannot honour it."""
    layout = PIN_LAYOUTS[name]
    if layout and not (hasattr(os, "sched_setaffinity") and set(layout.values()) <= os.sched_getaffinity(0)):
        print(f"note: CPUs {sorted(set(layout.values()))} not usable here: not pinning", file=sys.stderr)
        return {}
    return layout


def describe_layout(layout: dict[str, int]) -> str:
    if not layout:
        return "none"
    return ", ".join(f"{role} CPU{cpu}" for role, cpu in layout.items())


def gateway_revision() -> str:
    """HEAD of the checkout the gateway runs from, `+dirty` when gateway/ has local changes."""
    root = Path(gateway.__file__).resolve().parents[1]
    try:
        head = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=root, capture_output=True,
                              text=True, timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "gateway"], cwd=root,
                               capture_output=True, text=True, timeout=10, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return head + ("+dirty" if dirty else "")


# ---- processes -----------------------------------------------------------------------------------------


def start_agent_nodelay(compat: bool) -> Agent:
    """harness.start_agent("v10", compat=...) through _AGENT_LAUNCHER (same venv, script, readiness)."""
    script = PEERS_DIR / "agent_v10.py"
    args = [str(ensure_venv("v10")), "-c", _AGENT_LAUNCHER, str(PEERS_DIR), str(script), "--port", "0"]
    if compat:
        args.append("--compat")
    fd, log_name = tempfile.mkstemp(prefix="bench-agent-v10-", suffix=".log")
    with os.fdopen(fd, "w") as log:
        process = subprocess.Popen(
            args, stdout=subprocess.PIPE, stderr=log, stdin=subprocess.DEVNULL, text=True, cwd=PEERS_DIR
        )
    agent = Agent("v10", process, Path(log_name))
    agent.wait_ready()
    return agent


@contextmanager
def start_arms(layout: dict[str, int], profile_dir: Path | None,
               harness_agents: bool) -> Iterator[dict[str, ArmRun]]:
    """One fresh agent per arm (the same task history in every arm), a gateway per gateway arm and the
    floor's minimal aiohttp proxy (`bench.hop --serve-proxy`, on the gateway's event loop) for its arm."""
    with ExitStack() as stack:
        with ThreadPoolExecutor(len(ARMS)) as pool:
            if harness_agents:
                futures = [pool.submit(start_agent, "v10", compat=spec.compat) for spec in ARMS]
            else:
                futures = [pool.submit(start_agent_nodelay, spec.compat) for spec in ARMS]
            agents: list[Agent] = []
            errors: list[BaseException] = []
            for future in futures:
                try:
                    agent = future.result()
                except Exception as exc:  # keep collecting so every started agent gets stopped
                    errors.append(exc)
                    continue
                stack.callback(agent.stop)
                agents.append(agent)
            if errors:
                raise BenchError(f"an agent did not start: {errors[0]}") from errors[0]
        arms = {}
        for spec, agent in zip(ARMS, agents, strict=True):
            hop: Gateway | subprocess.Popen[bytes] | None = None
            url = agent.base_url + "/jsonrpc"
            if spec.hop == "gateway":
                env = _profile_env(profile_dir, spec.name) if profile_dir else None
                try:
                    hop = stack.enter_context(run_gateway(agent.base_url, env=env))
                except RuntimeError as exc:  # its message carries the whole gateway log: keep the end
                    text = str(exc)
                    raise BenchError(text if len(text) < 4000 else "…" + text[-4000:]) from exc
                url = hop.base_url + "/"
            elif spec.hop == "proxy":
                hop, url = stack.enter_context(_floor_proxy(url))
            if layout:
                pin(agent.process.pid, layout["agent"])
                if hop is not None:
                    pin(hop.process.pid if isinstance(hop, Gateway) else hop.pid, layout["hop"])
            arms[spec.name] = ArmRun(spec, agent, hop, url)
        yield arms


@contextmanager
def _floor_proxy(upstream: str) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """bench.hop's minimal aiohttp proxy in front of `upstream`, once it accepts connections."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    root = Path(__file__).resolve().parents[1]
    proc = subprocess.Popen([sys.executable, "-m", "bench.hop", "--serve-proxy", str(port), upstream], cwd=root,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise BenchError(f"the floor proxy did not start (exit {proc.poll()})") from None
                time.sleep(0.05)
        yield proc, f"http://127.0.0.1:{port}/"
    finally:
        proc.terminate()
        proc.wait(10)


def _profile_env(profile_dir: Path, name: str) -> dict[str, str]:
    """cProfile the gateway process via a sitecustomize put first on its PYTHONPATH; the profile is
    written at normal exit (the gateway exits cleanly on SIGTERM)."""
    hook = profile_dir / "_hook"
    hook.mkdir(parents=True, exist_ok=True)
    (hook / "sitecustomize.py").write_text(
        "import atexit, cProfile, os\n"
        "_p = cProfile.Profile()\n"
        "_p.enable()\n"
        "def _dump():\n"
        "    _p.disable()\n"
        "    _p.dump_stats(os.environ['BENCH_PROFILE_OUT'])\n"
        "atexit.register(_dump)\n"
    )
    path = os.pathsep.join(p for p in (str(hook), os.environ.get("PYTHONPATH", "")) if p)
    return {"PYTHONPATH": path, "BENCH_PROFILE_OUT": str(profile_dir / f"gateway-{name}.prof")}
