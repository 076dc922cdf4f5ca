#!/usr/bin/env bash
# Runs every fuzz target and prints how many inputs each tried. The seed
# corpora (f.Add in the tests, and testdata/fuzz/) also run in every plain
# `go test`.
#
# By default each target tries a fixed number of inputs (a few seconds'
# worth on a 2-core machine): a -fuzztime given as a duration can fail a
# run that found nothing, when the time runs out while a worker is busy
# (go.dev/issue/75804, fixed in Go 1.27). FUZZTIME=1m (or 100000x) gives
# every target that budget instead.
set -euo pipefail
cd "$(dirname "$0")/.."
targets=(
  ".:FuzzParsePrice:10000x"
  "./service:FuzzDecodeCursor:50000x"
  ".:FuzzSKUAndWords:10000x"
  "./mcpserver:FuzzToolArguments:150x"
  "./mcpserver:FuzzJSONRPC:500x"
  "./internal/shopify:FuzzReader:5000x"
  "./internal/productfile:FuzzReader:8000x"
)
for t in "${targets[@]}"; do
  IFS=: read -r pkg name budget <<<"$t"
  time=${FUZZTIME:-$budget}
  out=$(go test -run='^$' -fuzz="^${name}\$" -fuzztime="$time" "$pkg" 2>&1) || { echo "$out"; echo "FAIL: $name"; exit 1; }
  execs=$(echo "$out" | grep -o 'execs: [0-9]*' | tail -1 | cut -d' ' -f2)
  printf '%-20s %-22s %10s inputs (-fuzztime %s)\n' "$name" "$pkg" "${execs:-0}" "$time"
done
