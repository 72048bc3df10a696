#!/bin/sh
# longwer.sh HEED CORPUS [MINUTES]: word and character error rates of one long
# file of glued dev sentences (bench/longaudio.py, 0.3-1 s pauses) against
# the same sentences transcribed as separate files, both with HEED's
# defaults. The long file should be within a point of the separate ones.
#   sh bench/longwer.sh ./heed corpus 10
set -e
heed=$(realpath "$1"); corpus=$(realpath "$2"); min=${3:-10}
bench=$(dirname "$(realpath "$0")")
d=$(mktemp -d)
python3 "$bench/longaudio.py" "$min" "$d/long" "$corpus"
head -n "$(wc -l < "$d/long.txt")" "$corpus/dev.jsonl" > "$d/sep.jsonl"
start=$(date +%s)
"$heed" transcribe "$d/long.wav" > "$d/long.out"
mid=$(date +%s)
(cd "$corpus" && "$heed" transcribe $(python3 -c "import json,sys; print(' '.join(json.loads(l)['audio'] for l in open(sys.argv[1])))" "$d/sep.jsonl")) > "$d/sep.out"
end=$(date +%s)
echo "long file ($((mid - start)) s):      $(python3 "$bench/wer.py" "$d/sep.jsonl" "$d/long.out")"
echo "separate files ($((end - mid)) s): $(python3 "$bench/wer.py" "$d/sep.jsonl" "$d/sep.out")"
rm -r "$d"
