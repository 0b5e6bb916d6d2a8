# Accumulation error: the two commands are `make site` and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PIP := $(BIN)/python -m pip --disable-pip-version-check --quiet
UV_INSTALL := $(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python
# Reproducible builds: every date in the site is the last commit's.
# The end-of-life banners of mkdocs plugins are noise.
export NO_MKDOCS_2_WARNING := 1
export DISABLE_MKDOCS_2_WARNING := true
export SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)

# The site's version, as it is cited: CITATION.cff's `version:` (`make archive VERSION=...` overrides it).
VERSION ?= $(shell sed -n 's/^version: *//p' CITATION.cff | tr -d "\"'")
# mike runs `mkdocs build` (or ProperDocs') by name: the environment's own, whether or not it is activated.
WITH_VENV := PATH="$(abspath $(BIN)):$$PATH"

.PHONY: site serve test check bench chromium clean archive publish-version libraries libraries-data

# The virtual environment, from the pinned lock; fpsum installed editable so
# `make serve` follows edits to the model.  pip brings in uv (its version is the
# lock's) and uv installs the lock, far quicker than pip alone (README: how long).
# Compiled to bytecode as pip does, or every process of the tests compiles
# matplotlib and mkdocs anew where PYTHONDONTWRITEBYTECODE is set.
$(STAMP): requirements.lock pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install "$$(grep '^uv==' requirements.lock)"
	$(UV_INSTALL) -r requirements.lock
	$(UV_INSTALL) --no-deps -e .
	touch $(STAMP)

# MathJax 3.2.2 for the build, pinned by tools/mathjax/package-lock.json (needs Node 18.20+ and npm):
# hooks/content/formulas.py draws every formula with it (tools/mathjax/render.js) when the site is built.
MATHJAX := tools/mathjax/node_modules/.installed
$(MATHJAX): tools/mathjax/package.json tools/mathjax/package-lock.json
	cd tools/mathjax && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# esbuild for the build, pinned by tools/bundler/package-lock.json (needs Node 18.20+): scripts/figures/playground.py
# bundles the playground's ES modules with it into the one classic script the page loads.
BUNDLER := tools/bundler/node_modules/.installed
$(BUNDLER): tools/bundler/package.json tools/bundler/package-lock.json
	cd tools/bundler && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# The playground's checks (issue 26), pinned by tools/playground/package-lock.json (needs Node 20.19+):
# TypeScript checks the JavaScript of docs/assets/javascripts/playground/core (checkJs, strict), eslint
# lints it, node --test runs its unit tests; tests/model/test_playground_arith.py holds it to fpsum bit for bit.
PLAYGROUND := tools/playground/node_modules/.installed
$(PLAYGROUND): tools/playground/package.json tools/playground/package-lock.json
	cd tools/playground && npm ci --no-audit --no-fund --loglevel=error
	touch $@

site: $(STAMP) $(MATHJAX) $(BUNDLER)
	$(BIN)/mkdocs build --strict --site-dir site
	@echo "Site built into site/. Open site/index.html in a browser (it works from disk), or run 'make serve'."

# One zip of the built site for a classroom: unpacked, index.html opens from disk, search included.
archive: site
	$(BIN)/python scripts/site_archive.py --site site --out dist --version $(VERSION)

# The current version, with the alias latest, committed by mike to the local gh-pages branch
# (built with mkdocs-mike.yml: the version selector in the header). Nothing is pushed.
publish-version: $(STAMP) $(MATHJAX) $(BUNDLER)
	$(WITH_VENV) $(BIN)/mike deploy --config-file mkdocs-mike.yml --update-aliases --alias-type redirect $(VERSION) latest
	$(WITH_VENV) $(BIN)/mike set-default --config-file mkdocs-mike.yml latest
	@echo "Version $(VERSION) (alias latest) is in the local gh-pages branch; nothing was pushed."
	@echo "Preview: $(BIN)/mike serve --config-file mkdocs-mike.yml. Publish: git push origin gh-pages."

serve: $(STAMP) $(MATHJAX) $(BUNDLER)
	$(BIN)/mkdocs serve --livereload

# Debian's chromium (the benches, screenshots) and its headless shell (the browser tests), never a browser
# download of Playwright's own.
chromium:
	@command -v chromium >/dev/null && command -v chromium-headless-shell >/dev/null || { apt-get update -qq \
	  && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-headless-shell >/dev/null; }

