#!/usr/bin/env bash
# evalcycle.sh DATA OUT MODEL...
#
# Measures trained models the way the model card compares them: recognition
# (CER/WER with the defaults) on every dev set, word-boundary error on the
# aligned dev sets, and sentence edges of the long glued recordings (mean and
# sentences over 1 s off: bench/longreal.py, bench/edges.py). DATA is the
# directory bench/rebuild-data.sh fills; each MODEL is a model file, or
# "embedded" for the model built into heed. Results go to OUT/NAME/ (NAME:
# the model file's base name) and a summary per model to standard output.
#
#   bench/evalcycle.sh /work/data /tmp/ev embedded run18/english.heed
#
# The long recordings are built once into OUT/long (seeded, so the same
# DATA gives the same audio). SKIP_ASR=1, SKIP_ALIGN=1 or SKIP_LONG=1 leave
# a part out.
set -euo pipefail
cd "$(dirname "$0")/.."
data=$(realpath "${1:?usage: bench/evalcycle.sh DATA OUT MODEL...}")
out=${2:?usage: bench/evalcycle.sh DATA OUT MODEL...}
shift 2
[ $# -gt 0 ] || { echo "usage: bench/evalcycle.sh DATA OUT MODEL..." >&2; exit 2; }
mkdir -p "$out/long"
out=$(realpath "$out")
heed=$out/heed
go build -o "$heed" ./cmd/heed
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3 # numpy from Debian

asr_sets=(real/so762_dev.jsonl real/kathleen_dev.jsonl libri/librispeech_dev.jsonl vctk/vctk_dev.jsonl
  extra/commonvoice_dev.jsonl cv13/commonvoice_dev.jsonl corpus/dev.jsonl corpus/dev_noisy.jsonl
  corpus/fsdd_test.jsonl an4/an4_dev.jsonl)
align_sets=(corpus/dev.jsonl corpus/fsdd_test_strings.jsonl corpus/dev_noisy.jsonl numbers/numbers_dev.jsonl)

# The long recordings: name, minutes, options, manifests.
long=(
  "lrk3 4 --seed 3 real/kathleen_dev.jsonl"
  "lrs4 4 --seed 4 real/so762_dev.jsonl"
  "lrkm3 4 --snr 10 --music 0.2 --seed 3 real/kathleen_dev.jsonl"
  "lrsm6 4 --snr 10 --music 0.2 --seed 6 real/so762_dev.jsonl"
  "lre5 5 --snr 10 --music 0.2 --seed 1 corpus/dev.jsonl"
  "lrls 15 --seed 41 --gold speech80 libri/librispeech_dev.jsonl"
  "lrlsm 15 --snr 10 --music 0.2 --seed 42 --gold speech80 libri/librispeech_dev.jsonl"
  "lrvk 10 --seed 31 vctk/vctk_dev.jsonl"
  "lrvkm 5 --snr 10 --music 0.2 --seed 32 vctk/vctk_dev.jsonl"
  "lr20 20 --seed 9 real/so762_dev.jsonl real/kathleen_dev.jsonl"
  "lr60 60 --seed 7 real/kathleen_dev.jsonl real/so762_dev.jsonl"
)
if [ "${SKIP_LONG:-0}" != 1 ]; then
  for l in "${long[@]}"; do
    read -r name min rest <<<"$l"
    [ -f "$out/long/$name.sents.json" ] && continue
    args=()
    for a in $rest; do
      case $a in *.jsonl) args+=("$data/$a") ;; *) args+=("$a") ;; esac
    done
    (cd "$data" && $py "$OLDPWD/bench/longreal.py" "$out/long/$name" "$min" "${args[@]}" >/dev/null)
  done
fi

for m in "$@"; do
  if [ "$m" = embedded ]; then name=embedded; flag=(); else name=$(basename "$m" .heed); flag=(--model "$(realpath "$m")"); fi
  dir=$out/$name
  mkdir -p "$dir"
  echo "== $name"
  if [ "${SKIP_ASR:-0}" != 1 ]; then
    (cd "$data" && "$heed" eval asr "${flag[@]}" "${asr_sets[@]}") >"$dir/asr.txt" 2>&1
    cat "$dir/asr.txt"
  fi
  if [ "${SKIP_ALIGN:-0}" != 1 ]; then
    (cd "$data" && "$heed" eval align "${flag[@]}" "${align_sets[@]}") >"$dir/align.txt" 2>&1
    cat "$dir/align.txt"
  fi
  if [ "${SKIP_LONG:-0}" != 1 ]; then
    for l in "${long[@]}"; do
      read -r lname _ <<<"$l"
      "$heed" align "${flag[@]}" --format json -o "$dir/$lname.json" "$out/long/$lname.wav" "$out/long/$lname.txt" 2>/dev/null
      $py bench/edges.py "$out/long/$lname.sents.json" "$dir/$lname.json" >"$dir/$lname.edges"
      printf '%-6s %s\n' "$lname" "$(head -1 "$dir/$lname.edges")"
    done | tee "$dir/long.txt"
  fi
done
