#!/usr/bin/env bash
# Runs every Fuzz* target of the module for $FUZZTIME (default 5s) each,
# one at a time (go test -fuzz takes one target per run).
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZTIME="${FUZZTIME:-5s}"
status=0
for pkg in $(go list ./...); do
  for target in $(go test -list '^Fuzz' "$pkg" 2>/dev/null | grep '^Fuzz' || true); do
    echo "fuzz $pkg $target ($FUZZTIME)"
    if ! go test -run '^$' -fuzz "^${target}\$" -fuzztime "$FUZZTIME" "$pkg" >/tmp/kubego-fuzz.log 2>&1; then
      cat /tmp/kubego-fuzz.log
      status=1
    fi
  done
done
exit $status
