"""Tests for gateway/__main__.py: the public command line (serve as the default, check-config, demo,
--help, --version) with the shell's entry points replaced by recorders."""

from __future__ import annotations

import os
import subprocess
import sys
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from gateway import __version__, observability
from gateway.__main__ import main
from gateway.config import Settings

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in list(os.environ):
        if name.startswith("A2A_GATEWAY_"):
            monkeypatch.delenv(name)
    yield
    observability.reset()


def fake_entry(monkeypatch: pytest.MonkeyPatch, module: str, name: str) -> list[Settings]:
    """Stand in for gateway.shell.process.app.serve / gateway.demo.run_demo; returns the calls."""
    calls: list[Settings] = []
    fake = types.ModuleType(module)
    setattr(fake, name, lambda settings, *args, **kwargs: calls.append(settings))
    monkeypatch.setitem(sys.modules, module, fake)
    return calls


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> list[Settings]:
    return fake_entry(monkeypatch, "gateway.shell.process.app", "serve")


# --- check-config -----------------------------------------------------------------------------------


def test_check_config_ok(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "ok.toml"
    path.write_text('[upstream]\nurl = "http://agent.test"\n')
    assert main(["check-config", str(path)]) == 0
    out, err = capsys.readouterr()
    assert out == f"ok: {path}\n"
    assert err == ""


def test_check_config_bad_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('[upstream]\nurl = "http://agent.test"\n[upstream.timeout]\nconect = 1\n')
    assert main(["check-config", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "upstream.timeout.conect: unknown key" in err
    assert str(path) in err


def test_check_config_bad_value(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('[upstream]\nurl = "agent.test"\n')
    assert main(["check-config", str(path)]) == 2
    assert capsys.readouterr().err.startswith("upstream.url: ")


def test_check_config_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check-config", str(tmp_path / "none.toml")]) == 2
    assert "cannot read the config file" in capsys.readouterr().err


def test_check_config_sees_the_environment(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shipped = str(ROOT / "config" / "gateway.toml")
    assert main(["check-config", shipped]) == 0  # as shipped
    monkeypatch.setenv("A2A_GATEWAY_UPSTREAM_URL", "not a url")
    assert main(["check-config", shipped]) == 2
    assert capsys.readouterr().err.startswith("upstream.url: ")
    monkeypatch.setenv("A2A_GATEWAY_UPSTREAM_URL", "http://agent.test")
    assert main(["check-config", shipped]) == 0
    monkeypatch.setenv("A2A_GATEWAY_BOGUS", "1")
    assert main(["check-config", shipped]) == 2
    assert "A2A_GATEWAY_BOGUS: unknown environment variable" in capsys.readouterr().err


# --- help and version -------------------------------------------------------------------------------


def test_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    for word in ("serve", "check-config", "demo", "--version"):
        assert word in out


def test_serve_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["serve", "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    for flag in ("--listen", "--upstream", "--public-url", "--config"):
        assert flag in out


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"a2a-gateway {__version__}"


def test_unknown_flag_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--listne", "x"])
    assert info.value.code == 2
    assert "unrecognized arguments" in capsys.readouterr().err


def test_python_dash_m_gateway() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "gateway", "--version"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"a2a-gateway {__version__}"


# --- serve ------------------------------------------------------------------------------------------


def test_serve_settings_from_flags(served: list[Settings]) -> None:
    argv = [
        "serve",
        "--listen",
        "0.0.0.0:9090",
        "--upstream",
        "http://agent.test:9999/a2a",
        "--public-url",
        "https://gw.example.com/",
    ]
    assert main(argv) == 0
    [settings] = served
    assert settings.server.listen == "0.0.0.0:9090"
    assert (settings.server.host, settings.server.port) == ("0.0.0.0", 9090)
    assert settings.upstream.url == "http://agent.test:9999/a2a"
    assert settings.server.public_url == "https://gw.example.com"
    assert settings.log.format == "json"


def test_serve_is_the_default_command(served: list[Settings]) -> None:
    assert main(["--upstream", "http://agent.test"]) == 0
    [settings] = served
    assert settings.upstream.url == "http://agent.test"
    assert settings.server.listen == "127.0.0.1:8080"


def test_serve_flags_override_file_and_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, served: list[Settings]
) -> None:
    path = tmp_path / "g.toml"
    path.write_text(
        '[server]\nlisten = "127.0.0.1:1"\n[upstream]\nurl = "http://file.test"\n[log]\nlevel = "debug"\n'
    )
    monkeypatch.setenv("A2A_GATEWAY_SERVER_LISTEN", "127.0.0.1:2")
    monkeypatch.setenv("A2A_GATEWAY_LIMITS_MAX_CONNECTIONS", "7")
    assert main(["--config", str(path), "--listen", "127.0.0.1:3"]) == 0
    [settings] = served
    assert settings.server.listen == "127.0.0.1:3"
    assert settings.upstream.url == "http://file.test"
    assert settings.limits.max_connections == 7
    assert settings.log.level == "debug"


def test_serve_config_path_from_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, served: list[Settings]
) -> None:
    path = tmp_path / "g.toml"
    path.write_text('[upstream]\nurl = "http://file.test"\n')
    monkeypatch.setenv("A2A_GATEWAY_CONFIG", str(path))
    assert main([]) == 0
    assert served[0].upstream.url == "http://file.test"


def test_serve_bad_config_exits_2_without_serving(
    served: list[Settings], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--listen", "nowhere", "--upstream", "http://agent.test"]) == 2
    assert served == []
    err = capsys.readouterr().err
    assert "server.listen: " in err and "(from --listen)" in err


def test_serve_without_upstream(served: list[Settings], capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert served == []
    assert "upstream.url: is required" in capsys.readouterr().err


# --- demo -------------------------------------------------------------------------------------------


def test_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    runs = fake_entry(monkeypatch, "gateway.demo", "run_demo")
    assert main(["demo", "--listen", "127.0.0.1:7000"]) == 0
    [settings] = runs
    assert settings.server.listen == "127.0.0.1:7000"
    assert settings.log.format == "console"
    assert main(["demo"]) == 0
    assert runs[1].server.listen == "127.0.0.1:8080"
    # the operator's half is on at its documented default, gRPC on an announced port
    assert (runs[1].admin.listen, runs[1].grpc.listen) == ("127.0.0.1:9090", "127.0.0.1:50051")


def test_demo_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs = fake_entry(monkeypatch, "gateway.demo", "run_demo")
    config = tmp_path / "demo.toml"
    config.write_text('[grpc]\nlisten = "127.0.0.1:7001"\n[migration]\nsunset = "2027-01-31"\n'
                      '[upstream]\nurl = "http://agent.example"\n')
    assert main(["demo", "--config", str(config)]) == 0
    [settings] = runs
    assert (settings.grpc.listen, settings.migration.sunset) == ("127.0.0.1:7001", "@1801353600")
    assert settings.upstream.url != "http://agent.example"  # the demo's own agent replaces it
    config.write_text('[[routes]]\nname = "a"\npath_prefix = "/a"\n[routes.upstream]\nurl = "http://a.example"\n')
    assert main(["demo", "--config", str(config)]) == 2
    assert "routes: the demo fronts its own agent" in capsys.readouterr().err
