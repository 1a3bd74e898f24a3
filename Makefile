# The two quick-start commands; both build .venv on first use (see dev.py).
.PHONY: run test lint bench

run:
	python3 dev.py run $(ARGS)

test:
	python3 dev.py test $(ARGS)

lint:
	.venv/bin/ruff check gateway tests bench && .venv/bin/mypy

bench:
	.venv/bin/python -m bench.translate
