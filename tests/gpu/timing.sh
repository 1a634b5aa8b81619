#!/bin/sh
# tests/gpu/timing.sh - GPU timings for `make check-gpu`: the kernels of
# bench/sass on the cuda backend through `kernc run --time --repeat N`
# (CUDA events around each launch; the first launch warms up, the minimum
# of the others is reported), and for the streaming kernels (saxpy,
# axpy2d, block_sum) the effective bandwidth, bytes read and written over
# that time, against the device's peak (PEAK_GBS, else a table of known
# devices by name; unknown: not compared).  Writes its table to stdout and
# to TIMING_REPORT when set; exit status 1 when a kernel fails.
# Environment: KERNC, TIMING_REPEAT (default 20), TIMING_N (elements of the
# 1-D kernels, default 2^24), PEAK_GBS, TIMING_BACKEND (default cuda; cpu
# tries the script where there is no GPU).
top=$(cd "$(dirname "$0")/../.." && pwd)
KERNC=${KERNC:-$top/kernc}
rep=${TIMING_REPEAT:-20}
backend=${TIMING_BACKEND:-cuda}
n=${TIMING_N:-16777216}
s=$top/bench/sass
peak=$PEAK_GBS
if test -z "$peak" && command -v nvidia-smi >/dev/null 2>&1; then
    case $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1) in
    *H200*) peak=4800 ;; *H100*SXM*|*H100\ 80GB\ HBM3*) peak=3350 ;; *H100*) peak=2000 ;;
    *A100*80GB*) peak=2039 ;; *A100*) peak=1555 ;; *L40S*|*L40*) peak=864 ;;
    *V100*) peak=900 ;; *T4*) peak=320 ;;
    esac
fi
status=0
side=${TIMING_SIDE:-4096}
blocks=$(( (n + 255) / 256 ))
# run NAME BYTES KERNC-RUN-ARGUMENTS...
run() {
    name=$1 bytes=$2; shift 2
    if ! line=$("$KERNC" run "$@" --backend "$backend" --time --repeat "$rep" --quiet 2>&1 | grep '^time:'); then
        printf '%-12s FAILED\n' "$name"; status=1; return
    fi
    ms=$(echo "$line" | sed 's/time: min \([0-9.]*\) ms.*/\1/')
    if test "$bytes" = 0; then
        printf '%-12s %10s ms\n' "$name" "$ms"
    else
        awk -v n="$name" -v ms="$ms" -v b="$bytes" -v p="$peak" 'BEGIN {
            g = b / (ms * 1e-3) / 1e9
            if (p != "") printf "%-12s %10s ms %8.1f GB/s  %5.1f%% of %s GB/s\n", n, ms, g, 100 * g / p, p
            else printf "%-12s %10s ms %8.1f GB/s\n", n, ms, g }'
    fi
}
out=$(mktemp)
{
echo "kernel             time  (kernc, $backend backend, min of $rep launches after a warm-up)"
run saxpy $((12 * n)) "$s/saxpy.kern" saxpy --grid $blocks --block 256 "rand($n, 1)" "rand($n, 2)" 2.5
run axpy2d $((24 * side * side)) "$s/axpy2d.kern" axpy2d --grid $((side / 16)),$((side / 16)) --block 16,16 \
    "zeros(($side, $side), float64)" "rand(($side, $side), 1, float64)" "rand(($side, $side), 2, float64)" 2.0
run block_sum $((4 * n)) "$s/reduce.kern" block_sum --grid 1024 --block 256 "rand($n, 1)" "zeros(1024)"
run histogram 0 "$s/histogram.kern" histogram --grid 1024 --block 256 "arange($n, int32)" "zeros(16, int32)"
run fast_matmul 0 "$s/matmul.kern" fast_matmul --grid 64,64 --block 16,16 \
    "rand((1024, 1024), 1)" "rand((1024, 1024), 2)" "zeros((1024, 1024))"
run block_scan 0 "$s/scan.kern" block_scan --grid $blocks --block 256 "arange($n, int32)" "zeros($n, int32)"
run stencil1d 0 "$s/stencil.kern" stencil1d --grid $(( (n + 127) / 128 )) --block 128 "rand($n, 1)" "zeros($n)"
run warp_sum 0 "$s/warpsum.kern" warp_sum --grid $blocks --block 256 "rand($n, 1)" "zeros($(( n / 32 )))"
} >"$out"
cat "$out"
test -n "$TIMING_REPORT" && cp "$out" "$TIMING_REPORT"
rm -f "$out"
exit $status
