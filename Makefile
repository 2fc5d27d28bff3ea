# feedagg — the two commands of the README are `make demo` and `make test`.
SHELL := /bin/bash
SWIFT ?= swift
BIN := .build/release/feedagg
# libxml2 parses RSS, Atom and RDF (`source: feed`); chromium with its driver and newsboat are the
# real browser and the real feed reader the serve tests drive; postgresql's server programs are what
# the tests' throwaway cluster runs (FeedaggTesting's PostgresCluster: initdb into a temporary
# folder, a free loopback port; a system cluster the package may start on 5432 is not used); wrk is
# the load the serve tests put on it (256 connections); openssl makes the TLS tests' throwaway CA.
APT_PACKAGES := libcurl4-openssl-dev zlib1g-dev libyaml-dev libsqlite3-dev libxml2-dev pkg-config python3 python3-venv \
  chromium chromium-driver newsboat postgresql wrk openssl
VENV := .build/venv

.PHONY: deps pytools build release install man docs demo test bench bench-cpu bench-cpu-run bench-feed bench-feed-run fixtures fuzz clean

# Installs the Debian packages the build needs, only when one is missing.
deps:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

# The Python tools the tests run (PyPI's feedparser checks the Atom output as a feed reader
# would; selenium drives chromium through chromium-driver), in a virtualenv under .build/venv,
# created and filled only when one is missing.
PYTOOLS := feedparser selenium
pytools: deps
	@if ! $(VENV)/bin/python -c 'import feedparser, selenium' >/dev/null 2>&1; then \
	  echo "creating $(VENV) with $(PYTOOLS)"; \
	  rm -rf $(VENV) && python3 -m venv $(VENV) && $(VENV)/bin/pip install -q $(PYTOOLS); \
	fi

build: deps
	$(SWIFT) build

# Release builds link the Swift runtime and Foundation statically (`--static-swift-stdlib`: the
# binary runs without a Swift toolchain installed) with lld, packing the relative relocations
# (`-z pack-relative-relocs`, DT_RELR, read by glibc >= 2.36): the position-independent binary
# then carries 47 KB of relocations instead of 3.3 MB, all read at every start (peak RSS of
# `feedagg --help` and of a pull: docs/benchmarks.md). Every release product shares these flags,
# so building one never recompiles what another built.
RELEASE := $(SWIFT) build -c release --static-swift-stdlib -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs

release: deps
	$(RELEASE) --product feedagg

# The man page, generated from the command definitions by swift-argument-parser's generate-manual
# tool run on the release binary (what its `swift package generate-manual` plugin does, without
# the plugin's own release build, which would rebuild everything without the flags above), in
# .build/man/feedagg.1. Read it with `man -l .build/man/feedagg.1`.
man: release
	$(RELEASE) --product generate-manual
	mkdir -p .build/man
	.build/release/generate-manual $(BIN) --output-directory .build/man
	@echo "wrote .build/man/feedagg.1"

# Installs the release binary, its man page and its bash, zsh and fish completions under
# $(PREFIX) (default /usr/local; `make install PREFIX=~/.local` needs no root). DESTDIR is honoured.
# The binary is installed stripped (about half the size, runs the same); its symbols stay in
# .build/release/feedagg.debug, which the installed binary names (gdb loads it from there).
PREFIX ?= /usr/local
install: release man
	install -d "$(DESTDIR)$(PREFIX)/bin" "$(DESTDIR)$(PREFIX)/share/man/man1" \
	  "$(DESTDIR)$(PREFIX)/share/bash-completion/completions" "$(DESTDIR)$(PREFIX)/share/zsh/site-functions" \
	  "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d"
	objcopy --only-keep-debug $(BIN) .build/release/feedagg.debug
	install -m 0755 -s $(BIN) "$(DESTDIR)$(PREFIX)/bin/feedagg"
	objcopy --add-gnu-debuglink=.build/release/feedagg.debug "$(DESTDIR)$(PREFIX)/bin/feedagg"
	install -m 0644 .build/man/feedagg.1 "$(DESTDIR)$(PREFIX)/share/man/man1/feedagg.1"
	$(BIN) --generate-completion-script bash > "$(DESTDIR)$(PREFIX)/share/bash-completion/completions/feedagg"
	$(BIN) --generate-completion-script zsh > "$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_feedagg"
	$(BIN) --generate-completion-script fish > "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/feedagg.fish"
	@echo "installed $(DESTDIR)$(PREFIX)/bin/feedagg (stripped; symbols in .build/release/feedagg.debug)"

