# simabi — build, test and check targets. `make test` is what CI runs.
GO        ?= go
BIN       := $(CURDIR)/bin
STATICCHECK_VERSION := v0.8.2
STATICCHECK := $(BIN)/staticcheck
FUZZTIME  ?= 60s
BENCHTIME ?= 1s

# Packages whose tests start goroutines run under the race detector (which
# needs cgo in the toolchain; our module itself never uses cgo).
RACE_PKGS := $(filter-out %/crosscheck,$(shell $(GO) list ./internal/...)) ./latch/... ./sim
# conformance/htmlreport renders pages (no goroutines of its own) and would
# build gonum/plot once more under the race detector; internal/crosscheck
# type-checks the standard library from source, one goroutine, 34 s under
# the detector against 10 without.
PLAIN_PKGS := ./abi/... ./validation/... ./conformance/htmlreport ./internal/crosscheck
# Packages whose tests load libraries (emitted fakes, the recorder, stubs) in
# their own process: every make test runs them in a random order (the seed is
# drawn here and printed, since go test shows it only for a failing package;
# SHUFFLE=<seed> replays it), under the race detector but for the commands,
# ./tests and ./sim/emit, so a test that depends on what an earlier one loaded or left
# behind fails. `make test-repeat` runs them twice more in one process.
LIB_RACE_PKGS := ./onboard/... ./lifecycle/... $(filter-out %/htmlreport,$(shell $(GO) list ./conformance/...))
# The lanes' tests (the CI action's steps, ChipWorker's records replayed
# against lifecycle) run commands and children, like the commands' own: in
# one go test with ./cmd/..., whose tests wait on children much of the time,
# so the packages share the cores instead of taking turns. ./tests drives
# the packages above end to end, through C libraries and children, whose Go
# concurrency (the runner's threads, onboard, lifecycle's worker) their own
# race-detected tests cover: under the race detector it took 178 s against
# 119 s without. Its tests that race goroutines of their own run under the
# detector too (RACE_TESTS_TESTS, in test-race). So does ./sim/emit, whose
# Go side renders templates and drives gcc (its bundle and mutant-source
# tests took ~20 times as long under the detector: 26 s against 1.5 s) and
# calls the C it built, which the detector does not see; its tests whose
# own goroutines share Go state (the build cache's concurrent builds, the
# comm and recorder tests' threads) run under it (RACE_EMIT_TESTS). go test
# starts the binaries in this order, two at a time: the three longest first
# (cmd/abicheck 202 s, ./tests 136 s, ./sim/emit 81 s in make test), so
# the run does not end on one of them alone.
LIB_PLAIN_PKGS := ./tests/... ./cmd/... ./sim/emit/... ./lanes/...
RACE_TESTS_TESTS := TestWorkerGateLinearizable TestGateModelHasTeeth TestControlHoldGate_X2_parkedPrepare TestComm_ECOMM_ranksInProcesses
RACE_EMIT_TESTS := TestBuildConcurrentSameKeyCompilesOnce TestMechanicalMutantsCompile TestCommCopy_EPROG28_everyRanksWindow TestRecorderImageLimit
# The named tests (the *_TESTS lists) are names; anchored makes one go test
# pattern of a list, ^(A|B)$$, for -run and -skip alike.
space := $(subst ,, )
anchored = ^($(subst $(space),|,$(strip $(1))))$$
ifeq ($(origin SHUFFLE),undefined)
SHUFFLE := $(shell od -An -N4 -tu4 /dev/urandom | tr -d ' ')
endif
# Per test binary. Under the race detector ./tests took 7 minutes in a fresh
# clone beside other jobs, and go test's default of 10 minutes ran out when
# three more shared the two cores.
TEST_TIMEOUT ?= 30m

.PHONY: mutant-repros all build test test-race test-plain test-shuffle test-shuffle-plain test-shuffle-race test-repeat test-python vet lint fuzz bench mutants upstream consumer upstream-tests clean tools fuzz-libfuzzer fuzz-c-against-go generate

all: build vet test

build:
	CGO_ENABLED=0 $(GO) build ./...

# own_tmpdir gives the rest of a recipe's line a $TMPDIR of its own, removed
# when the line ends, interrupted or not: a test binary a signal ends
# leaves its temporary directories behind, and a signal would end the shell
# without its EXIT trap, so HUP, INT and TERM become exits.
own_tmpdir = tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; trap 'exit 129' HUP; trap 'exit 130' INT; trap 'exit 143' TERM; export TMPDIR="$$tmp"

