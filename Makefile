# The README's two commands: `make bench` (the main job, on SQLite) and `make test`.
SHELL := /bin/bash
export PATH := /opt/swift/usr/bin:$(PATH)
FETCHBENCH := .build/release/fetchbench

.PHONY: build-postgres bench reference reference-diff reference-load reference-load-scale bench-postgres bench-quick false-alarms bench-diff bench-load bench-load-max bench-micro bench-micro-check bench-micro-update check ci test build bootstrap datasets docs format lint postgres-stop

bootstrap:
	@scripts/bootstrap

# Without PostgreSQL (the package trait, on by default): swift-nio, postgres-nio and
# BoringSSL are most of a fresh build, and the main job runs on SQLite and memory. A store
# this build left out says so, and how to build it: `make build-postgres`.
build: bootstrap
	swift build -c release --product fetchbench --disable-default-traits

# With PostgreSQL: what the PostgreSQL jobs, the tests and the gate run.
build-postgres: bootstrap
	swift build -c release --product fetchbench

# Generates the default datasets when missing (deterministic, checked against
# datasets/manifest.json).
datasets: build
	$(FETCHBENCH) generate --if-missing

# The main job: a first answer in minutes (banks, `run --quick`), then every case; each
# generates what is missing and writes results/runs/<UTC timestamp>/ and results/latest/.
bench: build
	$(FETCHBENCH) run --quick
	$(FETCHBENCH) run

# The benchmark on all three stores (starts the private PostgreSQL server unless
# FETCHBENCH_POSTGRES_URL points at another).
bench-postgres: build-postgres
	@if [ -z "$$FETCHBENCH_POSTGRES_URL" ]; then scripts/postgres start >/dev/null; fi
	$(FETCHBENCH) run --store memory,sqlite,postgres

# The references the README quotes, recorded by a maintainer on a clean tree at a commit:
# scripts/reference refuses uncommitted changes and replaces the folder only when the run
# finished. results/reference (`run`) and results/diff/reference (`diff`).
reference: build datasets
	scripts/reference run

reference-diff: build datasets
	scripts/reference diff

# The load test's two references, on every store (starts the private PostgreSQL server unless
# FETCHBENCH_POSTGRES_URL points at another).
reference-load: build-postgres
	@if [ -z "$$FETCHBENCH_POSTGRES_URL" ]; then scripts/postgres start >/dev/null; fi
	$(FETCHBENCH) generate --if-missing
	scripts/reference load
	scripts/reference load-max

# The load test at ten and forty times the rows, SQLite and memory (the datasets are generated
# when missing: about 6 GB of memory at 10,000,000 rows).
reference-load-scale: build
	scripts/reference load-scale 2442920
	scripts/reference load-scale 10000000

bench-quick: build
	$(FETCHBENCH) run --quick

# How often compare flags unchanged code: 20 pairs of `run --quick --rows 2000 --processes 3`.
false-alarms: build
	scripts/false-alarms 20 2000

# What keeping a list in sync costs: results/diff/runs/<UTC timestamp>/ and results/diff/latest/.
bench-diff: build
	$(FETCHBENCH) diff

# Concurrent writers against live controllers, 60 s per store: results/load/runs/<UTC timestamp>/.
bench-load: build-postgres
	@if [ -z "$$FETCHBENCH_POSTGRES_URL" ]; then scripts/postgres start >/dev/null; fi
	$(FETCHBENCH) load --store memory,sqlite,postgres

# Each store's own write limit, then the highest rate the load test sustains beside it.
bench-load-max: build-postgres
	@if [ -z "$$FETCHBENCH_POSTGRES_URL" ]; then scripts/postgres start >/dev/null; fi
	$(FETCHBENCH) load --store memory,sqlite,postgres --find-max-rate --out results/load/reference-max-rate

# package-benchmark suites for micro-level costs (Benchmarks/, a package of its own that
# `make build` never builds: the diffs on 10k and 244k IDs,
# one batch fault, ID-list upkeep per change), in release.
bench-micro: bootstrap
	cd Benchmarks && swift package benchmark --no-progress

# The suites against their committed p90 thresholds (Benchmarks/Thresholds): exit 2 on a
# regression beyond the tolerances declared in the suites; improvements beyond them pass with
# a note to record new thresholds (the script says why it reads the verdict from the output).
bench-micro-check: bootstrap
	scripts/bench-micro-check

bench-micro-update: bootstrap
	cd Benchmarks && swift package --allow-writing-to-package-directory benchmark thresholds update --path $(CURDIR)/Benchmarks/Thresholds --no-progress

# In release, like the gate: one build serves both (CI builds from scratch, and a second
# configuration would compile swift-nio, BoringSSL and GRDB twice), and the property tests
# run 5x faster. No @testable imports, so the library modules build exactly as for `make build`.
# The tests run against PostgreSQL too: the private server of scripts/postgres (started
# here, installed from Debian's packages when missing), or FETCHBENCH_POSTGRES_URL's.
# FETCHBENCH_INTERNAL_CHECKS=1 compiles the engine's invariant checks into every mutation
# (Package.swift); the next plain build (make check) compiles them out again.
test: bootstrap
	@if [ -z "$$FETCHBENCH_POSTGRES_URL" ]; then scripts/postgres start >/dev/null; fi
	FETCHBENCH_INTERNAL_CHECKS=1 FETCHBENCH_REQUIRE_POSTGRES=1 swift test -c release --disable-testable-imports

postgres-stop:
	scripts/postgres stop

# The regression gate against results/baselines/ci.json (exit 2 on a regression).
check: build-postgres
	@if [ -z "$$FETCHBENCH_POSTGRES_URL" ]; then scripts/postgres start >/dev/null; fi
	$(FETCHBENCH) check

# What CI runs: the tests, then the gate.
ci: test check

# The engine's DocC catalog (Sources/FetchedResults/FetchedResults.docc); a broken symbol
# link fails it.
docs: bootstrap
	swift package --disable-sandbox generate-documentation --target FetchedResults --warnings-as-errors

format:
	swift format --in-place --recursive Package.swift Sources Tests

lint:
	swift format lint --recursive Package.swift Sources Tests
