#!/usr/bin/env bash
# run.sh: heed's Go benchmarks and the same network in PyTorch (CPU), run
# back to back in ROUNDS interleaved rounds so that both see the same machine
# load, then a side-by-side table with Go/PyTorch speed ratios.
#
# Usage: bench/run.sh [OUTDIR]
#   OUTDIR   raw results (Go bench output, PyTorch JSON); default: a new
#            directory under /tmp. The table is also written to OUTDIR/table.txt.
# Environment:
#   ROUNDS=3            rounds; each runs every variant once, Go just before it
#   PY=/usr/bin/python3 a python3 with torch (Debian python3-torch)
#   OPENBLAS_DIR=/usr/lib/x86_64-linux-gnu/openblas-openmp
#                       Debian libopenblas0-openmp; put first on
#                       LD_LIBRARY_PATH for the PyTorch runs only, so the
#                       system libblas.so.3 alternative stays as it is.
#
# Threads: inference runs with GOMAXPROCS=1 / torch.set_num_threads(1),
# training with GOMAXPROCS=2 / torch.set_num_threads(2).
#
# PyTorch variants (one process each):
#   A  OpenBLAS with OPENBLAS_CORETYPE set to the real core family (SkylakeX
#      with avx512f, else Haswell), OPENBLAS_L2_SIZE unset, OMP_NUM_THREADS
#      and OPENBLAS_NUM_THREADS = threads, OMP_WAIT_POLICY=PASSIVE (on a
#      loaded machine libgomp's default spin-waiting makes 2-thread training
#      an order of magnitude slower; variant B shows it).
#   B  OpenBLAS, default environment (only LD_LIBRARY_PATH to pick it).
#   C  the system's libblas.so.3 as installed, default environment;
#      inference only when OpenBLAS is present (2-thread training in a
#      default environment is dominated by OpenMP spin-waiting, as B shows,
#      and takes minutes).
# torch_bench.py checks float32 products against a float64 reference in
# every variant and exits 1 (stopping this script) if they do not match.
# These environment settings are for these benchmark runs only, never for
# tests or CI.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ! -x /usr/bin/time ]]; then
	echo "run.sh: needs GNU time (/usr/bin/time; apt-get install time)" >&2
	exit 1
fi

ROUNDS=${ROUNDS:-3}
PY=${PY:-/usr/bin/python3}
OPENBLAS_DIR=${OPENBLAS_DIR:-/usr/lib/x86_64-linux-gnu/openblas-openmp}
OUT=${1:-$(mktemp -d /tmp/heed-bench.XXXXXX)}
mkdir -p "$OUT"
rm -f "$OUT"/go_*.txt "$OUT"/torch_*.json "$OUT"/kern*.txt "$OUT"/variants.txt

if grep -qw avx512f /proc/cpuinfo; then CORE=SkylakeX; else CORE=Haswell; fi
have_openblas=0
if [[ -e $OPENBLAS_DIR/libblas.so.3 ]]; then have_openblas=1; fi

{
	if ((have_openblas)); then
		echo "A OpenBLAS $OPENBLAS_DIR, OPENBLAS_CORETYPE=$CORE, OMP_WAIT_POLICY=PASSIVE"
		echo "B OpenBLAS $OPENBLAS_DIR, default environment"
	fi
	echo "C system libblas.so.3 ($(readlink -f /usr/lib/x86_64-linux-gnu/libblas.so.3)), default environment"
} >"$OUT/variants.txt"
if ((!have_openblas)); then
	echo "run.sh: $OPENBLAS_DIR missing (apt-get install libopenblas0-openmp); only variant C" >&2
fi

# torch_run TAG NAME THREADS ARGS...: one PyTorch process for variant TAG.
torch_run() {
	local tag=$1 name=$2 n=$3
	shift 3
	local cmd=("$PY" bench/torch_bench.py --threads "$n" "$@")
	case $tag in
	A) env -u OPENBLAS_L2_SIZE LD_LIBRARY_PATH="$OPENBLAS_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		OPENBLAS_CORETYPE=$CORE OMP_WAIT_POLICY=PASSIVE OMP_NUM_THREADS=$n OPENBLAS_NUM_THREADS=$n \
		"${cmd[@]}" >"$OUT/torch_${tag}_$name.json" ;;
	B) env LD_LIBRARY_PATH="$OPENBLAS_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		"${cmd[@]}" >"$OUT/torch_${tag}_$name.json" ;;
	C) "${cmd[@]}" >"$OUT/torch_${tag}_$name.json" ;;
	esac
}

tags=(C)
if ((have_openblas)); then tags=(A B C); fi