vet:
	$(GO) vet ./...

# go test vets each package it builds with a subset of go vet's analyzers
# (half a minute of CPU over make test's runs without the race detector).
# make test has run them all over the same builds in its vet step, so its
# go test runs without the detector pass PLAIN_VET=-vet=off; those with it
# keep theirs, which sees the files only race builds take (//go:build race).
PLAIN_VET ?=

# The Python package's tests (one process, mostly waiting on its
# children), test-plain and test-race run side by side: the tail of each
# go test is one test binary at a time. They are make's jobs, not a
# script's background jobs (which ignore SIGINT), so a Ctrl-C ends them
# all; each command's output is printed whole when it ends (-Oline). One
# shuffle seed serves every step.
test: build vet cross
	@echo "make test: shuffle seed $(SHUFFLE)"
	@$(own_tmpdir); $(MAKE) --no-print-directory -j3 -Oline SHUFFLE=$(SHUFFLE) PLAIN_VET=-vet=off test-python test-plain test-race
	@$(MAKE) --no-print-directory SHUFFLE=$(SHUFFLE) PLAIN_VET=-vet=off test-shuffle

# Tests whose Go side is one goroutine driving in-process targets, and
# cost five to twelve times the CPU under the race detector (CPU-s alone,
# plain against race): conformance/suite's mutant test (~300 mutants in
# process; 58 s against a fifth), its random sequences on sim (3 against
# 18) and its diff of the emitted fake against sim (1 against 11: the
# fake's side is C, which the detector does not see), and session's
# diff-progress test, the whole catalogue four times (2 against 25). The
# concurrency they drive is raced by the packages' other tests: the
# diff's two builds at once by TestDiff_selfIsEmpty (sim on both sides),
# the runner's rank threads by TestCommRanks_ECOMM8_ECOMM20_randomSessionsPark.
PLAIN_SUITE_TESTS := TestEmittedMutantsKilled TestSimRandom TestDiff_emittedAgainstSimIsEmpty_F1
PLAIN_SESSION_TESTS := TestDiffProgress
# Four tests of ./conformance whose Go side is one goroutine stepping the
# model or the Go simulator, or a parent waiting on a child test process:
# the pure and shared model states compared step by step (890 s under the
# race detector beside other jobs, 5 s without), the M-5 probe budget
# (62 s against 2 s) and the two segment tests, whose ranks run in a child
# (121 s against 21 s). The parked ranks' concurrency is raced by
# TestCommRanks_ECOMM8_ECOMM20_randomSessionsPark.
PLAIN_CONF_TESTS := TestStateOwnedAndSharedAgree TestProbeFillsTheBudgetExactly_M5 TestCommCleanup_ECOMM58_runsLeaveNoSegment TestCommCleanup_ECOMM59_timedOutRanksLeaveNoSegment

# The named tests of three packages run in one go test, so their binaries
# build and run side by side (the names are unique to their packages).
test-plain:
	$(GO) test $(PLAIN_VET) -timeout $(TEST_TIMEOUT) -count=1 $(PLAIN_PKGS)
	$(GO) test $(PLAIN_VET) -timeout $(TEST_TIMEOUT) -count=1 -shuffle=$(SHUFFLE) -run '$(call anchored,$(PLAIN_SUITE_TESTS) $(PLAIN_SESSION_TESTS) $(PLAIN_CONF_TESTS))' ./conformance/suite ./conformance/session ./conformance

test-race:
	$(GO) test -timeout $(TEST_TIMEOUT) -count=1 -race $(RACE_PKGS)
	$(GO) test -timeout $(TEST_TIMEOUT) -count=1 -race -run '$(call anchored,$(RACE_TESTS_TESTS) $(RACE_EMIT_TESTS))' ./tests ./sim/emit

# The Python package's tests (python/tests), from the source tree, with
# Debian's python3 and its pytest (apt-get install python3-pytest
# python3-venv; .ci/run installs them). Its temporary files go in a
# $TMPDIR of its own (own_tmpdir; pytest's default keeps /tmp/pytest-of-USER).
PYTHON ?= /usr/bin/python3

