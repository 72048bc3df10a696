#!/usr/bin/env bash
# fuzzlong.sh runs every fuzz target of the repository for N executions
# (default 10 million) and prints one table row per target: name, package,
# executions reached, fuzzing seconds, result. Interesting inputs are not
# minimised (-fuzzminimizetime 0): minimising each new input of a large
# seed (a 9.5 kB model file) held FuzzLoadBytes at a few executions a
# second, with the worker busy but the count standing still. The test
# binary is built with -fuzz, which adds the coverage instrumentation.
#
# Usage: bench/fuzzlong.sh [EXECUTIONS [PARALLEL]]   (PARALLEL: 1)
set -uo pipefail
cd "$(dirname "$0")/.."
n=${1:-10000000}
par=${2:-1}
echo "| target | package | executions | fuzzing time | result |"
echo "|---|---|---|---|---|"
for f in $(git ls-files '*_test.go'); do
  for fn in $(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$f"); do
    pkg=./$(dirname "$f")
    go test -c -fuzz="^$fn\$" -o /tmp/fuzzlong.test "$pkg" || { echo "| $fn | $pkg | | | build failed |"; continue; }
    log=$(mktemp)
    start=$(date +%s)
    (cd "$pkg" && /tmp/fuzzlong.test -test.run='^$' -test.fuzz="^$fn\$" -test.fuzztime="${n}x" \
      -test.fuzzminimizetime=0 -test.parallel="$par" -test.fuzzcachedir=/tmp/fuzzlong-cache) >"$log" 2>&1
    rc=$?
    secs=$(( $(date +%s) - start ))
    execs=$(grep -o 'execs: [0-9]*' "$log" | tail -n 1 | tr -dc 0-9)
    result=ok; [ $rc = 0 ] || result="FAILED (see $log)"
    echo "| $fn | $pkg | ${execs:-?} | ${secs} s | $result |"
    [ $rc = 0 ] && rm -f "$log"
  done
done
