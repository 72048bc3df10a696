#!/usr/bin/env bash
# batch.sh: heed transcribe as a batch tool, measured and broken on purpose.
#
# Usage: bench/batch.sh [OUTDIR]
#   OUTDIR   work directory (inputs, outputs, logs); default: a new one
#            under /tmp. The report is also written to OUTDIR/report.txt.
# Environment:
#   MANIFEST=/work/data/corpus/dev.jsonl  utterances to transcribe (audio
#            paths relative to the manifest's directory)
#   N=300    good files taken from the manifest, in manifest order
#   SCALE_N=60  files of the 1-vs-2-jobs timing (the first SCALE_N)
#   ROUNDS=2 interleaved rounds of the timing (1 job, then 2, each round)
#   FORMAT=json  output format
#
# 1. Builds heed and makes OUTDIR/in/: N good files (symlinks) and 6 broken
#    ones (empty, not RIFF, truncated header, a text file, IMA ADPCM, and a WAV
#    whose data is cut short, which decodes with a warning).
# 2. Scaling: the first SCALE_N files with --jobs 1 and --jobs 2 (GOMAXPROCS
#    unset: all cores), ROUNDS times interleaved; prints audio seconds per
#    wall second for each and their ratio, and the process CPU time (GNU
#    time) per audio second, whose 1-job/2-job ratio shows any overhead of
#    running two files at once. /proc/loadavg is printed before and after:
#    a background load depresses the 2-job wall figure.
# 3. The whole batch with --jobs 2 into ref/: exit status 1, the 5 broken
#    files named on stderr, every good file transcribed.
# 4. Kill: the same batch into killed/, SIGKILL once about half the outputs
#    exist; every output present must equal ref/'s byte for byte (none
#    half-written); then the same command again (resume) must skip what
#    exists and leave killed/ equal to ref/.
# Exits 1 if a check fails.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ! -x /usr/bin/time ]]; then
	echo "batch.sh: needs GNU time (/usr/bin/time; apt-get install time)" >&2
	exit 1
fi
MANIFEST=${MANIFEST:-/work/data/corpus/dev.jsonl}
N=${N:-300}
SCALE_N=${SCALE_N:-60}
ROUNDS=${ROUNDS:-2}
FORMAT=${FORMAT:-json}
OUT=${1:-$(mktemp -d /tmp/heed-batch.XXXXXX)}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
REPORT=$OUT/report.txt
: >"$REPORT"
say() { echo "$*" | tee -a "$REPORT"; }
fail() { say "FAIL: $*"; exit 1; }

go build -o "$OUT/heed" ./cmd/heed
HEED=$OUT/heed

# 1. Inputs.
rm -rf "$OUT/in" "$OUT/scale"
mkdir -p "$OUT/in" "$OUT/scale"
mdir=$(cd "$(dirname "$MANIFEST")" && pwd)
python3 - "$MANIFEST" "$N" >"$OUT/good.txt" <<'EOF'
import json, sys
n = int(sys.argv[2])
with open(sys.argv[1]) as f:
    for i, line in enumerate(f):
        if i >= n:
            break
        print(json.loads(line)["audio"])