test-python:
	@if $(PYTHON) -m pytest --version >/dev/null 2>&1; then \
		echo "test-python: $(PYTHON) -m pytest python/tests"; \
		$(own_tmpdir); \
		cd python && PYTHONDONTWRITEBYTECODE=1 $(PYTHON) -m pytest -q -p no:cacheprovider --basetemp "$$tmp/pytest" tests; \
	else \
		echo "test-python: SKIPPED: $(PYTHON) has no pytest (apt-get install python3-pytest)"; \
	fi

# Regenerate what is generated from the Go sources: the Python package's
# bundle of emitted C (python/src/simabi_fake/_bundle, sim/emit/bundle.go).
generate:
	$(GO) generate ./...

# The two runs go side by side, as make's jobs: the commands' and lanes'
# tests wait on children most of the time, and the race-detected ones fill
# that time. The plain run leaves out the tests test-race runs under the
# detector.
test-shuffle:
	@echo "test-shuffle: seed $(SHUFFLE)"
	@$(own_tmpdir); $(MAKE) --no-print-directory -j2 SHUFFLE=$(SHUFFLE) test-shuffle-plain test-shuffle-race

test-shuffle-plain:
	$(GO) test $(PLAIN_VET) -timeout $(TEST_TIMEOUT) -count=1 -shuffle=$(SHUFFLE) -skip '$(call anchored,$(RACE_TESTS_TESTS) $(RACE_EMIT_TESTS))' $(LIB_PLAIN_PKGS)

test-shuffle-race:
	$(GO) test -timeout $(TEST_TIMEOUT) -count=1 -race -shuffle=$(SHUFFLE) -skip '$(call anchored,$(PLAIN_SUITE_TESTS) $(PLAIN_SESSION_TESTS) $(PLAIN_CONF_TESTS))' $(LIB_RACE_PKGS)

# Every library-loading package's tests twice in one process, shuffled: what
# the first pass leaves behind must not change the second (not part of make
# test: it doubles their time).
test-repeat:
	$(GO) test -timeout $(TEST_TIMEOUT) -count=2 -shuffle=$(SHUFFLE) $(LIB_PLAIN_PKGS) $(LIB_RACE_PKGS)

# The platforms besides the host's the module must compile on, cgo-free:
# linux/arm64 and darwin/arm64 reach every file of ours the host does not
# (internal/osthread's portable gettid, the darwin files). Every package
# and its tests is type-checked there from source (internal/crosscheck),
# the standard library and the dependencies included: a build per platform
# compiled all of them from an empty cache, 240 of a clean clone's CPU-s,
# where the type-check takes 10. The host builds (build) and vets (vet).
CROSS_PLATFORMS := linux/arm64 darwin/arm64

.PHONY: cross
cross:
	$(GO) run ./internal/crosscheck $(CROSS_PLATFORMS)

$(STATICCHECK):
	GOBIN=$(BIN) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

tools: $(STATICCHECK)

lint: $(STATICCHECK)
	@# the module's packages only: build/ holds scratch copies (fuzz/libfuzzer's)
	@test -z "$$(gofmt -l $$($(GO) list -f '{{.Dir}}' ./...))" || { echo "gofmt needed:"; gofmt -l $$($(GO) list -f '{{.Dir}}' ./...); exit 1; }
	$(STATICCHECK) ./...

# Each fuzz target runs for FUZZTIME (default 60s).
fuzz:
	$(GO) test ./validation -run '^$$' -fuzz '^FuzzImage$$' -fuzztime $(FUZZTIME)
	$(GO) test ./validation -run '^$$' -fuzz '^FuzzCallConfig$$' -fuzztime $(FUZZTIME)
	$(GO) test ./tests/opdiff -run '^$$' -fuzz '^FuzzOps$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 1s
	$(GO) test ./tests/opfuzz -run '^$$' -fuzz '^FuzzOpsSim$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 1s
	$(GO) test ./tests/commdiff -run '^$$' -fuzz '^FuzzCommOps$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 1s
	$(GO) test ./conformance -run '^$$' -fuzz '^FuzzOpText$$' -fuzztime $(FUZZTIME)
	$(GO) test ./conformance/report -run '^$$' -fuzz '^FuzzBaseline$$' -fuzztime $(FUZZTIME)
	$(GO) test ./conformance/trace -run '^$$' -fuzz '^FuzzTraceText$$' -fuzztime $(FUZZTIME)
	$(GO) test ./conformance/session -run '^$$' -fuzz '^FuzzTraceTruncation$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./tests -run '^$$' -fuzz '^FuzzImageCAgainstGo$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./tests -run '^$$' -fuzz '^FuzzRecordedTraceAgreesWithLive$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s

bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) ./...

# Build every mutant of the emitted fake runtime (F-4) and check that the
# conformance checker kills each one; exits 1 if one survives. Then the
# random hunt, which make test leaves out (about 20 CPU-s): random sequences
# alone against the mutants conformance/suite's randomHunt names, which
# must kill those it says always.
mutants:
	$(GO) run ./cmd/abicheck mutants
	$(GO) test -count=1 -run '^TestEmittedMutantsRandom$$' ./conformance/suite

# Every emitted mutant checked with -repro-dir, and every repro file written
# replayed on it: each must reproduce the finding its header names (make
# test does three mutants; this, all of them, takes about an hour).
mutant-repros:
	ABICHECK_ALL_MUTANT_REPROS=1 $(GO) test -count=1 -timeout 3h -parallel 2 -run '^TestMutantRepros_replayTheirOwnFinding$$' -v ./cmd/abicheck

# The upstream lane (needs a simpler source tree, so not part of `make test`):
# builds upstream's four simulator runtimes into build/upstream and checks each
# against the baseline of its upstream commit in lanes/upstream/<commit>/;
# exits 0 when only baseline findings appear. docs/upstream.md has the results.
upstream:
	@test -n "$(SIMPLER_SRC)" || { echo "usage: make upstream SIMPLER_SRC=/path/to/simpler [SIMPLER_COMMIT=6ebaf77]" >&2; exit 2; }
	lanes/upstream/run $(SIMPLER_SRC)

# The consumer lane (needs a simpler source tree, so not part of `make test`):
# upstream's ChipWorker, compiled from SIMPLER_SRC with lanes/consumer/driver.cpp,
# takes every step of a session over the legacy fake (plain, strict, failing
# init, failing finalize), over upstream's simulator builds (those of
# build/upstream are reused) and through the recorder over both; then
# upstream's Python package drives the fake when nanobind is given
# (NANOBIND_DIR, or NANOBIND_GIT and ROBIN_MAP_GIT); and the differential of
# ChipWorker and lifecycle runs every action of lanes/consumer/chipdiff
# (CHIPDIFF_UPDATE=1 rewrites its records). Writes
# build/consumer/summary.md; docs/upstream.md has the results.
consumer:
	@test -n "$(SIMPLER_SRC)" || { echo "usage: make consumer SIMPLER_SRC=/path/to/simpler [NANOBIND_DIR=...]" >&2; exit 2; }
	lanes/consumer/run $(SIMPLER_SRC)

# The unit-suite lane (needs a simpler source tree and nanobind, so not part
# of `make test`): upstream's own Python unit suite (tests/ut/py) on a copy of
# SIMPLER_SRC in build/unitsuite, on upstream's simulator build and then on
# the legacy fake swapped in by gen-fake-runtime install (plain, strict),
# upstream's build restored after each; fails on any test that passes on
# upstream's build and not on a fake. Writes build/unitsuite/summary.md;
# docs/upstream.md has the results.
upstream-tests:
	@test -n "$(SIMPLER_SRC)" || { echo "usage: make upstream-tests SIMPLER_SRC=/path/to/simpler NANOBIND_GIT=/path/to/nanobind.git ROBIN_MAP_GIT=/path/to/robin-map.git (or NANOBIND_DIR=...)" >&2; exit 2; }
	lanes/unitsuite/run $(SIMPLER_SRC)

clean:
	rm -rf $(BIN) build

# Every fuzz target as a libFuzzer binary, built the way OSS-Fuzz and
# ClusterFuzzLite build native Go fuzz tests (go-118-fuzz-build, clang
# -fsanitize=fuzzer; .clusterfuzzlite/build.sh runs the same build) into
# build/libfuzzer/out, then each run for FUZZTIME (default 60s) with its
# corpus in build/libfuzzer/corpus. Needs clang (Debian: apt-get install -y clang).
fuzz-libfuzzer:
	FUZZTIME=$(FUZZTIME) fuzz/libfuzzer all

# FuzzImageCAgainstGo (the emitted runtime's image check against
# validation.Image on the same bytes) for FUZZTIME with Go's engine; needs cc.
fuzz-c-against-go:
	$(GO) test ./tests -run '^$$' -fuzz '^FuzzImageCAgainstGo$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
