# kubequiz: `make run` serves the app, `make test` is what CI runs.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := build

GO      ?= go
BIN     := bin/kubequiz
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)

.PHONY: generate check-generated build build-static run test test-short crashtest soak fuzz vet fmt bench assets check-assets clean

generate: ## regenerate *_templ.go from views/*.templ (templ pinned by go.mod's tool directive)
	$(GO) tool templ generate

check-generated: generate ## fail when the committed *_templ.go do not match the .templ sources
	@git diff --exit-code --stat -- 'views/*_templ.go' || { echo "views: generated code is stale: run make generate and commit"; exit 1; }
	@untracked=$$(git ls-files --others --exclude-standard -- 'views/*_templ.go'); \
	  test -z "$$untracked" || { echo "views: uncommitted generated files: $$untracked"; exit 1; }

build: ## build bin/kubequiz
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/kubequiz

build-static: ## a static binary without cgo, as in the container image
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '-s -w $(LDFLAGS)' -o $(BIN) ./cmd/kubequiz

run: build ## serve on 127.0.0.1:8080 with ./data/kubequiz.db (override with KUBEQUIZ_ADDR, KUBEQUIZ_DB)
	./$(BIN) serve

vet: ## go vet and gofmt
	$(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go') 2>/dev/null); test -z "$$out" || { echo "gofmt needed: $$out"; exit 1; }

# The race detector needs cgo, and so a C compiler (gcc).
RACE := $(shell test "$$($(GO) env CGO_ENABLED)" = 1 && echo -race)

test: vet check-generated check-assets ## everything CI checks
	@test -n "$(RACE)" || echo "make test: cgo is off (no C compiler?): running without the race detector; install gcc to use it"
	$(GO) test $(RACE) -count=1 ./...

test-short: ## quick run without the race detector or the browser
	$(GO) test -short ./...

# The SIGKILL test of the store (internal/store/crash_test.go) with more
# trials than make test's 4: each kills a process recording reviews eight
# times and checks that no acknowledged review was lost.
CRASH_TRIALS ?= 20

crashtest: ## the kill -9 test of acknowledged reviews, CRASH_TRIALS trials (20)
	KUBEQUIZ_CRASH_TRIALS=$(CRASH_TRIALS) $(GO) test -count=1 -v -timeout 60m -run '^TestKillDuringReviews$$' ./internal/store/

# The soak run (cmd/kqsoak): bin/kubequiz serve as a child process on a
# temporary database, SOAK_LEARNERS learners studying for SOAK_DURATION
# with 2 to 8 s of thought per card, one admin importing and ingesting,
# and kubequiz backup halfway, whose copy is checked against the reviews
# acknowledged before it. make test runs a short one (TestSoakShort).
SOAK_DURATION ?= 3m
SOAK_LEARNERS ?= 200

soak: build ## 200 learners and an admin against one kubequiz serve for SOAK_DURATION (3m), a backup halfway
	$(GO) run ./cmd/kqsoak -bin $(BIN) -learners $(SOAK_LEARNERS) -duration $(SOAK_DURATION)

# Each fuzz target for FUZZTIME, one at a time (go test -fuzz takes one
# target); make test runs their seed corpora only.
FUZZTIME ?= 2m

fuzz: ## run each fuzz target for FUZZTIME (2m)
	$(GO) test -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $(FUZZTIME) ./internal/bank
	$(GO) test -run '^$$' -fuzz '^FuzzReview$$' -fuzztime $(FUZZTIME) ./internal/fsrs
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) ./internal/changelog

bench: ## benchmarks of every package
	$(GO) test -run '^$$' -bench . -benchmem ./...

fmt:
	gofmt -w $$(git ls-files '*.go')
	$(GO) tool templ fmt views

assets: ## refresh the vendored front-end files from the npm registry (pinned in static/npm)
	cd static/npm && npm ci --no-audit --no-fund --ignore-scripts
	cp static/npm/node_modules/htmx.org/dist/htmx.min.js static/htmx-2.0.11.min.js
	cp static/npm/node_modules/@picocss/pico/css/pico.min.css static/pico-2.1.1.min.css
	$(MAKE) check-assets

check-assets: ## offline check that the vendored files are the pinned releases
	cd static && sha256sum --check --quiet SHA256SUMS

clean:
	rm -rf bin
