# satmon — make targets. `make test` is the command CI and new users run;
# CI (.ci/run) then runs `make test-long`. docs/testing.md says what each
# tier covers and how long it takes.
GO ?= go
STATICCHECK ?= $(shell $(GO) env GOPATH)/bin/staticcheck

.PHONY: build test test-long golden lint fuzz bench bench-ir bench-register pgo demo tools

build:
	$(GO) build -o bin/satmon ./cmd/satmon

# The fast tier: every test and every variant (object, algorithm, option),
# with a tenth of the long tier's seeds and files: testutil.Scale, the one
# knob every heavy test's size goes through, reads SATMON_DIFF_SCALE.
TEST_SCALE ?= 0.1
test:
	SATMON_DIFF_SCALE=$(TEST_SCALE) $(GO) test -timeout 20m ./...

# The long tier: the full sizes (SATMON_DIFF_SCALE=1), Porcupine asked on
# every core check of the real histories (SATMON_PORCUPINE_BUDGET), the
# Kafka fault test at 64 partitions and 10,000 objects (SATMON_KAFKA_BIG), the
# detection rates that docs/testing.md quotes (scale 20), the registers'
# frontier against Porcupine, ENUMERATE -c and SAT at ten times the sizes
# (scale 10: rules on crashed operations have failed only there), and the
# golden comparison with the merge base.
LONG_SCALE ?= 1
FRONTIER_LONG = AgreesWithSAT|TermsDifferential|PastDifferential|PastExtDifferential|RetroDifferential|OpenWriteFirst|FailCoverDifferential|CrashedAgainstPorcupine|HiddenOnlyAgainstPorcupine
test-long:
	SATMON_DIFF_SCALE=$(LONG_SCALE) SATMON_PORCUPINE_BUDGET=1s SATMON_KAFKA_BIG=1 $(GO) test -timeout 60m ./...
	SATMON_DIFF_SCALE=20 $(GO) test ./internal/engine -run '^TestSaturateDetectionRate$$' -count=1 -v -timeout 30m
	SATMON_DIFF_SCALE=10 $(GO) test ./internal/engine -run '^TestFrontier($(FRONTIER_LONG))$$' -count=1 -timeout 30m
	$(MAKE) golden

# The golden comparison (internal/engine/golden_test.go): GOLDEN_BASE (the merge
# base with main, or HEAD itself when there is none: then it only checks
# that the engine is deterministic) records the verdict and step of four
# variants on GOLDEN_N random histories per object and on every log of
# testdata/ and the paper histories, in a copy of its own; the working
# tree must give the same. A change meant to alter verdicts or steps shows
# here with every difference named.
GOLDEN_BASE ?= $(shell git merge-base HEAD main 2>/dev/null || git merge-base HEAD origin/main 2>/dev/null || git rev-parse HEAD)
GOLDEN_N ?= 1000
golden:
	@set -e; dir=$$(mktemp -d); \
	trap 'rm -rf "$$dir"' EXIT; \
	mkdir "$$dir/satmon"; git archive $(GOLDEN_BASE) | tar -x -C "$$dir/satmon"; \
	if [ -d ../shared ]; then ln -s "$$(cd ../shared && pwd -P)" "$$dir/shared"; fi; \
	echo "golden: recording $$(git rev-parse --short $(GOLDEN_BASE)) ($(GOLDEN_N) histories per object)"; \
	(cd "$$dir/satmon" && gpkg=./$$(dirname $$(ls internal/engine/golden_test.go monitor/golden_test.go 2>/dev/null | head -1)) && SATMON_GOLDEN_N=$(GOLDEN_N) SATMON_GOLDEN_WRITE="$$dir/golden.jsonl" $(GO) test $$gpkg -run '^TestGolden$$' -count=1 -timeout 60m); \
	echo "golden: comparing the working tree"; \
	SATMON_GOLDEN="$$dir/golden.jsonl" $(GO) test ./internal/engine -run '^TestGolden$$' -count=1 -timeout 60m -v

lint: tools
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(STATICCHECK) ./...

tools:
	@test -x $(STATICCHECK) || $(GO) install honnef.co/go/tools/cmd/staticcheck@latest

# Fuzz the log reader (FUZZTIME=2m by default).
FUZZTIME ?= 2m
fuzz:
	$(GO) test ./internal/logfmt -run XXX -fuzz FuzzReader -fuzztime $(FUZZTIME)

