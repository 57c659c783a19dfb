# The README's two commands: `make demo` and `make test`. Both set up everything
# they need on a fresh machine (a venv in .venv with exactly the releases of
# requirements/test.lock, the CPU build of torch among them; Node dev tools in
# js/node_modules; Debian chromium for the browser tests).
#
# The declared ranges of pyproject.toml are tested at both ends, each in its own venv:
# `make test-oldest` (requirements/oldest.lock: the lowest releases the ranges allow) and
# `make test-latest` (whatever the index serves today), the tests outside the browser.
# `make lock` compiles both locks anew from pyproject.toml.

VENV      ?= .venv
PYTHON    := $(VENV)/bin/python
PIP_PIN   := pip==26.3
LOCK      := requirements/test.lock
OLDEST    := requirements/oldest.lock
TORCH_CPU := requirements/torch-cpu.txt
WHEELS    ?= /opt/wheels
SUDO      := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
LAB_FLAGS := $(shell [ "$$(id -u)" = 0 ] && echo --allow-root)
# The tests outside the browser, Jupyter and the notebooks: the zoo, methods, models, widget state, corpus.
FAST      := -m "not browser and not jupyter and not notebook" --ignore=tests/browser

.PHONY: demo test lint test-js test-py bundle bundle-check chromium setup bench clean lock test-oldest test-latest

demo: $(VENV)/.installed
	$(VENV)/bin/jupyter lab notebooks/quickstart.ipynb $(LAB_FLAGS)

test: setup chromium bundle-check lint test-js test-py

setup: $(VENV)/.installed js/node_modules/.installed

# Exactly the lock's releases, then the package itself without resolving anything more.
$(VENV)/.installed: pyproject.toml $(LOCK)
	test -x $(PYTHON) || python3 -m venv $(VENV)
	$(PYTHON) -m pip install --quiet $(PIP_PIN)
	$(PYTHON) -m pip install --quiet -r $(LOCK)
	$(PYTHON) -m pip install --quiet --no-deps -e .
	touch $@

# Compile the locks from pyproject.toml: the newest releases within its ranges (torch: the CPU build on this
# machine's disk, see $(TORCH_CPU)) for `make test`, and the lowest ones for `make test-oldest`.
lock: $(VENV)/.installed
	$(VENV)/bin/uv pip compile --quiet --upgrade pyproject.toml --extra dev --python $(PYTHON) \
		--find-links $(WHEELS) --constraint $(TORCH_CPU) --custom-compile-command "make lock" -o $(LOCK)
	$(VENV)/bin/uv pip compile --quiet --upgrade pyproject.toml --extra test --python $(PYTHON) \
		--resolution lowest-direct --custom-compile-command "make lock" -o $(OLDEST)

# Each in a venv of its own: the lowest releases pyproject.toml allows (torch 2.4 is a CUDA build from the index:
# about 3 GB to download), and whatever the index serves today within the ranges, but torch: this machine's CPU build.
INSTALL_oldest := -r $(OLDEST) -e .
INSTALL_latest := --constraint $(TORCH_CPU) -e ".[test]"
test-oldest test-latest: test-%:
	rm -rf .venv-$* && python3 -m venv .venv-$*
	.venv-$*/bin/python -m pip install --quiet $(PIP_PIN)
	.venv-$*/bin/python -m pip install --quiet $(INSTALL_$*)
	.venv-$*/bin/python -m pytest $(FAST)

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

# Python lint, format and types (settings in pyproject.toml), then the front end's lint and format (Biome,
# settings in js/biome.json). `ruff format .` and `cd js && npx biome format --write .` fix the formats.
lint: $(VENV)/.installed js/node_modules/.installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy attn_widget
	cd js && npx biome ci .

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
	rm -rf $(VENV) .venv-oldest .venv-latest js/node_modules tests/artifacts