# The reference a source author browses: DocC archives of FeedCore (with the article "Writing a
# source module" and its "Choosing a pagination strategy") and GitHubSource (GitHubAPI), built by
# swift-docc-plugin into .build/docs/<Module>.doccarchive (open one with `docc preview`, or serve
# it: it is transformed for static hosting). Slow (symbol graphs of both modules): not part of
# `make test`. Needs the docc binary, which ships with the Swift toolchain beside swift.
DOCS_MODULES := FeedCore GitHubSource
docs:
	@docc="$$(dirname "$$(readlink -f "$$(command -v $(SWIFT))")")/docc"; \
	if [ ! -x "$$docc" ] && ! command -v docc >/dev/null 2>&1; then \
	  echo "make docs: no docc binary in this Swift toolchain ($$docc) nor on the PATH; install a toolchain that ships DocC" >&2; \
	  exit 1; \
	fi
	mkdir -p .build/docs
	for module in $(DOCS_MODULES); do \
	  $(SWIFT) package --allow-writing-to-directory .build/docs generate-documentation --target $$module \
	    --disable-indexing --enable-inherited-docs --transform-for-static-hosting --hosting-base-path $$module \
	    --output-path .build/docs/$$module.doccarchive || exit 1; \
	done
	@echo "wrote $(foreach m,$(DOCS_MODULES),.build/docs/$(m).doccarchive)"

# The main job on the embedded default: feeds.yaml over the recorded Fixtures/, offline.
# Its store stays in .build/demo/ (a second run is incremental: every page 1 answers 304), so
# `$(BIN) show --db .build/demo/feedagg.sqlite` reads it afterwards.
demo: release
	mkdir -p .build/demo
	$(BIN) pull --config feeds.yaml --replay Fixtures --db .build/demo/feedagg.sqlite

# The whole test suite (unit, loopback HTTP, bench server, CLI end to end, feedparser over the
# Atom output), TEST_WIDTH test cases at a time. Swift Testing would otherwise start all ~1,100 at
# once: on 2 cores, hundreds of feedagg, python, chromium and newsboat processes then compete, and
# a test's servers answer seconds late. (The scaffold end-to-end test compiles a copy of the
# package meanwhile, at the lowest CPU priority.)
TEST_WIDTH ?= 8
test: deps pytools
	$(SWIFT) build --build-tests
	SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(TEST_WIDTH) $(SWIFT) test --skip-build

# Benchmarks: feedagg against the peers of ../shared/bench/ that can run here, in the same run
# (W1, W2, W2i, W3; BENCH_REPS=3 repetitions; Scripts/bench.sh lists its other settings), then
# the ratio table and issue 4's targets, then issue 15's scale workloads (W5: one 50,000-item
# feed; READ: show on a generated 1,000,000-item store; GROWTH: 30 refreshes of W1), each next to
# its target, then issue 13's W6 (2,000 feeds refreshed by 1, 2 and 4 `feedagg serve` workers on
# a throwaway PostgreSQL cluster, and by one on SQLite). Some minutes on 2 CPUs (the first READ run
# also generates its store, kept in .build/bench-store/). `Scripts/bench.sh --workloads W5,READ`
# runs some alone.
bench: release
	$(RELEASE) --product feedagg-cpu-bench
	$(RELEASE) --product feedagg-store-gen
	$(RELEASE) --product feedagg-feed-bench
	Scripts/bench.sh
	$(MAKE) --no-print-directory bench-cpu-run
	$(MAKE) --no-print-directory bench-feed-run

# Feed parser benchmark (source: feed): the feed fixtures parsed round after round to 50 MB; then
# a 50 MB and a 200 MB Atom document written to files and each streamed by a fresh process
# (FeedDocument.stream): MB/s and that process's peak RSS (the same for both sizes). Then an exec
# plugin's overhead per page against the same items from source: http over loopback (goal <= 5 ms).
# BENCH_FEED_ARGS="--megabytes 100 --rounds 5" for larger documents and five fixture runs.
BENCH_FEED_ARGS ?=
bench-feed: deps
	$(RELEASE) --product feedagg-feed-bench
	$(MAKE) --no-print-directory bench-feed-run

bench-feed-run:
	.build/release/feedagg-feed-bench --fixtures Tests/WebFeedSourceTests/Fixtures $(BENCH_FEED_ARGS)

# CPU-bound benchmark of our own: decode + map + merge of 100,000 GitHub repos (10 x 100 pages of
# ~5.6 KB objects) and 20,000 500px photos from page files generated once into .build/, through the
# real sources; items/s per stage and peak RSS. BENCH_CPU_ARGS="--reps 1" for a quicker run.
BENCH_CPU_ARGS ?=
bench-cpu: deps
	$(RELEASE) --product feedagg-cpu-bench
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
