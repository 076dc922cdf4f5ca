# The few targets people type. `make test` is what CI runs (.ci/run).
GO ?= go

.PHONY: build demo test lint docs e2e fuzz bench

# bin/vitrine, the server and the operator's commands; bin/vitrine-bench,
# the benchmark that drives it.
build:
	$(GO) build -o bin/vitrine ./cmd/vitrine
	$(GO) build -o bin/vitrine-bench ./cmd/vitrine-bench

# Start the HTTP server on an embedded SQLite database (vitrine.db) filled
# with demo data, printing each demo user's token and client configuration,
# and each open shop window, at {slug}.localhost and under /shops/{slug}/,
# with a curl line that searches it as the demo's shopping agent;
# on 127.0.0.1:8080, or on ADDR (make demo ADDR=127.0.0.1:9090). It builds
# bin/vitrine only: the demo needs no benchmark.
demo:
	$(GO) build -o bin/vitrine ./cmd/vitrine
	bin/vitrine serve --demo $(if $(ADDR),--addr $(ADDR))

# The whole suite: Go tests (PostgreSQL ones on the server at
# VITRINE_TEST_POSTGRES, default postgres://postgres@127.0.0.1:5432/postgres,
# each in a database it creates and drops; here a missing server is a
# failure, not a skip), the SDK's reproduction benchmarks and the server's
# own (BenchmarkServeCall) once each (so that they still run), then the
# end-to-end suites of e2e/: the official TypeScript SDK client, the MCP
# conformance suite at both revisions, Shopify's reference UCP client
# (ucp-cli) at both UCP releases against a window behind a local TLS
# proxy, OAuth against a real
# authorization server, and the sign-in pages in Chromium (installed with
# apt when missing, by scripts/chromium.sh) against the binary.
test: lint build
	VITRINE_TEST_POSTGRES_REQUIRED=1 $(GO) test -race -count=1 -timeout 30m ./...
	$(GO) test ./internal/sdkcost -run '^$$' -bench . -benchtime 1x
	$(GO) test ./httpserver -run '^$$' -bench ServeCall -benchtime 1x
	scripts/fuzz.sh
	scripts/chromium.sh
	cd e2e && npm ci --no-audit --no-fund --loglevel=error && VITRINE_TEST_POSTGRES_REQUIRED=1 npm test

# gofmt, the import groups (standard library, then every module, in two
# groups: gci, which `go tool gci write -s standard -s default .` applies),
# go vet and staticcheck (gci's and staticcheck's versions pinned in go.mod
# as tools).
lint:
	@out="$$(gofmt -l .)"; if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	@out="$$($(GO) tool gci list -s standard -s default .)"; if [ -n "$$out" ]; then echo "gci would change (go tool gci write -s standard -s default .):"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) tool staticcheck ./...

# Regenerate what is generated from the code (docs/permissions.md, the
# tools' snapshots, the shop window's too, ...); tests fail when a
# checked-in copy drifts.
docs:
	$(GO) test ./mcpserver -run 'Doc|Snapshot|SchemasFile' -count=1 -update
	$(GO) test ./shopwindow -run 'Snapshot' -count=1 -update

# Only the end-to-end suites (e2e/), against a fresh build.
e2e: build
	scripts/chromium.sh
	cd e2e && npm ci --no-audit --no-fund --loglevel=error && VITRINE_TEST_POSTGRES_REQUIRED=1 npm test

# Every fuzz target for a few seconds' worth of inputs, or for FUZZTIME
# each (make fuzz FUZZTIME=1m for longer).
fuzz:
	FUZZTIME=$(FUZZTIME) scripts/fuzz.sh

# The benchmark of docs/performance.md: bin/vitrine-bench driving bin/vitrine,
# on SQLite (make bench BENCH_ARGS='--postgres postgres://...' for
# PostgreSQL). About ten minutes on two cores, most of it filling a million
# products. The TypeScript ceiling's packages (the official TypeScript SDK,
# better-sqlite3 with its bundled prebuilt binaries, Node.js 22) come from
# the npm registry, once. Then what a get_product costs the server alone, in
# process, beside a bare go-sdk server on the same path (Vitrine's own CPU a
# call: httpserver's BenchmarkServeCall), and what a tools/call costs the
# go-sdk itself, on its session and stateless paths (internal/sdkcost).
# And the catalog's targets (bin/vitrine-bench catalog: variants, facets,
# the imports of 100,000 products, RSS at a million variants;
# CATALOG_ARGS='--postgres postgres://...' for PostgreSQL, where the JSON
# Lines import goes through a login that is not a superuser and is held to
# SQLite's in the same run), another fifteen to twenty minutes. And the
# shop window's (bin/vitrine-bench shop: search_catalog's p50 against admin
# list_products', UCP get_product's calls/s against admin get_product's, in
# rounds of the same run; SHOP_ARGS='--postgres postgres://...'), a few
# minutes.
bench: build
	test -x cmd/vitrine-bench/ts/node_modules/node/bin/node || (cd cmd/vitrine-bench/ts && npm ci --no-audit --no-fund --loglevel=error)
	bin/vitrine-bench --sizes 10000,1000000 --duration 5s $(BENCH_ARGS)
	bin/vitrine-bench catalog --products 100000 --import 300000 --rss-variants 1000000 --duration 5s $(CATALOG_ARGS)
	bin/vitrine-bench shop --products 100000 --duration 15s $(SHOP_ARGS)
	$(GO) test ./internal/feed -run '^$$' -bench Feeds -benchtime 1x -timeout 30m
	$(GO) test ./httpserver -run '^$$' -bench ServeCall -benchtime 5000x -count 3
	$(GO) test ./httpserver -run '^$$' -bench ServeSessionCall -benchtime 5000x
	$(GO) test ./internal/sdkcost -run '^$$' -bench . -benchmem
