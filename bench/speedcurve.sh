#!/usr/bin/env bash
# speedcurve.sh measures heed transcribe's speed/accuracy curve: CER on the
# first N utterances of a manifest against CPU seconds per audio second on
# one core (GOMAXPROCS=1, one utterance at a time, model loading included),
# for beams 1, 2, 4, 8 and 16, each with and without CTC prefix scoring
# (weight 0.2) and the language model (the model's weight). It writes a TSV
# and plots it (bench/curveplot) as a PNG.
#
# Usage: bench/speedcurve.sh MANIFEST [N [OUT_PREFIX]]
#   N defaults to 100; OUT_PREFIX to bench/speedcurve (writes .tsv and .png)
set -euo pipefail
cd "$(dirname "$0")/.."
man=${1:?usage: bench/speedcurve.sh MANIFEST [N [OUT_PREFIX]]}
n=${2:-100}
out=${3:-bench/speedcurve}
bin=$(mktemp -d)/heed
go build -o "$bin" ./cmd/heed
audio=$(python3 - "$man" "$n" <<'PY'
import json, os, sys, wave
man, n = sys.argv[1], int(sys.argv[2])
s = 0.0
for i, l in enumerate(open(man)):
    if i >= n: break
    u = json.loads(l)
    p = u['audio'] if u['audio'].startswith('/') else os.path.join(os.path.dirname(man), u['audio'])
    w = wave.open(p); s += w.getnframes() / w.getframerate()
print(s)
PY
)
printf 'beam\tctc\tlm\tcer\tcpu_s\taudio_s\tcpu_per_audio_s\n' >"$out.tsv"
for beam in 1 2 4 8 16; do
  for ctc in 0 0.2; do
    for lm in 0 -1; do
      t=$(mktemp)
      # CER over all sources of the manifest: errors / reference characters.
      cer=$(GOMAXPROCS=1 /usr/bin/time -f '%U %S' -o "$t" "$bin" eval asr --json --jobs 1 \
        --limit "$n" --beam "$beam" --ctc-weight "$ctc" --lm-weight "$lm" "$man" |
        jq -s '(map(.cer * .chars) | add) / (map(.chars) | add)')
      cpu=$(awk '{print $1 + $2}' "$t")
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$beam" "$ctc" "$lm" "$cer" "$cpu" "$audio" \
        "$(echo "$cpu / $audio" | bc -l)" >>"$out.tsv"
      tail -n 1 "$out.tsv"
    done
  done
done
go run ./bench/curveplot "$out.tsv" "$out.png"