EOF
[[ $(wc -l <"$OUT/good.txt") -eq $N ]] || fail "$MANIFEST has fewer than $N utterances"
i=0
while read -r a; do
	[[ $a = /* ]] || a=$mdir/$a
	name=$(printf 'utt%04d.wav' "$i")
	ln -s "$a" "$OUT/in/$name"
	((i < SCALE_N)) && ln -s "$a" "$OUT/scale/$name"
	i=$((i + 1))
done <"$OUT/good.txt"
cp testdata/cli/empty.wav "$OUT/in/broken_empty.wav"
cp testdata/cli/garbage.wav "$OUT/in/broken_garbage.wav"
cp testdata/cli/short_header.wav "$OUT/in/broken_short_header.wav"
cp testdata/cli/dr_smith.txt "$OUT/in/broken_text.wav" # a transcript, not audio (A-law is decoded since issue 16)
cp testdata/audio/ima_adpcm.wav "$OUT/in/broken_adpcm.wav"
cp testdata/cli/truncated.wav "$OUT/in/cut_short.wav"
GOOD=$((N + 1)) # the cut-short file decodes, with a warning
say "inputs: $N manifest files + 5 broken + 1 cut short, from $MANIFEST"
say "machine: $(nproc) cores, GOMAXPROCS=${GOMAXPROCS:-unset}, $(uname -r)"

# 2. Scaling, 1 vs 2 jobs.
speed() { # jobs -> prints "WALL CPU AUDIO" (seconds)
	local d=$OUT/scale_out_$1
	rm -rf "$d"
	/usr/bin/time -f "%e %U %S" -o "$d.time" \
		"$HEED" transcribe --format "$FORMAT" --jobs "$1" -o "$d" "$OUT/scale" 2>"$d.log" || true
	python3 - "$d.time" "$d.log" <<'EOF'
import re, sys
wall, user, sys_ = map(float, open(sys.argv[1]).read().split()[-3:])
s = open(sys.argv[2]).read()
m = re.search(r"heed: (\d+) done, (\d+) failed, ([0-9.]+) (h|min|s) of audio", s)
if not m:
    sys.exit("no summary line in " + sys.argv[2] + ":\n" + s)
audio = float(m.group(3)) * {"h": 3600, "min": 60, "s": 1}[m.group(4)]
print(f"{wall:.2f} {user + sys_:.2f} {audio:.1f}")
EOF
}
say "load before: $(cat /proc/loadavg)"
ratios=()
cpuratios=()
for r in $(seq "$ROUNDS"); do
	read -r w1 c1 a1 < <(speed 1)
	read -r w2 c2 a2 < <(speed 2)
	read -r ratio cpuratio line < <(python3 - "$w1" "$c1" "$a1" "$w2" "$c2" "$a2" <<'EOF'
import sys
w1, c1, a1, w2, c2, a2 = map(float, sys.argv[1:])
ratio, cpuratio = (a2 / w2) / (a1 / w1), (a1 / c1) / (a2 / c2)
print(f"{ratio:.2f} {cpuratio:.2f} {a1:.0f} s of audio: 1 job {w1:.1f} s wall ({a1/w1:.1f}x real time), {c1:.1f} s CPU;"
      f" 2 jobs {w2:.1f} s wall ({a2/w2:.1f}x), {c2:.1f} s CPU; wall ratio {ratio:.2f}, CPU per audio 1 job / 2 jobs {cpuratio:.2f}")
EOF
)
	ratios+=("$ratio")
	cpuratios+=("$cpuratio")
	say "round $r: $SCALE_N files, $line"
done
say "load after: $(cat /proc/loadavg)"
say "1 -> 2 jobs: throughput (wall) ratio per round: ${ratios[*]}; CPU time per audio second, 1 job / 2 jobs: ${cpuratios[*]}"
say "(a wall ratio under 2 with a CPU ratio near 1 means the machine was busy with other work, not that heed serialised)"

# 3. Reference run of the whole batch.
rm -rf "$OUT/ref"
set +e
"$HEED" transcribe --format "$FORMAT" --jobs 2 -o "$OUT/ref" "$OUT/in" 2>"$OUT/ref.log"
code=$?
set -e
say "full batch: exit $code; $(grep 'done,' "$OUT/ref.log")"
[[ $code -eq 1 ]] || fail "exit status $code with broken files, want 1"
for b in empty garbage short_header text adpcm; do
	grep -q "^heed: $OUT/in/broken_$b.wav: " "$OUT/ref.log" || fail "broken_$b.wav not named on stderr"
done
nref=$(find "$OUT/ref" -type f | wc -l)
[[ $nref -eq $GOOD ]] || fail "$nref outputs, want $GOOD"
grep -q "done, 5 failed" "$OUT/ref.log" || fail "summary does not say 5 failed"

# 4. kill -9 in the middle, then resume.
rm -rf "$OUT/killed"
mkdir -p "$OUT/killed"
"$HEED" transcribe --format "$FORMAT" --jobs 2 -o "$OUT/killed" "$OUT/in" 2>"$OUT/killed.log" &
pid=$!
while (($(find "$OUT/killed" -type f -not -name '.*' | wc -l) < GOOD / 2)); do
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.05
done
kill -9 "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
present=$(find "$OUT/killed" -type f -not -name '.*' | wc -l)
tmps=$(find "$OUT/killed" -type f -name '.*' | wc -l)
bad=0
for f in "$OUT/killed"/*; do
	cmp -s "$f" "$OUT/ref/$(basename "$f")" || { say "half-written or different: $f"; bad=$((bad + 1)); }
done
say "kill -9 after $present of $GOOD outputs: $bad differ from the reference, $tmps hidden temporary files left"
[[ $bad -eq 0 ]] || fail "outputs differ after kill -9"
set +e
"$HEED" transcribe --format "$FORMAT" --jobs 2 -o "$OUT/killed" "$OUT/in" 2>"$OUT/resume.log"
code=$?
set -e
say "resume: exit $code; $(grep 'done,' "$OUT/resume.log")"
grep -q "$present skipped" "$OUT/resume.log" || fail "resume did not skip the $present outputs present"
diff -r -x '.*' "$OUT/ref" "$OUT/killed" >/dev/null || fail "after resume the outputs differ from the reference"
say "after resume: $(find "$OUT/killed" -type f -not -name '.*' | wc -l) outputs, identical to the uninterrupted run"
say "report: $REPORT"
