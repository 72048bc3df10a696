#!/usr/bin/env bash
# trainspeed.sh OLD [ROUNDS]: training throughput of commit OLD's trainer
# against the working tree's, side by side in one run. Both get
# bench/trainside_test.go.in (BenchmarkTrainSide: 20 utterances of about
# 3 s, 256 units, SpecAugment, dropout, 2 workers, 8 steps) and run it
# alternately ROUNDS times (default 3); it prints each run's audio seconds
# per second and the ratio of the means. The issue's reference, the
# trainer of 2026-12-03 before batching, is da0f3d1:
#   bench/trainspeed.sh da0f3d1
# Run it on a quiet machine: a training run in the background makes the
# figures meaningless.
set -euo pipefail
cd "$(dirname "$0")/.."
old=${1:?usage: bench/trainspeed.sh OLD [ROUNDS]}
rounds=${2:-3}
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/old" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git worktree add --detach "$tmp/old" "$old" >/dev/null 2>&1
cp bench/trainside_test.go.in "$tmp/old/model/trainside_test.go"
cp bench/trainside_test.go.in model/trainside_test.go
trap 'rm -f model/trainside_test.go; git worktree remove --force "$tmp/old" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
(cd "$tmp/old" && go test -c -o "$tmp/old.test" ./model)
go test -c -o "$tmp/new.test" ./model
run() { "$1" -test.run '^$' -test.bench TrainSide -test.benchtime 8x | awk '/audio-s\/s/{print $(NF-1)}'; }
o=() n=()
for r in $(seq "$rounds"); do
  o+=("$(run "$tmp/old.test")")
  n+=("$(run "$tmp/new.test")")
  printf 'round %d: %s %s audio-s/s, working tree %s audio-s/s\n' "$r" "$old" "${o[-1]}" "${n[-1]}"
done
printf '%s\n' "${o[@]}" >"$tmp/o"; printf '%s\n' "${n[@]}" >"$tmp/n"
mo=$(awk '{s+=$1} END{print s/NR}' "$tmp/o"); mn=$(awk '{s+=$1} END{print s/NR}' "$tmp/n")
printf 'mean: %s %.1f, working tree %.1f audio-s/s: %.2fx\n' "$old" "$mo" "$mn" "$(echo "$mn / $mo" | bc -l)"
