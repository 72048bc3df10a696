#!/usr/bin/env bash
# modelcard.sh measures the figures of the model card in README.md:
# recognition error (CER/WER) on the clean and noisy dev sets and the FSDD
# test digits, word-boundary error on the dev set and the glued FSDD test
# digit strings, and one hour of dev utterances aligned as one recording
# (time and peak memory on one core, boundary error).
#
# Usage: bench/modelcard.sh CORPUS_DIR [MODEL_FILE]
#   CORPUS_DIR  made by: go run -tags espeak ./cmd/heed-corpus -out CORPUS_DIR -hours 20 -seed 1
#   MODEL_FILE  default: the embedded English model
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${1:?usage: bench/modelcard.sh CORPUS_DIR [MODEL_FILE]}
model=()
[ $# -ge 2 ] && model=(--model "$2")
bin=$(mktemp -d)/heed
go build -o "$bin" ./cmd/heed
echo "== recognition"
"$bin" eval asr "${model[@]}" "$corpus/dev.jsonl" "$corpus/dev_noisy.jsonl" "$corpus/fsdd_test.jsonl"
echo "== alignment"
"$bin" eval align "${model[@]}" "$corpus/dev.jsonl" "$corpus/fsdd_test_strings.jsonl"
echo "== one hour of audio, one core"
long=$(mktemp -d)/long60
python3 bench/longaudio.py 60 "$long" "$corpus"
GOMAXPROCS=1 /usr/bin/time -f "aligned in %e s, peak memory %M KB" \
  "$bin" align "${model[@]}" --format tsv -o "$long.tsv" "$long.wav" "$long.txt"
"$bin" eval align "${model[@]}" "$long.jsonl"
