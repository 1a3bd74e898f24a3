"""`python -m gateway.config [ROOT]`: regenerate what the schema generates in the checkout at ROOT (default:
the current directory), docs/reference/configuration.md and config/gateway.toml, after a key changed."""

from __future__ import annotations

import sys
from pathlib import Path

from gateway.config.reference import regenerate


def main(argv: list[str]) -> int:
    """Regenerate, print each file that changed; the exit status (0)."""
    for changed in regenerate(Path(argv[0] if argv else ".")):
        print(f"regenerated {changed}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
