"""Owns process start-up: the `a2a-gateway` command line (serve, check-config, demo), turning flags
into settings, configuring logging, and handing over to the shell. No logic a test would need."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import cast

from gateway import __version__
from gateway.config import ENV_CONFIG_PATH, ConfigError, Settings, load

COMMANDS = ("serve", "check-config", "demo")
EXIT_CONFIG = 2
# The demo starts its own upstream agent; run_demo replaces this placeholder with its address.
DEMO_UPSTREAM_PLACEHOLDER = "http://127.0.0.1:9999"
DEMO_GRPC_LISTEN = "127.0.0.1:0"  # the demo serves gRPC too, on a free loopback port its card names


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="a2a-gateway",
        description="Translating reverse proxy between A2A v0.3 and A2A v1.0. "
        "Without a command, runs `serve`.",
        epilog="Every config key can also be set by an environment variable "
        "A2A_GATEWAY_<SECTION>_<KEY>; see config/gateway.toml.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    serve = commands.add_parser("serve", help="run the gateway (the default)")
    serve.add_argument(
        "--config", metavar="FILE", type=Path, help=f"TOML config file (default: ${ENV_CONFIG_PATH}, or none)"
    )
    serve.add_argument("--listen", metavar="HOST:PORT", help="address to listen on (server.listen)")
    serve.add_argument("--upstream", metavar="URL", help="URL of the upstream agent (upstream.url)")
    serve.add_argument(
        "--public-url", metavar="URL", help="base URL clients use to reach the gateway (server.public_url)"
    )
    serve.add_argument("--grpc-listen", metavar="HOST:PORT", help="address of the gRPC listener (grpc.listen)")
    # set by the parent of several workers (server.workers > 1) on each worker's command line
    serve.add_argument("--worker", metavar="N", type=int, help=argparse.SUPPRESS)

    check = commands.add_parser("check-config", help="validate a config file (with the environment) and exit")
    check.add_argument("file", metavar="FILE", type=Path)

    demo = commands.add_parser("demo", help="run the gateway in front of built-in demo agents")
    demo.add_argument("--listen", metavar="HOST:PORT", help="address to listen on (server.listen)")
    demo.add_argument("--grpc-listen", metavar="HOST:PORT", help="address of the gRPC listener (grpc.listen)")
    return parser


def _with_default_command(argv: list[str]) -> list[str]:
    """`a2a-gateway [--flags]` means `a2a-gateway serve [--flags]`."""
    if not argv or (argv[0] not in COMMANDS and argv[0] not in ("-h", "--help", "--version")):
        return ["serve", *argv]
    return argv


def _entry(module: str, name: str) -> Callable[..., int | None]:
    """Import the shell lazily, so `check-config` and `--help` never load aiohttp."""
    return cast(Callable[..., int | None], getattr(importlib.import_module(module), name))


def _configure_logging(settings: Settings) -> None:
    from gateway import observability

    observability.configure(settings.log)


def _fail(error: ConfigError) -> int:
    print(f"a2a-gateway: configuration error:\n{error}", file=sys.stderr)
    return EXIT_CONFIG


def _serve(args: argparse.Namespace, environ: Mapping[str, str]) -> int:
    path: Path | None = args.config
    if path is None and environ.get(ENV_CONFIG_PATH):
        path = Path(environ[ENV_CONFIG_PATH])
    overrides = {
        "server.listen": args.listen,
        "upstream.url": args.upstream,
        "server.public_url": args.public_url,
        "grpc.listen": args.grpc_listen,
    }
    try:
        settings = load(path, environ, overrides)
    except ConfigError as exc:
        return _fail(exc)
    _configure_logging(settings)

    def reload() -> Settings:  # SIGHUP: the same file, environment and flags, read again
        return load(path, environ, overrides)

    if settings.server.workers > 1 and args.worker is None:
        worker_argv = ["serve", *(f"--{k}={v}" for k, v in (
            ("config", path.resolve() if path is not None else None), ("listen", args.listen),
            ("upstream", args.upstream), ("public-url", args.public_url), ("grpc-listen", args.grpc_listen))
            if v is not None)]
        return _entry("gateway.shell.workers", "supervise")(settings, reload, worker_argv) or 0
    return _entry("gateway.shell.app", "serve")(settings, reload, worker=args.worker) or 0


def _check_config(args: argparse.Namespace, environ: Mapping[str, str]) -> int:
    try:
        load(args.file, environ)
    except ConfigError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_CONFIG
    print(f"ok: {args.file}")
    return 0


def _demo(args: argparse.Namespace, environ: Mapping[str, str]) -> int:
    overrides = {
        "server.listen": args.listen,
        "upstream.url": DEMO_UPSTREAM_PLACEHOLDER,
        "grpc.listen": args.grpc_listen or DEMO_GRPC_LISTEN,
        "log.format": "console",
    }
    try:
        settings = load(None, environ, overrides)
    except ConfigError as exc:
        return _fail(exc)
    _configure_logging(settings)
    _entry("gateway.demo", "run_demo")(settings)
    return 0


def main(argv: list[str] | None = None) -> int:
    """The `a2a-gateway` console script and `python -m gateway`. Returns the exit status."""
    args = _parser().parse_args(_with_default_command(sys.argv[1:] if argv is None else argv))
    environ = os.environ
    if args.command == "check-config":
        return _check_config(args, environ)
    if args.command == "demo":
        return _demo(args, environ)
    return _serve(args, environ)


if __name__ == "__main__":
    sys.exit(main())
