"""Writes tests/core/sdk_conversions.json: every payload a2a-sdk's own v0.3 <-> v1.0 conversion tests convert,
recorded by running that test file with its to_core_*/to_compat_* functions wrapped. A development tool:

    git show <a2a-python commit>:tests/compat/v0_3/test_conversions.py > /tmp/sdk_test_conversions.py
    .venv/bin/python -m tests.core.sdk_payloads /tmp/sdk_test_conversions.py <commit>

(the tests importing the SDK's database models, which need SQLAlchemy, are dropped)."""

from __future__ import annotations

import importlib.util
import inspect
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message
from pydantic import BaseModel

OUT = Path(__file__).with_name("sdk_conversions.json")


def _as_json(arg: Any) -> tuple[str, Any]:
    if isinstance(arg, Message):
        return "1.0", MessageToDict(arg)
    if isinstance(arg, BaseModel):
        return "0.3", arg.model_dump(mode="json", by_alias=True, exclude_none=True)
    return "?", repr(arg)


def record(test_file: Path) -> list[dict[str, Any]]:
    source = test_file.read_text()
    start = source.index("from a2a.compat.v0_3.model_conversions import (")
    source = source[:start] + source[source.index(")", start) + 1:]   # the database models need SQLAlchemy
    source = source.replace("from cryptography.fernet import Fernet\n", "")
    spec = importlib.util.spec_from_loader("sdk_conversion_tests", loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    exec(compile(source, str(test_file), "exec"), module.__dict__)
    records: list[dict[str, Any]] = []
    current = [""]

    def wrap(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def recorded(*args: Any, **kwargs: Any) -> Any:
            version, payload = _as_json(args[0] if args else None)
            if isinstance(payload, dict):
                records.append({"test": current[0], "function": name, "version": version, "payload": payload})
            return fn(*args, **kwargs)
        return recorded

    for name in dir(module):
        if name.startswith(("to_core_", "to_compat_")):
            setattr(module, name, wrap(name, getattr(module, name)))
    for name, test in inspect.getmembers(module, inspect.isfunction):
        if name.startswith("test_") and test.__module__ == module.__name__:
            current[0] = name
            try:
                test()
            except Exception as exc:
                print(f"skipped {name}: {type(exc).__name__}: {exc}", file=sys.stderr)
    return records


def main(argv: list[str]) -> int:
    test_file, commit = Path(argv[0]), argv[1]
    doc = {"source": f"a2aproject/a2a-python tests/compat/v0_3/test_conversions.py (commit {commit}, Apache-2.0): "
                     "the argument of every to_core_*/to_compat_* call its tests make, as JSON (v0.3 pydantic "
                     "models dumped by alias, v1.0 protobuf messages as ProtoJSON); regenerate with "
                     "tests/core/sdk_payloads.py",
           "payloads": record(test_file)}
    OUT.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT}: {len(doc['payloads'])} payloads")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
