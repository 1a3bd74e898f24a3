"""Owns process start-up: the `a2a-gateway` command line (serve, check-config, demo, translate, probe),
turning flags into settings, configuring logging, and handing over to the shell or the core. No logic a
test would need."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import cast

from gateway import __version__
from gateway.config import ENV_CONFIG_PATH, ConfigError, Problem, Settings, load

COMMANDS = ("serve", "check-config", "demo", "translate", "probe")
EXIT_CONFIG = 2
# translate's exit statuses (its --help says them)
EXIT_OK, EXIT_USAGE, EXIT_LOST, EXIT_UNTRANSLATABLE = 0, 2, 3, 4
TRANSLATE_HELP = """\
Translate one A2A payload between protocol versions 0.3 and 1.0, offline (no server, no agent).

Payload kinds, detected from the payload or named with --kind:
  part, message, artifact, task, task_status, status_update, artifact_update (the events), stream_response,
  send_result, agent_card, push_config, task_push_config, error, rest_error, params.<operation>,
  result.<operation>, jsonrpc-request (a whole JSON-RPC request: the method is renamed, its params
  translated), jsonrpc-response (a whole response; --method names the operation it answers), sse (an SSE
  transcript, event by event, as the gateway relays it).
The version is detected (v0.3 JSON-RPC shapes carry `kind` members and lower-case enums); a v0.3 HTTP+JSON
(ProtoJSON) payload needs --to 1.0 --binding http+json, and kinds whose shape is the same in both versions
(an error, a push config) need --to. The translation goes to stdout, the notes (what was dropped, coerced
or defaulted, each with its JSON path) to stderr.

exit statuses:
  0  translated (notes, if any, on stderr)
  2  usage error, or the input is not a valid A2A payload the command recognises (the error names its
     JSON path)
  3  --strict, and the translation recorded notes: something was lost, coerced or defaulted
  4  the payload is valid A2A but cannot be expressed in the other version (the reason and path on stderr)

What the SDKs' own converters accept with a default is translated with a note rather than refused: a message
without `role` (ROLE_UNSPECIFIED), a part given as null (an empty text part).
"""
PROBE_HELP = """\
Read an agent's card, check each interface's real protocol version and binding with the gateway's own
probe (a GetTask of an id no agent holds, spelled in the claimed version: TaskNotFound proves it,
method-not-found disproves it), and print what clients of each version and binding would get through a
gateway in front of it on its defaults: pass-through, translation, what the gateway composes, the quirks
it detects.

A gRPC interface is probed over gRPC. What it tries (the card's two well-known paths, each probe and its
answer) is printed on stderr as it goes; each request waits at most --timeout seconds.

