#!/usr/bin/env bash
# decodespeed.sh measures heed's decoding, alignment and start-up speed side
# by side with the heed of an older revision (default 60dc17f, before the
# speed work of issue 13), on one core (GOMAXPROCS=1). The two binaries run
# interleaved, round after round, so that a loaded machine slows both alike;
# each figure is printed beside the old one with their ratio.
#
#   transcribe, long file   default options on a 3-minute recording of dev
#                           utterances (bench/longaudio.py), one process
#   transcribe, short files default options on the first 50 dev utterances,
#                           one process, --jobs 1
#   greedy, short files     --beam 1 --ctc-weight 0 --lm-weight 0, same files
#   align, 3-s files        heed align on 20 dev utterances of 2.5-3.5 s,
#                           one process per file (start-up included), as a
#                           multiple of real time
#   align, one hour         (only with HOUR=1) 60 minutes of dev utterances
#                           aligned as one recording
#
# Speeds are CPU seconds (user + system) per audio second, or audio seconds
# per CPU second for alignment; wall times are printed too but mean little on
# a loaded machine.
#
# Usage: bench/decodespeed.sh CORPUS_DIR [OLD_REV [ROUNDS]]   (ROUNDS: 2)
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=${1:?usage: bench/decodespeed.sh CORPUS_DIR [OLD_REV [ROUNDS]]}
rev=${2:-60dc17f}
rounds=${3:-2}
tmp=$(mktemp -d)
mkdir -p "$tmp/old"
git archive "$rev" | tar -x -C "$tmp/old"
(cd "$tmp/old" && go build -o "$tmp/heed-old" ./cmd/heed)
go build -o "$tmp/heed-new" ./cmd/heed

# Test material.
python3 bench/longaudio.py 3 "$tmp/long3" "$corpus" >/dev/null
mapfile -t short < <(head -n 50 "$corpus/dev.jsonl" | jq -r --arg d "$corpus" '$d + "/" + .audio')
mapfile -t three < <(python3 - "$corpus" <<'PY'
import json, sys, wave
d = sys.argv[1]; n = 0
for l in open(d + '/dev.jsonl'):
    u = json.loads(l); p = d + '/' + u['audio']
    w = wave.open(p); s = w.getnframes() / w.getframerate()
    if 2.5 <= s <= 3.5:
        print(p + '\t' + u['text'] + '\t' + str(s)); n += 1
    if n == 20: break
PY
)
dur() { python3 -c 'import sys, wave; print(sum(wave.open(p).getnframes() / 16000 for p in sys.argv[1:]))' "$@"; }
long_s=$(dur "$tmp/long3.wav")
short_s=$(dur "${short[@]}")
three_s=0
for i in "${!three[@]}"; do
  IFS=$'\t' read -r wav text s <<<"${three[$i]}"
  printf '%s\n' "$text" >"$tmp/t$i.txt"
  three_s=$(echo "$three_s + $s" | bc -l)
done

# run NAME BIN ARGS...: adds the command's CPU and wall seconds to the totals
# of NAME for BIN. The CPU time is getrusage's, to the microsecond: GNU
# time prints hundredths cut down, 10 ms too little a process on average,
# which made a 3-s alignment (about 38 ms) look a quarter faster than it is.
declare -A cpu wall
run() {
  local name=$1 bin=$2 u s e
  shift 2
  read -r u s e < <(GOMAXPROCS=1 python3 -c '
import resource, subprocess, sys, time
r0, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.monotonic()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
r = resource.getrusage(resource.RUSAGE_CHILDREN)  # minus r0: a pyenv shim'"'"'s own children count too
print("%.6f %.6f %.6f" % (r.ru_utime - r0.ru_utime, r.ru_stime - r0.ru_stime, time.monotonic() - t0))' "$tmp/heed-$bin" "$@")
  cpu[$name.$bin]=$(echo "${cpu[$name.$bin]:-0} + $u + $s" | bc -l)
  wall[$name.$bin]=$(echo "${wall[$name.$bin]:-0} + $e" | bc -l)
}
for r in $(seq "$rounds"); do
  for bin in old new; do
    run long "$bin" transcribe "$tmp/long3.wav"
    run short "$bin" transcribe --jobs 1 "${short[@]}"
    run greedy "$bin" transcribe --jobs 1 --beam 1 --ctc-weight 0 --lm-weight 0 "${short[@]}"
    for i in "${!three[@]}"; do
      IFS=$'\t' read -r wav _ _ <<<"${three[$i]}"
      run align3 "$bin" align --format json -o "$tmp/a$i.json" "$wav" "$tmp/t$i.txt"
    done
    echo "round $r: $bin done" >&2
  done
done
hour_s=
if [ "${HOUR:-0}" = 1 ]; then
  python3 bench/longaudio.py 60 "$tmp/long60" "$corpus" >/dev/null
  hour_s=$(dur "$tmp/long60.wav")
  for bin in old new; do
    run hour "$bin" align --format tsv -o "$tmp/long60.$bin.tsv" "$tmp/long60.wav" "$tmp/long60.txt"
  done
fi

per() { echo "${cpu[$1.$2]} / $rounds / $3" | bc -l; }
row() { # NAME LABEL AUDIO_SECONDS UNIT
  local o n
  o=$(per "$1" old "$3") n=$(per "$1" new "$3")
  printf '%-34s %10.4f %10.4f %8.2fx   (wall %.1f s / %.1f s)\n' "$2" "$o" "$n" "$(echo "$o / $n" | bc -l)" \
    "$(echo "${wall[$1.old]} / $rounds" | bc -l)" "$(echo "${wall[$1.new]} / $rounds" | bc -l)"
}
echo
printf 'heed %s (old) vs working tree (new), GOMAXPROCS=1, %d rounds\n' "$rev" "$rounds"
printf '%-34s %10s %10s %9s\n' "CPU s per audio s" old new speed-up
row long "transcribe, ${long_s%.*} s file" "$long_s"
row short "transcribe, ${#short[@]} short files" "$short_s"
row greedy "greedy, ${#short[@]} short files" "$short_s"
row align3 "align, ${#three[@]} files of ~3 s" "$three_s"
o=$(per align3 old "$three_s") n=$(per align3 new "$three_s")
printf '%-34s %9.0fx %9.0fx\n' "align 3-s files, x real time" "$(echo "1 / $o" | bc -l)" "$(echo "1 / $n" | bc -l)"
if [ -n "$hour_s" ]; then
  printf '%-34s %9.1fs %9.1fs\n' "align one hour: CPU seconds" "${cpu[hour.old]}" "${cpu[hour.new]}"
fi
