# The README's two commands: `make demo` and `make test`. Both set up everything
# they need on a fresh machine (a venv in .venv with the CPU torch pin; Node
# dev tools in js/node_modules; Debian chromium for the browser tests).

VENV      ?= .venv
PYTHON    := $(VENV)/bin/python
TORCH_PIN := torch==2.13.0
SUDO      := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
LAB_FLAGS := $(shell [ "$$(id -u)" = 0 ] && echo --allow-root)

.PHONY: demo test lint test-js test-py bundle bundle-check chromium setup bench clean

demo: $(VENV)/.installed
	$(VENV)/bin/jupyter lab notebooks/quickstart.ipynb $(LAB_FLAGS)

test: setup chromium bundle-check lint test-js test-py

setup: $(VENV)/.installed js/node_modules/.installed

# torch is installed first and pinned: a bare `torch` would pull a multi-GB CUDA build.
$(VENV)/.installed: pyproject.toml
	test -x $(PYTHON) || python3 -m venv $(VENV)
	$(PYTHON) -m pip install --quiet --upgrade pip
	$(PYTHON) -m pip install --quiet $(TORCH_PIN)
	$(PYTHON) -m pip install --quiet -e ".[dev]"
	touch $@

js/node_modules/.installed: js/package.json js/package-lock.json
	cd js && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# A CJK font too: the widget's lang="zh" labels are checked by looking (tests/browser/test_language.py).
chromium:
	@test -x /usr/bin/chromium || { $(SUDO) apt-get update -q && $(SUDO) apt-get install -y -q chromium; }
	@fc-list :lang=zh | grep -q . || { $(SUDO) apt-get update -q && $(SUDO) apt-get install -y -q fonts-wqy-microhei; }

bundle: js/node_modules/.installed
	cd js && node build.mjs

bundle-check: js/node_modules/.installed
	cd js && node build.mjs --check

# Python lint, format and types (settings in pyproject.toml). `ruff format .` fixes the second.
lint: $(VENV)/.installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy attn_widget

# Types first (JSDoc, checked by tsc in strict mode), then the unit tests.
test-js: js/node_modules/.installed
	cd js && npx tsc -p jsconfig.json && node --test test/

test-py: $(VENV)/.installed chromium
	$(PYTHON) -m pytest --durations=10  # the ten slowest, to see which test nears its timeout

bench: $(VENV)/.installed
	$(PYTHON) -m pip install --quiet -e ".[dev,bench]"
	$(PYTHON) benchmarks/flow.py
	$(PYTHON) benchmarks/flow_row.py
	$(PYTHON) benchmarks/pinned_row.py
	$(PYTHON) benchmarks/effective.py
	$(PYTHON) benchmarks/frame_time.py
	$(PYTHON) benchmarks/value_zeroing.py
	$(PYTHON) benchmarks/seq2seq.py --threads 1

clean:
	rm -rf $(VENV) js/node_modules tests/artifacts
