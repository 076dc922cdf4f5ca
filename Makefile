# The few targets people type. `make test` is what CI runs (.ci/run).
GO ?= go

.PHONY: build demo test lint

build:
	$(GO) build -o bin/vitrine ./cmd/vitrine

# Start the HTTP server on an embedded SQLite database (vitrine.db) filled
# with demo data, printing each demo user's token and client configuration.
demo: build
	bin/vitrine serve --demo

test: lint
	$(GO) test -race -count=1 ./...

lint:
	@out="$$(gofmt -l .)"; if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
