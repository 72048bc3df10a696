#!/usr/bin/env bash
# modelcard.sh measures the figures of the model card in README.md:
# recognition error (CER/WER) on the clean and noisy dev sets and the FSDD
# test digits, and word-boundary error on the dev set and the glued FSDD
# test digit strings.
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
