#!/usr/bin/env bash
# Runs every fuzz target for FUZZTIME (default 5s) and prints how many
# inputs each tried. The seed corpora (f.Add in the tests, and
# testdata/fuzz/) also run in every plain `go test`.
set -euo pipefail
cd "$(dirname "$0")/.."
time=${FUZZTIME:-5s}
targets=(
  ".:FuzzParsePrice"
  ".:FuzzDecodeCursor"
  ".:FuzzSKUAndWords"
  "./mcpserver:FuzzToolArguments"
  "./mcpserver:FuzzJSONRPC"
  "./cmd/vitrine:FuzzReadRows"
)
for t in "${targets[@]}"; do
  pkg=${t%%:*}
  name=${t##*:}
  out=$(go test -run='^$' -fuzz="^${name}\$" -fuzztime="$time" "$pkg" 2>&1) || { echo "$out"; echo "FAIL: $name"; exit 1; }
  execs=$(echo "$out" | grep -o 'execs: [0-9]*' | tail -1 | cut -d' ' -f2)
  printf '%-20s %-16s %10s inputs in %s\n' "$name" "$pkg" "${execs:-0}" "$time"
done
