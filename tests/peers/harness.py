"""Owns driving the peers from pytest: start a real SDK agent in its venv (free port, readiness, teardown),
run one real SDK client scenario and parse its JSON line, plus pytest fixture factories for both."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

import pytest

from tests.peers.gateway import Gateway, run_gateway
from tests.peers.venvs import Generation, ensure_venv

PEERS_DIR = Path(__file__).resolve().parent
READY_TIMEOUT_S = 30.0
CLIENT_TIMEOUT_S = 40.0  # the client bounds each scenario at 20 s itself; this also covers interpreter start
Transport = Literal["jsonrpc", "rest", "grpc"]
# the generations whose agent and client scripts one framework shares across its venvs (agent_<name>.py)
SCRIPT_NAMES: dict[str, str] = {"adk10": "adk", "adk03": "adk"}


def script(kind: Literal["agent", "client"], generation: Generation) -> Path:
    """The peer script of `kind` that `generation`'s venv runs."""
    return PEERS_DIR / f"{kind}_{SCRIPT_NAMES.get(generation, generation)}.py"


class Agent:
    """A running agent subprocess. Use as a context manager, or call stop(); logs go to a temp file."""

    def __init__(self, generation: Generation, process: subprocess.Popen[str], log_path: Path) -> None:
        self.generation = generation
        self.process = process
        self.log_path = log_path
        self.port = 0
        self._ready = threading.Event()
        self._reader = threading.Thread(
            target=self._read_stdout, name=f"agent-{generation}-stdout", daemon=True
        )
        self._reader.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def card_url(self) -> str:
        return self.base_url + "/.well-known/agent-card.json"

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def _read_stdout(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:  # keep draining after READY so the pipe never fills
            if not self._ready.is_set() and line.startswith("READY "):
                self.port = int(line.split()[1])
                self._ready.set()

    def wait_ready(self, timeout: float = READY_TIMEOUT_S) -> None:
        if self._ready.wait(timeout):
            return
        self.stop()
        state = (
            f"exited with {self.process.returncode}" if self.process.returncode is not None else "timed out"
        )
        raise RuntimeError(f"{self.generation} agent never printed READY ({state}); its log:\n{self.log()}")

    def stop(self, timeout: float = 5.0) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout)
        self._reader.join(timeout)
        if self.process.stdout is not None:
            self.process.stdout.close()
        self.log_path.unlink(missing_ok=True)

    def __enter__(self) -> Agent:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


def start_agent(
    generation: Generation,
    port: int | None = None,
    *,
    rest_preferred: bool = False,
    compat: bool = False,
    grpc: bool = False,
    lie: bool = False,
    ready_timeout: float = READY_TIMEOUT_S,
    extra: tuple[str, ...] = (),
) -> Agent:
    """Start `agent_<generation>.py` in its venv and wait until it listens (port None: a free one);
    `grpc`: it serves gRPC too, on a port of its own that its card names; `lie`: its card claims the
    other protocol version; `extra`: more of its flags."""
    args = [str(ensure_venv(generation)), str(script("agent", generation)), "--port", str(port or 0)]
    if rest_preferred:
        args.append("--rest")
    if grpc:
        args.append("--grpc")
    if lie:
        args.append("--lie")
    if compat:
        if generation != "v10":
            raise ValueError("--compat exists on the v1.0 agent only")
        args.append("--compat")
    args.extend(extra)
    fd, log_name = tempfile.mkstemp(prefix=f"peer-agent-{generation}-", suffix=".log")
    with os.fdopen(fd, "w") as log:
        process = subprocess.Popen(
            args, stdout=subprocess.PIPE, stderr=log, stdin=subprocess.DEVNULL, text=True, cwd=PEERS_DIR
        )
    agent = Agent(generation, process, Path(log_name))
    agent.wait_ready(ready_timeout)
    return agent


def agent_fixture(generation: Generation, *, scope: Any = "module", **options: Any) -> Callable[..., Any]:
    """A pytest fixture (module-scoped by default) yielding a started Agent.

    Usage in a test module: `agent_v10 = agent_fixture("v10")`, then request `agent_v10`."""

    @pytest.fixture(scope=scope)
    def _agent() -> Iterator[Agent]:
        with start_agent(generation, **options) as agent:
            yield agent

    return _agent


def gateway_fixture(agent: str, *, scope: Any = "module") -> Callable[..., Any]:
    """A pytest fixture (module-scoped by default) yielding the gateway on its defaults in front of the agent
    that the fixture `agent_<agent>` starts. Usage: `gateway_v10 = gateway_fixture("v10")`."""

    @pytest.fixture(scope=scope)
    def _gateway(request: pytest.FixtureRequest) -> Iterator[Gateway]:
        upstream: Agent = request.getfixturevalue(f"agent_{agent}")
        with run_gateway(upstream.base_url) as gateway:
            yield gateway

    return _gateway


def check_through(gateway: Gateway, generation: Generation, scenario: str, transport: Transport,
                  check: Callable[[dict[str, Any], str, str], None]) -> None:
    """Run one client scenario through `gateway` and `check(result, generation, transport)` it; a failed check
    carries the end of the gateway's log."""
    result = run_client(generation, gateway.base_url, scenario, transport=transport)
    try:
        check(result, generation, transport)
    except AssertionError as exc:
        raise AssertionError(f"{exc}\n--- gateway log ---\n{gateway.log()[-6000:]}") from exc


def run_client(
    generation: Generation,
    url: str,
    scenario: str,
    *,
    transport: Transport = "jsonrpc",
    webhook: str | None = None,
    context: str | None = None,
    timeout: float = CLIENT_TIMEOUT_S,
    headers: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Run one client scenario and return its JSON line. A crash (no JSON line, or exit status != 0) is an
    AssertionError carrying the client's stderr; an A2A error the SDK raised comes back as ok: false."""
    args = [
        str(ensure_venv(generation)),
        str(script("client", generation)),
        "--url",
        url,
        "--scenario",
        scenario,
        "--transport",
        transport,
    ]
    if webhook:
        args += ["--webhook", webhook]
    for name, value in (headers or {}).items():   # e.g. credentials for the gateway's [auth]
        args += ["--header", f"{name}={value}"]
    if context:
        args += ["--context", context]
    label = f"client_{generation} {scenario} over {transport} against {url}"
    try:
        proc = subprocess.run(
            args, capture_output=True, text=True, timeout=timeout, cwd=PEERS_DIR, check=False
        )
    except subprocess.TimeoutExpired as exc:
        raise AssertionError(f"{label}: no answer in {timeout}s\nstderr:\n{_text(exc.stderr)}") from exc
    lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
    if proc.returncode != 0 or not lines:
        raise AssertionError(
            f"{label}: exit status {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
        )
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def _text(data: str | bytes | None) -> str:
    if isinstance(data, bytes):
        return data.decode(errors="replace")
    return data or ""
