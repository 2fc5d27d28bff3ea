# feedagg — the two commands of the README are `make demo` and `make test`.
SHELL := /bin/bash
SWIFT ?= swift
BIN := .build/release/feedagg
APT_PACKAGES := libcurl4-openssl-dev libyaml-dev libsqlite3-dev pkg-config python3

.PHONY: deps build release demo test bench bench-cpu bench-cpu-run fixtures fuzz clean

# Installs the Debian packages the build needs, only when one is missing.
deps:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release --product feedagg

# The main job on the embedded default: feeds.yaml over the recorded Fixtures/, offline.
# Its store stays in .build/demo/ (a second run is incremental: every page 1 answers 304), so
# `$(BIN) show --db .build/demo/feedagg.sqlite` reads it afterwards.
demo: release
	$(BIN) pull --config feeds.yaml --replay Fixtures --db .build/demo/feedagg.sqlite

# The whole test suite (unit, loopback HTTP, bench server, CLI end to end).
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

# Benchmarks: feedagg against the peers of ../shared/bench/ that can run here, in the same run
# (W1, W2, W2i, W3; BENCH_REPS=3 repetitions; Scripts/bench.sh lists its other settings), then
# the ratio table and issue 4's targets. A few minutes on 2 CPUs.
bench: release
	$(SWIFT) build -c release --product feedagg-cpu-bench
	Scripts/bench.sh
	$(MAKE) --no-print-directory bench-cpu-run

# CPU-bound benchmark of our own: decode + map + merge of 100,000 GitHub repos (10 x 100 pages of
# ~5.6 KB objects) and 20,000 500px photos from page files generated once into .build/, through the
# real sources; items/s per stage and peak RSS. BENCH_CPU_ARGS="--reps 1" for a quicker run.
BENCH_CPU_ARGS ?=
bench-cpu: deps
	$(SWIFT) build -c release --product feedagg-cpu-bench
	$(MAKE) --no-print-directory bench-cpu-run

bench-cpu-run:
	.build/release/feedagg-cpu-bench --pages .build/bench-cpu-pages $(BENCH_CPU_ARGS)

# Re-record Fixtures/ from the bench server (../shared/bench/ghserver.py), credentials scrubbed.
fixtures: release
	Scripts/record-fixtures.sh

# libFuzzer targets (Fuzz/): builds them with -sanitize=fuzzer,address in .build-fuzz and runs
# each for FUZZ_SECONDS (default 60); FUZZ_TARGETS="link-header yaml-parser" picks some.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) SWIFT=$(SWIFT) Scripts/fuzz.sh $(FUZZ_TARGETS)

clean:
	rm -rf .build .build-fuzz
