#!/usr/bin/env bash
# modelcard.sh measures the figures of the model card in README.md:
# recognition error (CER/WER) per source on every dev set: espeak-ng clean
# and at 10 dB SNR, festival voices, real speakers (speechocean762 held-out
# speakers, Kathleen's held-out prompts) and the FSDD test digits, with
# pocketsphinx's on the real sets beside them; word-boundary error on the
# espeak-ng dev set and the glued FSDD test digit strings; and one hour of
# dev utterances aligned as one recording (time and peak memory on one
# core, boundary error).
#
# Usage: bench/modelcard.sh [-limit N] CORPUS_DIR [MODEL_FILE]
#   CORPUS_DIR  made by: go run -tags espeak ./cmd/heed-corpus -out CORPUS_DIR -hours 20 -seed 1
#               plus the real speech and festival voices (see DATA.md):
#               go run ./cmd/heed-corpus -out CORPUS_DIR -speechocean ... -kathleen ... -wakeword ...
#               go run ./cmd/heed-corpus -out CORPUS_DIR -festival-hours 2
#               sets that are missing are left out
#   -limit N    utterances per dev set for recognition (default 0: all)
#   MODEL_FILE  default: the embedded English model
set -euo pipefail
cd "$(dirname "$0")/.."
limit=0
if [ "${1:-}" = "-limit" ]; then limit=$2; shift 2; fi
corpus=${1:?usage: bench/modelcard.sh [-limit N] CORPUS_DIR [MODEL_FILE]}
model=()
[ $# -ge 2 ] && model=(--model "$2")
bin=$(mktemp -d)/heed
go build -o "$bin" ./cmd/heed
sets=()
for s in dev dev_noisy festival_dev so762_dev kathleen_dev fsdd_test; do
  [ -f "$corpus/$s.jsonl" ] && sets+=("$corpus/$s.jsonl")
done
echo "== recognition (heed)"
"$bin" eval asr --limit "$limit" "${model[@]}" "${sets[@]}"
real=()
for s in so762_dev kathleen_dev festival_dev; do
  [ -f "$corpus/$s.jsonl" ] && real+=("$corpus/$s.jsonl")
done
if [ ${#real[@]} -gt 0 ] && command -v pocketsphinx_continuous >/dev/null; then
  echo "== recognition (pocketsphinx, same files)"
  python3 bench/psasr.py -limit "$limit" "${real[@]}"
fi
echo "== alignment"
"$bin" eval align "${model[@]}" "$corpus/dev.jsonl" "$corpus/fsdd_test_strings.jsonl"
echo "== one hour of audio, one core"
long=$(mktemp -d)/long60
python3 bench/longaudio.py 60 "$long" "$corpus"
GOMAXPROCS=1 /usr/bin/time -f "aligned in %e s, peak memory %M KB" \
  "$bin" align "${model[@]}" --format tsv -o "$long.tsv" "$long.wav" "$long.txt"
"$bin" eval align "${model[@]}" "$long.jsonl"
