# The README's two commands: `make bench` (the main job, on SQLite) and `make test`.
SHELL := /bin/bash
export PATH := /opt/swift/usr/bin:$(PATH)
FETCHBENCH := .build/release/fetchbench

.PHONY: bench bench-quick test build bootstrap datasets format lint

bootstrap:
	@scripts/bootstrap

build: bootstrap
	swift build -c release --product fetchbench

# Generates the default datasets when missing (deterministic, checked against
# datasets/manifest.json).
datasets: build
	$(FETCHBENCH) generate --if-missing

# The main job: generates what is missing, measures every case, writes
# results/runs/<UTC timestamp>/ and results/latest/.
bench: build
	$(FETCHBENCH) run

bench-quick: build
	$(FETCHBENCH) run --quick

test: bootstrap
	swift test

format:
	swift format --in-place --recursive Package.swift Sources Tests

lint:
	swift format lint --recursive Package.swift Sources Tests
