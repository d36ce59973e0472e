# satmon — make targets. `make test` is the command CI and new users run.
GO ?= go
STATICCHECK ?= $(shell $(GO) env GOPATH)/bin/staticcheck

.PHONY: build test lint fuzz bench demo tools

build:
	$(GO) build -o bin/satmon ./cmd/satmon

test:
	$(GO) test -timeout 60m ./...

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
	$(GO) test ./monitor/logfmt -run XXX -fuzz FuzzReader -fuzztime $(FUZZTIME)

bench:
	$(GO) test -run XXX -bench . -benchtime 1x ./...

# The main job on bundled data.
demo: build
	./bin/satmon check testdata/*/*.log || true
