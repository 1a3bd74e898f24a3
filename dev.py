#!/usr/bin/env python3
"""Developer entry points behind `make run` and `make test`: each builds (once) the project's own
virtualenv in .venv from pyproject.toml, then starts the demo gateway or runs the whole suite;
`protos` regenerates the committed protobuf modules from the two A2A .proto files."""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = Path(os.environ.get("A2A_GATEWAY_VENV", ROOT / ".venv"))
BIN = VENV / "bin"


def _ensure(extra: str) -> None:
    """Create .venv and install the project with `extra` unless pyproject.toml is unchanged (the test
    extra's installation holds everything `run` needs too)."""
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()[:16]
    stamp = VENV / f".installed-{extra or 'run'}-{digest}"
    if stamp.exists() or (VENV / f".installed-test-{digest}").exists():
        return
    if not (BIN / "python").exists():
        print(f"creating virtualenv {VENV}", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    pip = [str(BIN / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, "--upgrade", "pip"], check=True)
    target = f"{ROOT}[{extra}]" if extra else str(ROOT)
    print(f"installing {target}", flush=True)
    subprocess.run([*pip, "--editable", target], check=True, cwd=ROOT)
    stamp.touch()


def _foreground(cmd: list[str]) -> int:
    """Run `cmd` to its end; its exit status. Ctrl-C reaches it from the terminal (the whole process group
    gets SIGINT): this process only waits for it to stop and returns its status (0 after a clean stop), so
    neither a traceback nor make's "Interrupt" follows a clean Ctrl-C."""
    previous = signal.signal(signal.SIGINT, lambda signum, frame: None)  # reset to the default in the child
    try:
        with subprocess.Popen(cmd, cwd=ROOT) as child:
            status = child.wait()
        return 128 - status if status < 0 else status  # killed by a signal: the shell's convention
    finally:
        signal.signal(signal.SIGINT, previous)


def run(args: list[str]) -> int:
    _ensure("")
    return _foreground([str(BIN / "a2a-gateway"), "demo", *args])


# What the suite drives that no Python package can ship (redis-server comes with the test extra where the
# system has none): a command, and the Debian package that provides it.
SYSTEM_PROGRAMS = {"chromium": "chromium"}


def _system_programs() -> None:
    """Install the missing SYSTEM_PROGRAMS with apt-get when this is root on Debian (as CI is); else say
    which tests will skip and the command that installs them."""
    missing = [package for command, package in SYSTEM_PROGRAMS.items() if shutil.which(command) is None]
    if not missing:
        return
    if os.geteuid() == 0 and shutil.which("apt-get"):
        print(f"installing {' '.join(missing)} (apt-get)", flush=True)
        subprocess.run(["apt-get", "update", "-qq"], check=True)
        subprocess.run(["apt-get", "install", "-y", "-qq", *missing], check=True,
                       env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
    else:
        print(f"warning: {' '.join(missing)} not installed: the tests that drive it will be skipped "
              f"(sudo apt-get install {' '.join(missing)})", file=sys.stderr, flush=True)


def test(args: list[str]) -> int:
    _ensure("test")
    _system_programs()
    py = str(BIN / "python")
    # the real-peer virtualenvs (a2a-sdk 0.3 and 1.x cannot share one) are built once and cached
    if subprocess.call([py, "-m", "tests.peers.venvs"], cwd=ROOT) != 0:
        print("could not build the peer virtualenvs", file=sys.stderr)
        return 1
    return subprocess.call([py, "-m", "pytest", *args], cwd=ROOT)


# The code generator, pinned, in a venv of its own (.cache/protoc): a development-time tool only.
PROTOC_REQUIREMENTS = ["grpcio-tools==1.85.1", "googleapis-common-protos==1.76.0"]
PROTO_DIR = ROOT / "gateway" / "core" / "bindings" / "grpc" / "proto"
PROTO_PACKAGE = "gateway.core.bindings.grpc.proto"
PROTOS = {"a2a_v03.proto": "A2A v0.3 (package a2a.v1)", "a2a_v10.proto": "A2A v1.0 (package lf.a2a.v1)"}


def _protoc_python() -> Path:
    tools = ROOT / ".cache" / "protoc"
    stamp = tools / ("installed-" + hashlib.sha256(" ".join(PROTOC_REQUIREMENTS).encode()).hexdigest()[:16])
    python = tools / "bin" / "python"
    if not stamp.exists():
        venv.EnvBuilder(with_pip=True, clear=True).create(tools)
        pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
        subprocess.run([*pip, *PROTOC_REQUIREMENTS], check=True)
        stamp.touch()
    return python


def _own_pool(generated: str, proto: str) -> str:
    """protoc's module, moved from protobuf's default pool into the gateway's (proto/pool.py), where
    a2a-sdk's own registrations of the same package names cannot clash with it."""
    module = proto.removesuffix(".proto") + "_pb2"
    swaps = [
        ('"""Generated protocol buffer code."""',
         f'"""Generated by protoc from {proto}: {PROTOS[proto]}, registered in the gateway\'s own descriptor\n'
         'pool (proto/pool.py). Do not edit: change the .proto and run `python3 dev.py protos`."""'),
        ("_sym_db = _symbol_database.Default()",
         f"_sym_db = _symbol_database.Default()\nfrom {PROTO_PACKAGE}.pool import POOL"),
        ("_descriptor_pool.Default().AddSerializedFile(", "POOL.AddSerializedFile("),
        (f"'{module}'", f"'{PROTO_PACKAGE}.{module}'"),
    ]
    for old, new in swaps:
        if generated.count(old) != 1:
            raise SystemExit(f"protos: {proto}: expected one {old!r} in protoc's output")
        generated = generated.replace(old, new)
    return generated


def protos(args: list[str]) -> int:
    python = _protoc_python()
    includes = subprocess.run(
        [str(python), "-c", "import grpc_tools, google.api.annotations_pb2 as a, os; d = os.path.dirname; "
         "print(d(grpc_tools.__file__) + '/_proto'); print(d(d(d(a.__file__))))"],
        check=True, capture_output=True, text=True).stdout.split()
    cmd = [str(python), "-m", "grpc_tools.protoc", f"-I{PROTO_DIR}", *(f"-I{path}" for path in includes),
           f"--python_out={PROTO_DIR}", f"--pyi_out={PROTO_DIR}", *PROTOS]
    subprocess.run(cmd, check=True, cwd=PROTO_DIR)
    for proto in PROTOS:
        path = PROTO_DIR / (proto.removesuffix(".proto") + "_pb2.py")
        path.write_text(_own_pool(path.read_text(), proto))
        print(f"generated {path.relative_to(ROOT)}", flush=True)
    return 0


def main() -> int:
    commands = {"run": run, "test": test, "protos": protos}
    if len(sys.argv) < 2 or sys.argv[1] not in commands:
        print(f"usage: {sys.argv[0]} {{{'|'.join(commands)}}} [args...]", file=sys.stderr)
        return 2
    return commands[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
