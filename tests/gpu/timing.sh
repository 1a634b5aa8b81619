#!/bin/sh
# tests/gpu/timing.sh - GPU timings for `make check-gpu`: the kernels of
# bench/sass on the cuda backend through `kernc run --time --repeat N`
# (CUDA events around each launch; the first launch warms up, the minimum
# of the others is reported), and for the streaming kernels (saxpy,
# axpy2d, block_sum) the effective bandwidth, bytes read and written over
# that time, against the device's peak (PEAK_GBS, else a table of known
# devices by name; unknown: not compared).  Writes its table to stdout and
# to TIMING_REPORT when set; exit status 1 when a kernel fails.  Also
# examples/gridstride.kern and examples/montecarlo_pi.kern, and the same
# kernels hand-written (bench/gpu/hand_timing.cu), through numba-cuda
# (bench/gpu/numba_timing.py, NUMBA_PYTHON) and the launch overhead of
# kernc's typed launcher against a bare cudaLaunchKernel
# (bench/gpu/launch_overhead.cu), where a GPU, nvcc and numba-cuda are.
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
run gridstride $((12 * n)) "$top/examples/gridstride.kern" saxpy_stride --grid 1024 --block 256 \
    "rand($n, 1)" "rand($n, 2)" 2.5
# Monte Carlo: min(N, 2^18) threads, 1000 points each, from xoroshiro128+
# states written as a .npy (random nonzero words: the timing needs no
# particular seed)
mc=$(( n < 262144 ? n : 262144 ))
work=$(mktemp -d)
if /usr/bin/python3 -c "
import numpy as np, sys
s = np.zeros($mc, dtype=[('s0', '<u8'), ('s1', '<u8')])
r = np.random.default_rng(1)
s['s0'] = r.integers(1, 2**63, $mc, dtype=np.uint64); s['s1'] = r.integers(1, 2**63, $mc, dtype=np.uint64)
np.save(sys.argv[1], s)" "$work/states.npy" 2>/dev/null; then
    run montecarlo 0 "$top/examples/montecarlo_pi.kern" count_inside --grid $(( (mc + 255) / 256 )) --block 256 \
        "$work/states.npy" 1000 "zeros($mc, int64)"
fi
} >"$out"
cat "$out"
# The references on the same device, where they can run (each skips
# cleanly, exit 77, without a GPU or its tools): the hand-written CUDA of
# bench/sass/hand.cu (bench/gpu/hand_timing.cu) with a bare cudaLaunchKernel's
# overhead, kernc's typed launcher's overhead (bench/gpu/launch_overhead.cu),
# and numba-cuda on the same .kern files (bench/gpu/numba_timing.py).
g=$top/bench/gpu
NVCC=${NVCC:-nvcc}
NUMBA_PYTHON=${NUMBA_PYTHON:-/work/V/bin/python}
if test "$backend" = cuda && command -v "$NVCC" >/dev/null 2>&1; then
    if "$NVCC" -arch=native -O3 -o "$work/hand_timing" "$g/hand_timing.cu" 2>"$work/err"; then
        "$work/hand_timing" "$n" "$rep" "$side" >>"$out.ref"; test $? = 1 && status=1
    else
        echo "hand_timing: build failed: $(head -n 3 "$work/err")" >>"$out.ref"; status=1
    fi
    build=${abs_top_builddir:-$top}
    if "$KERNC" -o "$work/launch.kern.cu" --header "$work/launch.kern.h" "$g/launch.kern" &&
       "$NVCC" -arch=native -O3 -I"$work" -I"$top/runtime" -I"$build/runtime" -o "$work/launch_overhead" \
           "$g/launch_overhead.cu" "$work/launch.kern.cu" -L"$build/runtime/.libs" -lkernrt 2>"$work/err"; then
        LD_LIBRARY_PATH=$build/runtime/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$work/launch_overhead" >>"$out.ref"
        test $? = 1 && status=1
    else
        echo "launch_overhead: build failed: $(head -n 3 "$work/err")" >>"$out.ref"; status=1
    fi
fi
if test "$backend" = cuda && test -x "$NUMBA_PYTHON"; then
    "$NUMBA_PYTHON" "$g/numba_timing.py" "$n" "$rep" "$side" >>"$out.ref" 2>&1; test $? = 1 && status=1
fi
if test -f "$out.ref"; then
    cat "$out.ref"; cat "$out.ref" >>"$out"; rm -f "$out.ref"
fi
rm -rf "$work"
test -n "$TIMING_REPORT" && cp "$out" "$TIMING_REPORT"
rm -f "$out"
exit $status