echo "== building the Go benchmark binaries" >&2
BIN=$(mktemp -d /tmp/heed-bench-bin.XXXXXX)
trap 'rm -rf "$BIN"' EXIT
go test -c -o "$BIN/model.test" ./model/
go test -c -o "$BIN/kern.test" ./internal/kern/
# gobench FILE GOMAXPROCS NAME NSMALL NBIG: appends to FILE the output of
#   GOMAXPROCS=.. go test -run '^$' -bench '^BenchmarkNAME$' -benchtime NBIGx -count 3 ./model/
# (run from the prebuilt binary in model/) and a line "BenchmarkNAME 0 X
# cpu-ms/op": the process CPU time (user+sys, all threads) per iteration,
# from the difference with an NSMALL run so that the setup cancels. Wall
# time on a shared machine includes time spent descheduled; CPU time does not.
gobench() {
	local file=$1 procs=$2 name=$3 n1=$4 n2=$5 c1 c2
	(cd model && GOMAXPROCS=$procs /usr/bin/time -f '%U %S' -o "$BIN/cpu1" "$BIN/model.test" \
		-test.run '^$' -test.bench "^Benchmark$name\$" -test.benchtime "${n1}x" -test.count 3 >/dev/null)
	(cd model && GOMAXPROCS=$procs /usr/bin/time -f '%U %S' -o "$BIN/cpu2" "$BIN/model.test" \
		-test.run '^$' -test.bench "^Benchmark$name\$" -test.benchtime "${n2}x" -test.count 3 >>"$file")
	c1=$(awk '{print $1 + $2}' "$BIN/cpu1")
	c2=$(awk '{print $1 + $2}' "$BIN/cpu2")
	awk -v n="$name" -v c1="$c1" -v c2="$c2" -v k=$((3 * (n2 - n1))) \
		'BEGIN { printf "Benchmark%s 0 %.6g cpu-ms/op\n", n, (c2 - c1) * 1000 / k }' >>"$file"
}

# Each PyTorch process runs right after a Go run of the same benchmarks, and
# the ratios are taken within that pair, so that load changes between pairs
# cancel; the table reports the median pair ratio and its range.
go_infer() { # go_infer FILE: BenchmarkEncode and BenchmarkDecodeStep, GOMAXPROCS=1
	: >"$1"
	gobench "$1" 1 Encode 2 10
	gobench "$1" 1 DecodeStep 400 2000
}
go_train() { # go_train FILE: BenchmarkTrainStep, GOMAXPROCS=2
	: >"$1"
	gobench "$1" 2 TrainStep 1 3
}

start=$(date +%s)
uptime >"$OUT/load.txt"
for r in $(seq 1 "$ROUNDS"); do
	echo "== round $r/$ROUNDS: inference (1 thread)" >&2
	parts=encode,decode
	if ((r == 1)); then parts=encode,decode,gemm; fi
	for t in "${tags[@]}"; do
		go_infer "$OUT/go_${t}_r${r}_infer.txt"
		torch_run "$t" "r${r}_infer" 1 --parts "$parts" --reps 5 --warmup 2
	done

	echo "== round $r/$ROUNDS: training (2 threads)" >&2
	if ((have_openblas)); then
		go_train "$OUT/go_A_r${r}_train.txt"
		torch_run A "r${r}_train" 2 --parts train --reps 3 --warmup 1
		go_train "$OUT/go_B_r${r}_train.txt"
		torch_run B "r${r}_train" 2 --parts train --reps 1 --warmup 1
	else
		go_train "$OUT/go_C_r${r}_train.txt"
		torch_run C "r${r}_train" 2 --parts train --reps 2 --warmup 1
	fi
	uptime >>"$OUT/load.txt"
done

echo "== internal/kern matmul benchmarks (1 thread)" >&2
# = GOMAXPROCS=1 go test -run '^$' -bench MatMul -benchtime=100ms ./internal/kern/
(cd internal/kern && GOMAXPROCS=1 "$BIN/kern.test" -test.run '^$' -test.bench MatMul \
	-test.benchtime=100ms >"$OUT/kern.txt")
uptime >>"$OUT/load.txt"

{
	echo "heed vs PyTorch, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $ROUNDS rounds, $(($(date +%s) - start)) s"
	echo "go: $(go version | cut -d' ' -f3); torch: $("$PY" -c 'import torch; print(torch.__version__)')"
	echo "load averages (start, after each round, end):"
	sed 's/^/  /' "$OUT/load.txt"
	echo
	"$PY" bench/torch_bench.py --summarize "$OUT"
} | tee "$OUT/table.txt"
echo "raw results: $OUT" >&2