# The playground's own checks, shared by `make test` and `make check` (which runs them only when they changed).
PLAYGROUND_JS := docs/assets/javascripts/playground tools/playground hooks/theme/theme_loader.js
define playground_checks
	tools/playground/node_modules/.bin/tsc -p tools/playground
	tools/playground/node_modules/.bin/eslint -c tools/playground/eslint.config.js docs/assets/javascripts/playground/core docs/assets/javascripts/playground/ui tools/playground hooks/theme/theme_loader.js
	node --test tools/playground/test/
endef

test: $(STAMP) $(MATHJAX) $(BUNDLER) $(PLAYGROUND) chromium
	$(playground_checks)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/pytest -n 2 --dist loadgroup

# The maintainer's loop, run after each edit (a few minutes; `make bench` prints how long beside make test):
# ruff, mypy (incremental), the model and site layers against the warm build of the repository itself
# (its own .cache), and the browser layer's check pass (tests marked check: every page at 360 px in the
# light palette, axe on three pages).  The playground's checks and its bit-exact tests run only when the
# playground changed: a file of it differs from the last commit (git) and is newer than the last time
# they passed (.cache/playground-checked).  `make test` runs them always.
PLAYGROUND_CHECKED := .cache/playground-checked
PLAYGROUND_CHANGED = $(strip $(shell git status --porcelain --untracked-files=all -- $(PLAYGROUND_JS) 2>/dev/null))
$(PLAYGROUND_CHECKED): $(PLAYGROUND) $(shell find $(PLAYGROUND_JS) -name node_modules -prune -o -type f -print 2>/dev/null)
	$(playground_checks)
	$(BIN)/pytest -q -n 2 tests/model/test_playground_arith.py
	mkdir -p $(@D) && touch $@

check: $(STAMP) $(MATHJAX) $(BUNDLER) chromium $(if $(PLAYGROUND_CHANGED),$(PLAYGROUND_CHECKED))
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/pytest -n 2 --dist loadgroup -q --check-pass tests/model tests/site tests/browser --ignore=tests/model/test_playground_arith.py

# PyTorch, JAX and MLX for the CPU, in an environment of their own (.venv-libraries, about 1.5 GB),
# never part of the site build or of `make test`: every package pinned by requirements-libraries.txt
# and installed by pip with --no-deps, so no resolver can pick another torch (CONTRIBUTING.md: the library rows).
LIBVENV := .venv-libraries
LIBSTAMP := $(LIBVENV)/.installed
LIBPIP := $(LIBVENV)/bin/python -m pip --disable-pip-version-check --quiet
$(LIBSTAMP): requirements-libraries.txt pyproject.toml
	$(PYTHON) -m venv $(LIBVENV)
	$(LIBPIP) install --no-deps -r requirements-libraries.txt
	$(LIBPIP) install --no-deps -e .
	touch $@

# Runs the library rows, gloo's all-reduce and the libraries' normalisation afresh and fails if they differ
# from the committed data/libraries.json, data/gloo_allreduce.json and data/normalisation_libraries.json.
libraries: $(STAMP) $(LIBSTAMP)
	LIBRARIES_PYTHON="$(abspath $(LIBVENV))/bin/python" $(BIN)/pytest tests/model/test_libraries.py tests/model/test_gloo_allreduce.py tests/model/test_normalisation_libraries.py -q -n 0

# Rewrites data/libraries.json, data/gloo_allreduce.json and data/normalisation_libraries.json from a fresh run (commit them).
libraries-data: $(LIBSTAMP)
	$(LIBVENV)/bin/python scripts/libraries/run.py
	$(LIBVENV)/bin/python scripts/libraries/gloo_allreduce.py
	$(LIBVENV)/bin/python scripts/libraries/normalisation.py

# Lighthouse 12.2.3 for `make bench`, pinned by tools/lighthouse/package-lock.json (needs Node 18.20+).
LIGHTHOUSE := tools/lighthouse/node_modules/.installed
$(LIGHTHOUSE): tools/lighthouse/package.json tools/lighthouse/package-lock.json
	cd tools/lighthouse && npm ci --no-audit --no-fund --loglevel=error
	touch $@

bench: $(STAMP) $(MATHJAX) $(BUNDLER) $(LIGHTHOUSE) chromium
	$(BIN)/python scripts/bench.py

clean:
	rm -rf site .cache build/mike dist