bench:
	$(GO) test -run XXX -bench . -benchtime 1x ./...

# satmon beside Porcupine on register histories (internal/multi/regbench_test.go):
# generated cas-register logs of 1k, 4k and 20k operations with 8, 16 and
# 20 clients, with and without a stale read, and the jepsen-etcd and
# porcupine-kv totals; each run in a child process under a time and memory
# limit (SATMON_BENCH_LIMIT, SATMON_BENCH_MEM), printed as a table. Up to
# an hour with the default limits of 60 s and 4 GB per run.
bench-register:
	SATMON_BENCH_REGISTER=1 $(GO) test ./internal/multi -run XXX -bench RegisterTable -benchtime 1x -timeout 0

# Instructions per step of `satmon check` (SATURATE -r) under valgrind's
# cachegrind without cache simulation: a deterministic cost, which the
# load of a shared machine does not disturb, to set beside the CPU times
# of `make bench`. On generated queue and stack logs (10,000 operations,
# capacity 16, concurrency 2 and 8) and, when ../shared is beside the
# repository, the paper's five big-msq logs. Parsing the log counts too;
# the garbage collector does not (GOGC=off): its pacing follows the clock,
# and with it the count moved by tens of percent from run to run, as did
# the scheduler's spinning with more than one P (GOMAXPROCS=1).
# SATMON=path/to/another/satmon measures another build on the same logs.
SATMON ?= bin/satmon
IRDIR ?= $(or $(TMPDIR),/tmp)/satmon-bench-ir
bench-ir: build
	@command -v valgrind >/dev/null || { echo "bench-ir needs valgrind (Debian: apt-get install valgrind)"; exit 2; }
	@mkdir -p $(IRDIR); \
	for o in queue stack; do for c in 2 8; do \
	  bin/satmon gen --object $$o --ops 10000 --concurrency $$c --capacity 16 --seed 1 > $(IRDIR)/$$o-c$$c.log; done; done; \
	logs="$(IRDIR)/queue-c2.log $(IRDIR)/queue-c8.log $(IRDIR)/stack-c2.log $(IRDIR)/stack-c8.log"; \
	if [ -d ../shared/data/paper-histories/big-msq ]; then logs="$$logs $$(ls ../shared/data/paper-histories/big-msq/*.log)"; fi; \
	printf '%-28s %8s %14s %10s\n' log steps instructions Ir/step; \
	for f in $$logs; do \
	  steps=$$($(SATMON) check --format json $$f | sed -n 's/.*"steps":\([0-9]*\).*/\1/p'); \
	  ir=$$(GOGC=off GOMAXPROCS=1 valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null $(SATMON) check $$f 2>&1 >/dev/null | sed -n 's/.*I *refs: *//p' | tr -d ,); \
	  printf '%-28s %8s %14s %10s\n' $$(basename $$f) $$steps $$ir $$((ir / steps)); \
	done

# cmd/satmon/default.pgo is a CPU profile of `satmon check` (SATURATE -r)
# on bench-ir's nine logs, reader included (BenchmarkCheckLogs), which
# `go build` and `go install` of cmd/satmon use for profile-guided
# optimisation (inlining and devirtualising the calls that are hot
# there). Regenerate it when the engine changes much; a stale profile
# costs only some of the gain. A new profile is not always better:
# sampling moves which call sites count as hot, and PGO names a call site
# by its line offset inside its function (an edit that moves a hot call
# inside its function loses what the old profile said of it). Profiles
# that merged the engine's stream benchmarks with this one measured worse
# on bench-ir. Compare `make bench-ir` with the old and the new profile
# and keep the better one. A merge of profiles (`go tool pprof -proto
# A.pgo B.pgo > C.pgo`) is one more candidate: samples that one run
# missed another has, and the profile committed is such a merge.
pgo:
	$(GO) test -c -o bin/satmon.test ./cmd/satmon
	cd cmd/satmon && ../../bin/satmon.test -test.run '^$$' -test.bench 'CheckLogs' -test.benchtime 100x -test.cpuprofile ../../bin/pgo.prof >/dev/null
	$(GO) tool pprof -proto -focus 'Monitor..Step|satmon/encode|satmon/saturate|internal/logfmt' bin/satmon.test bin/pgo.prof > cmd/satmon/default.pgo

# The main job on bundled data.
demo: build
	./bin/satmon check testdata/*/*.log || true
