#!/usr/bin/env bash
# alignspeed.sh measures heed align's speed the way a user meets it: one
# process per file on one core (GOMAXPROCS=1), start-up and model loading
# included, over the first N utterances of a manifest. It prints the audio
# seconds, the wall seconds and the speed as a multiple of real time.
#
# Usage: bench/alignspeed.sh MANIFEST [N]    (N defaults to 50)
set -euo pipefail
cd "$(dirname "$0")/.."
man=${1:?usage: bench/alignspeed.sh MANIFEST [N]}
n=${2:-50}
dir=$(dirname "$man")
bin=$(mktemp -d)/heed
go build -o "$bin" ./cmd/heed
tmp=$(mktemp -d)
audio=0
files=()
while IFS=$'\t' read -r wav text dur; do
  printf '%s\n' "$text" >"$tmp/${#files[@]}.txt"
  files+=("$wav")
  audio=$(echo "$audio + $dur" | bc -l)
done < <(head -n "$n" "$man" | jq -r --arg d "$dir" '[(if (.audio|startswith("/")) then .audio else $d + "/" + .audio end), .text, (.duration // .words[-1].end)] | @tsv')
start=$(date +%s.%N)
for i in "${!files[@]}"; do
  GOMAXPROCS=1 "$bin" align --format json -o "$tmp/$i.json" "${files[$i]}" "$tmp/$i.txt"
done
end=$(date +%s.%N)
wall=$(echo "$end - $start" | bc -l)
printf 'files %d  audio %.1f s  wall %.2f s  speed %.0fx real time (one process per file, one core)\n' \
  "${#files[@]}" "$audio" "$wall" "$(echo "$audio / $wall" | bc -l)"