exit statuses:
  0  every interface speaks the version its card claims
  1  some interface could not be verified (the card's claim would be used)
  2  usage error
  3  the card lies: an interface speaks the other version (the gateway corrects it)
  4  the agent or its card could not be reached or read
"""
PROBE_WAIT_SECONDS = 5.0  # probe --timeout's default (the shell's probe module is loaded only when run)
# The demo starts its own upstream agent; run_demo replaces this placeholder with its address.
DEMO_UPSTREAM_PLACEHOLDER = "http://127.0.0.1:9999"
# The demo serves gRPC too (its card names it), on this port unless --grpc-listen or the config says another.
DEMO_GRPC_LISTEN = "127.0.0.1:50051"


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

    demo = commands.add_parser("demo", help="run the gateway in front of built-in demo agents",
                               description="Run the gateway, its admin listener and gRPC listener included, in "
                               "front of a bundled v1.0 echo agent, and print what to try. Ctrl-C stops it.")
    demo.add_argument("--config", metavar="FILE", type=Path,
                      help="TOML config file (its upstream is replaced by the demo agent; [[routes]] are refused)")
    demo.add_argument("--listen", metavar="HOST:PORT", help="address to listen on (server.listen)")
    demo.add_argument("--grpc-listen", metavar="HOST:PORT", help="address of the gRPC listener (grpc.listen)")

    raw = argparse.RawDescriptionHelpFormatter
    tr = commands.add_parser("translate", help="translate one payload between A2A 0.3 and 1.0, offline",
                             description=TRANSLATE_HELP, formatter_class=raw)
    tr.add_argument("file", metavar="FILE", nargs="?", default="-", help="the payload (default: stdin)")
    tr.add_argument("--to", choices=("0.3", "1.0"), help="the version to translate to (default: the other one)")
    tr.add_argument("--from", dest="source", choices=("0.3", "1.0"), help="the payload's version (default: "
                    "detected)")
    tr.add_argument("--binding", choices=("jsonrpc", "http+json"), default="jsonrpc",
                    help="the v0.3 side's binding: its JSON-RPC shapes or the v0.3 proto's ProtoJSON (default: "
                    "jsonrpc)")
    tr.add_argument("--kind", metavar="KIND", help="what the payload is (default: detected); see above")
    tr.add_argument("--method", metavar="NAME", help="the operation a JSON-RPC response answers (a method name "
                    "of either version, or an operation such as get_task)")
    tr.add_argument("--quirk", metavar="NAME=VALUE", action="append", default=[],
                    help="a [quirks] setting, as in the gateway's configuration (repeatable)")
    tr.add_argument("--strict", action="store_true", help="exit 3 when anything was lost (any note)")

    pr = commands.add_parser("probe", help="check an agent's real protocol versions and what clients get",
                             description=PROBE_HELP, formatter_class=raw)
    pr.add_argument("url", metavar="URL", help="the agent's base URL (its card is read from there)")
    pr.add_argument("--json", action="store_true", help="print the report as JSON")
    pr.add_argument("--timeout", metavar="SECONDS", type=float, default=PROBE_WAIT_SECONDS,
                    help=f"how long each request may take (default: {PROBE_WAIT_SECONDS:g})")
    pr.add_argument("--quiet", action="store_true", help="no progress on stderr")
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
    import gateway.observability as observability

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
        return _entry("gateway.shell.process.workers", "supervise")(settings, reload, worker_argv) or 0
    return _entry("gateway.shell.process.app", "serve")(settings, reload, worker=args.worker) or 0


def _check_config(args: argparse.Namespace, environ: Mapping[str, str]) -> int:
    try:
        load(args.file, environ)
    except ConfigError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_CONFIG
    print(f"ok: {args.file}")
    return 0


def _demo(args: argparse.Namespace, environ: Mapping[str, str]) -> int:
    path: Path | None = args.config
    overrides = {
        "server.listen": args.listen,
        "upstream.url": DEMO_UPSTREAM_PLACEHOLDER,
        "grpc.listen": args.grpc_listen,
        # human-readable logs unless the config or the environment chose a format
        "log.format": None if path is not None or "A2A_GATEWAY_LOG_FORMAT" in environ else "console",
    }
    try:
        settings = load(path, environ, overrides)
        if settings.routes:
            raise ConfigError([Problem("routes", "the demo fronts its own agent: remove [[routes]] to run it")])
        if not settings.grpc.listen:
            settings = load(path, environ, {**overrides, "grpc.listen": DEMO_GRPC_LISTEN})
    except ConfigError as exc:
        return _fail(exc)
    _configure_logging(settings)
    return _entry("gateway.demo", "run_demo")(settings) or 0


def _translate(args: argparse.Namespace) -> int:
    import dataclasses

    from gateway.config import BY_NAME
    from gateway.config.checks import BadValue
    from gateway.core.errors import GatewayError, Inexpressible, UnsupportedOperation
    from gateway.core.offline import KINDS, NotA2A, translate_payload
    from gateway.core.quirks import Quirks
    from gateway.core.types import Binding, Version

    versions = {"0.3": Version.V03, "1.0": Version.V10}
    quirks = Quirks()
    for item in args.quirk:
        name, _, value = item.partition("=")
        key = BY_NAME.get(f"quirks.{name.strip()}")
        try:
            if key is None:
                raise BadValue(f"no quirk {name!r}")
            quirks = dataclasses.replace(quirks, **{key.field: key.from_text(value.strip())})
        except BadValue as exc:
            print(f"a2a-gateway translate: --quirk {item}: {exc}", file=sys.stderr)
            return EXIT_USAGE
    if args.kind is not None and args.kind not in KINDS:
        print(f"a2a-gateway translate: unknown --kind {args.kind!r}; one of: {', '.join(KINDS)}", file=sys.stderr)
        return EXIT_USAGE
    try:
        data = sys.stdin.buffer.read() if args.file == "-" else Path(args.file).read_bytes()
    except OSError as exc:
        print(f"a2a-gateway translate: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        result = translate_payload(data, to=versions.get(args.to or ""), source=versions.get(args.source or ""),
                                   binding=Binding.REST if args.binding == "http+json" else Binding.JSONRPC,
                                   kind=args.kind, method=args.method, quirks=quirks)
    except NotA2A as exc:
        print(f"a2a-gateway translate: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (Inexpressible, UnsupportedOperation) as exc:
        where = f" at {exc.path}" if exc.path else ""
        print(f"a2a-gateway translate: cannot be expressed in the other version{where}: {exc.message}",
              file=sys.stderr)
        return EXIT_UNTRANSLATABLE
    except GatewayError as exc:  # the payload is not a valid object of its version
        where = f" at {exc.path}" if exc.path else ""
        print(f"a2a-gateway translate: invalid payload{where}: {exc.message}", file=sys.stderr)
        return EXIT_USAGE
    print(f"a2a-gateway translate: {result.kind}: {result.src.value} -> {result.dst.value}", file=sys.stderr)
    if result.assumed:
        print(f"a2a-gateway translate: assumed {result.assumed}", file=sys.stderr)
    for note in result.notes:
        print(f"note: {note.code} at {note.path}" + (f": {note.detail}" if note.detail else ""), file=sys.stderr)
    sys.stdout.buffer.write(result.output if result.kind == "sse" else result.output + b"\n")
    sys.stdout.flush()
    return EXIT_LOST if args.strict and result.notes else EXIT_OK


def _probe(args: argparse.Namespace, environ: Mapping[str, str]) -> int:
    import json

    probe = importlib.import_module("gateway.shell.process.probe")
    try:
        settings = load(None, environ, {"upstream.url": args.url, "upstream.version": "auto",
                                        "log.level": "error", "log.format": "console",
                                        **probe.wait_overrides(args.timeout)})
    except ConfigError as exc:  # the URL came as the positional argument, not as --upstream
        for problem in exc.problems:
            said = (f"URL: {problem.reason} (positional URL)" if problem.source == "from --upstream"
                    else str(problem))
            print(f"a2a-gateway probe: {said}", file=sys.stderr)
        return EXIT_USAGE
    _configure_logging(settings)
    report = probe.run(settings, progress=not args.quiet)
    print(json.dumps(report, indent=2) if args.json else probe.render_text(report), end="\n" if args.json else "")
    return int(probe.EXIT[report["verdict"]])


def main(argv: list[str] | None = None) -> int:
    """The `a2a-gateway` console script and `python -m gateway`. Returns the exit status."""
    args = _parser().parse_args(_with_default_command(sys.argv[1:] if argv is None else argv))
    environ = os.environ
    if args.command == "check-config":
        return _check_config(args, environ)
    if args.command == "demo":
        return _demo(args, environ)
    if args.command == "translate":
        return _translate(args)
    if args.command == "probe":
        return _probe(args, environ)
    return _serve(args, environ)


if __name__ == "__main__":
    sys.exit(main())
