"""Owns the peers' virtualenvs: one per SDK generation (a2a-sdk 0.3.x and 1.x cannot share one) and one per
agent framework (fasta2a, langgraph-api, google-adk on each a2a-sdk line, strands-agents), built once under
<repo>/.cache/peers/<generation>-<hash>/ with pinned requirements, file-locked, reusable."""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

Generation = Literal["v03", "v10", "fasta2a", "langgraph", "adk10", "adk03", "strands"]
GENERATIONS: tuple[Generation, ...] = ("v03", "v10", "fasta2a", "langgraph", "adk10", "adk03", "strands")

# Exact pins. a2a-sdk brings starlette/sse-starlette (and fastapi for 0.3.x REST) through its
# [http-server] extra but pins none of them; uvicorn is not an SDK dependency at all. Its [grpc] extra
# (grpcio, grpcio-tools, grpcio-reflection; the tools want a newer setuptools) pins nothing either.
_COMMON = [
    "uvicorn==0.54.0",
    "httpx==0.28.1",
    "starlette==1.10.0",
    "sse-starlette==3.7.0",
    "pydantic==2.14.4",
    "protobuf==7.36.2",
    "grpcio==1.85.1",
    "grpcio-tools==1.85.1",
    "grpcio-reflection==1.85.1",
    "setuptools==84.2.1",
]
_ADK = ["google-genai==2.34.0", "uvicorn==0.54.0", "httpx==0.28.1", "starlette==1.10.0", "sse-starlette==3.7.0",
        "fastapi==0.165.0", "pydantic==2.14.4", "protobuf==7.36.2"]
REQUIREMENTS: dict[Generation, list[str]] = {
    # [signing] (both lines): a2a.utils.signing, the card signers and verifiers the edge tests use
    "v03": ["a2a-sdk[http-server,grpc,signing]==0.3.26", "pyjwt==2.15.1", "fastapi==0.165.0", "httpx-sse==0.4.3",
            *_COMMON],
    "v10": ["a2a-sdk[http-server,grpc,signing]==1.3.0", "pyjwt==2.15.1", *_COMMON],
    # pydantic's own A2A implementation (no a2a-sdk): its server and its client (httpx); no LLM
    "fasta2a": ["fasta2a==2.1.1", "uvicorn==0.54.0", "httpx==0.28.1", "starlette==1.10.0", "pydantic==2.14.4"],
    # google-adk's [a2a] extra takes a2a-sdk >=0.3.4,<2: the same ADK on each SDK line (its to_a2a server
    # and RemoteA2aAgent client follow the SDK installed); no model, no credentials (a BaseAgent of our own)
    "adk10": ["google-adk==2.13.0", "a2a-sdk[http-server]==1.3.0", *_ADK],
    "adk03": ["google-adk==2.13.0", "a2a-sdk[http-server]==0.3.26", *_ADK],
    # strands-agents' [a2a] extra pins a2a-sdk <0.4: its A2AServer and A2AAgent client on 0.3
    "strands": ["strands-agents[a2a]==1.62.0", "a2a-sdk[http-server,sql]==0.3.26", "uvicorn==0.54.0",
                "httpx==0.28.1", "starlette==1.10.0", "sse-starlette==3.7.0", "fastapi==0.165.0",
                "pydantic==2.14.4", "protobuf==7.36.2"],
    # langgraph-api's own A2A implementation (no a2a-sdk), served by `langgraph dev` (the CLI's in-memory
    # server); no LLM
    "langgraph": ["langgraph-cli[inmem]==0.4.40", "langgraph-api==0.16.7", "langgraph==1.2.24",
                  "langgraph-runtime-inmem==0.36.7", "langgraph-checkpoint==4.3.2", "langgraph-sdk==0.4.14",
                  "langchain-core==1.8.3", "uvicorn==0.55.0", "starlette==1.10.0", "sse-starlette==3.7.1",
                  "httpx==0.29.0", "pydantic==2.14.4"],
}

REPO_ROOT = Path(__file__).resolve().parents[2]
CACHE_DIR = REPO_ROOT / ".cache" / "peers"
_MARKER = "peer-venv-complete"
_PARALLEL_BUILDS = 4


def venv_dir(generation: Generation) -> Path:
    """Where the venv for `generation` lives; the name changes whenever its requirements change."""
    spec = "\n".join([f"python{sys.version_info.major}.{sys.version_info.minor}", *REQUIREMENTS[generation]])
    digest = hashlib.sha256(spec.encode()).hexdigest()[:12]
    return CACHE_DIR / f"{generation}-{digest}"


def _python(venv: Path) -> Path:
    return venv / "bin" / "python"


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _run(cmd: list[str], log: Path) -> None:
    with log.open("a") as out:
        out.write(f"$ {' '.join(cmd)}\n")
        out.flush()
        proc = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, check=False)
    if proc.returncode != 0:
        tail = "".join(log.read_text(errors="replace").splitlines(keepends=True)[-40:])
        raise RuntimeError(f"command failed ({proc.returncode}): {' '.join(cmd)}\n{tail}")


def _build(venv: Path, generation: Generation) -> None:
    if venv.exists():
        shutil.rmtree(venv)  # an earlier build died half-way
    log = venv.parent / f"{venv.name}.build.log"
    log.write_text("")
    env_python = sys.executable or "python3"
    _run([env_python, "-m", "venv", str(venv)], log)
    pip = [str(_python(venv)), "-m", "pip", "--disable-pip-version-check", "install", "--quiet"]
    _run([*pip, *REQUIREMENTS[generation]], log)
    (venv / _MARKER).write_text("\n".join(REQUIREMENTS[generation]) + "\n")


def ensure_venv(generation: Generation) -> Path:
    """Path to the python of the `generation` peer venv, building it first if no completed one exists."""
    if generation not in REQUIREMENTS:
        raise ValueError(f"unknown generation {generation!r}; expected one of {GENERATIONS}")
    venv = venv_dir(generation)
    if (venv / _MARKER).is_file():
        return _python(venv)
    with _locked(CACHE_DIR / f"{venv.name}.lock"):
        if not (venv / _MARKER).is_file():  # another worker may have finished while we waited
            _build(venv, generation)
    return _python(venv)


def _timed(generation: Generation) -> tuple[Path, float]:
    started = time.monotonic()
    return ensure_venv(generation), time.monotonic() - started


def main() -> int:
    """Prebuild every peer venv (CI calls `python -m tests.peers.venvs`), several at once: a build is mostly
    pip waiting on downloads and unpacking, so they overlap well even on two cores."""
    with ThreadPoolExecutor(max_workers=_PARALLEL_BUILDS) as pool:
        builds = {generation: pool.submit(_timed, generation) for generation in GENERATIONS}
        for generation, build in builds.items():
            python, seconds = build.result()
            print(f"{generation}: {python} ({seconds:.1f}s)", flush=True)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PIP_DISABLE_PIP_VERSION_CHECK", "1")
    sys.exit(main())
