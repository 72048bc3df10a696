#!/usr/bin/env bash
# peers.sh sets heed's word alignment beside pocketsphinx's on the same
# manifests (JSON Lines with gold word times, see corpus/doc.go).
#
# Usage: bench/peers.sh [-limit N] [-jobs J] [-model FILE] MANIFEST...
#
#   -limit N     use the first N utterances of each manifest (default 100, 0: all)
#   -jobs J      utterances aligned in parallel by each system (default 2)
#   -model FILE  heed model (default: the embedded one)
#
# For each manifest it runs
#   psalign -json -aligned COMMON     pocketsphinx (bench/psalign), which also
#                                     writes the utterances it could align
#   heed eval align --json MANIFEST   heed on every utterance
#   heed eval align --json COMMON     heed on the utterances pocketsphinx aligned
# and prints one table: per manifest and source, the boundary errors of
# "heed" (all utterances), "heed common" (pocketsphinx's subset) and
# "pocketsphinx" (mean, median, p90 in ms; share within 20/50/100 ms), the
# utterances scored and failed, and each system's real-time factor.
#
# Both programs are built once with "go build" before anything is timed, so
# the RTF (wall seconds / seconds of audio, with -jobs J) leaves compilation
# out. heed's RTF covers one process per manifest, model loading included;
# pocketsphinx's covers one process per utterance (psalign's "rtf"). Needs
# go, jq, pocketsphinx and pocketsphinx-en-us.
set -euo pipefail

limit=100
jobs=2
model=()
while [[ $# -gt 0 ]]; do
	case "$1" in
	-limit | --limit) limit="$2"; shift 2 ;;
	-jobs | --jobs) jobs="$2"; shift 2 ;;
	-model | --model) model=(--model "$2"); shift 2 ;;
	-h | -help | --help) sed -n '2,/^set -e/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "peers.sh: unknown flag $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
if [[ $# -eq 0 ]]; then
	echo "usage: bench/peers.sh [-limit N] [-jobs J] [-model FILE] MANIFEST..." >&2
	exit 2
fi
for tool in go jq; do
	command -v "$tool" >/dev/null || { echo "peers.sh: $tool not found" >&2; exit 1; }
done

# Manifest paths are taken relative to the caller's directory; the Go
# commands are built from the repository holding this script.
manifests=()
for m in "$@"; do
	[[ -f "$m" ]] || { echo "peers.sh: $m: no such file" >&2; exit 1; }
	manifests+=("$(cd "$(dirname "$m")" && pwd)/$(basename "$m")")
done
repo="$(cd "$(dirname "$0")/.." && pwd)"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/peers.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

(cd "$repo" && go build -o "$tmp/heed" ./cmd/heed && go build -o "$tmp/psalign" ./bench/psalign)

now() { date +%s.%N; }

: >"$tmp/rows.jsonl"
i=0
for m in "${manifests[@]}"; do
	i=$((i + 1))
	common="$tmp/common$i.jsonl"
	echo "peers.sh: $(basename "$m"): pocketsphinx" >&2
	"$tmp/psalign" -json -jobs "$jobs" -limit "$limit" -aligned "$common" "$m" >"$tmp/ps$i.jsonl"

	echo "peers.sh: $(basename "$m"): heed" >&2
	t0=$(now)
	"$tmp/heed" eval align --json --jobs "$jobs" --limit "$limit" "${model[@]}" "$m" >"$tmp/heed$i.jsonl"
	t1=$(now)
	if [[ -s "$common" ]]; then
		"$tmp/heed" eval align --json --jobs "$jobs" "${model[@]}" "$common" >"$tmp/common$i.out.jsonl"
	else
		: >"$tmp/common$i.out.jsonl"
	fi
	heedWall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')

	# One JSON row per manifest, source and system.
	jq -n -c --arg m "$(basename "$m")" --argjson wall "$heedWall" \
		--slurpfile ps "$tmp/ps$i.jsonl" --slurpfile heed "$tmp/heed$i.jsonl" --slurpfile common "$tmp/common$i.out.jsonl" '
		($ps[0].audio_s) as $audio
		| ($ps | map({key: .source, value: .}) | from_entries) as $P
		| ($common | map({key: .source, value: .}) | from_entries) as $C
		| [$heed[].source] + [$ps[].source] | unique
		| (map(select(. == "all")) + map(select(. != "all")))[] as $src
		| ($heed | map(select(.source == $src)) | first) as $h
		| {manifest: $m, source: $src, system: "heed", utts: $h.utts, failed: 0, b: $h.boundaries,
		   rtf: (if $audio > 0 then $wall / $audio else null end)},
		  {manifest: $m, source: $src, system: "heed common", utts: $C[$src].utts, failed: null, b: $C[$src].boundaries, rtf: null},
		  {manifest: $m, source: $src, system: "pocketsphinx", utts: $P[$src].utts, failed: $P[$src].failed, b: $P[$src].boundaries,
		   rtf: $P[$src].rtf}
	' >>"$tmp/rows.jsonl"
done

jq -r -s '
	def one: tostring | if test("\\.") then . else . + ".0" end;
	def ms: if . == null then "-" else (. * 10000 | round / 10 | one) end;
	def pct: if . == null then "-" else (. * 1000 | round / 10 | one) end;
	def num: if . == null then "-" else tostring end;
	def rtf: if . == null then "-" else (. * 1000 | round / 1000 | tostring) end;
	(["manifest", "source", "system", "utts", "failed", "mean_ms", "median_ms", "p90_ms", "<=20ms_%", "<=50ms_%", "<=100ms_%", "RTF"] | @tsv),
	(.[] | [.manifest, .source, .system, (.utts | num), (.failed | num),
		(.b.mean | ms), (.b.median | ms), (.b.p90 | ms),
		(.b.within_20ms | pct), (.b.within_50ms | pct), (.b.within_100ms | pct), (.rtf | rtf)] | @tsv)
' "$tmp/rows.jsonl" | column -t -s $'\t'
echo "(jobs $jobs, limit $limit; heed common = heed on the utterances pocketsphinx aligned; RTF = wall time / audio time)"
