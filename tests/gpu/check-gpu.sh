#!/bin/sh
# tests/gpu/check-gpu.sh - `make check-gpu`: the validation run for a machine
# with a CUDA GPU, one command, meant to finish in under 8 minutes on one GPU.
#
#   1. probe: nvcc (the build's NVCC) and a device (a kernel launched on the
#      cuda backend through `kernc run`); without either: a clear skip, exit 0;
#   2. the whole test suite with KRT_BACKEND=cuda (make check; the tests
#      that need a GPU run instead of skipping);
#   3. both backends on every program: the e2e host programs and the
#      examples (each checks its own results) with KRT_BACKEND=cpu and
#      =cuda, and the conformance kernels through `kernc run --backend cpu`
#      and `--backend cuda`, each compared with the same numba reference
#      (tests/conformance/run.py: exact for integers, a few ulps for the
#      transcendental functions), so the two backends agree with each other;
#      the e2e programs once more with KRT_I32=0 (the int64 kernels, not
#      their 32-bit variants NAME__i32);
#   4. the GPU benchmark: bench/sass/count (SASS instructions and registers,
#      kernc against hand-written CUDA and numba-cuda) and the timed kernels
#      of tests/gpu/timing.sh (kernc run --time --repeat: CUDA events around
#      each launch after a warm-up launch; effective bandwidth of the
#      streaming kernels against the device's peak);
#
# and writes everything to the report file (CHECK_GPU_REPORT, default
# check-gpu-report.txt in the build tree).  Exit status 0 when every step
# passed (or was skipped for want of a GPU), 1 otherwise.
#
# Environment (set by Makefile.am): abs_top_builddir, abs_top_srcdir, MAKE,
# NVCC; CHECK_GPU_REPORT; CHECK_GPU_QUICK=1 leaves out step 2;
# CHECK_GPU_PROBE_ONLY=1 stops after the probe (tests/gpu.sh).
top=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${abs_top_builddir:-$top}
MAKE=${MAKE:-make}
report=${CHECK_GPU_REPORT:-$build/check-gpu-report.txt}
KERNC=$build/kernc
export KERNC

if test -z "$NVCC" || ! command -v "$NVCC" >/dev/null 2>&1; then
    echo "check-gpu: SKIP: this build has no CUDA toolkit (nvcc); nothing to validate on a GPU"
    exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ! "$KERNC" run "$top/examples/double.kern" double_it --backend cuda --block 4 --quiet \
        'arange(4)' >"$work/probe" 2>&1; then
    echo "check-gpu: SKIP: no CUDA device ($(tail -n 1 "$work/probe"))"
    exit 0
fi

if test "$CHECK_GPU_PROBE_ONLY" = 1; then
    echo "check-gpu: a CUDA device is present (CHECK_GPU_PROBE_ONLY: stopping here)"
    exit 0
fi
status=0
start=$(date +%s)
step() {  # step NAME COMMAND...: run, log, record
    name=$1; shift
    t0=$(date +%s)
    if "$@" >"$work/log" 2>&1; then r=pass; else r=FAIL; status=1; fi
    t1=$(date +%s)
    printf '%-44s %s (%ss)\n' "$name" "$r" $((t1 - t0)) | tee -a "$report.steps"
    { echo "==== $name: $r"; tail -n 60 "$work/log"; } >>"$report.log"
}
: >"$report.steps"; : >"$report.log"
{
    echo "kernc check-gpu report, $(date -u '+%Y-%m-%d %H:%M UTC')"
    "$NVCC" --version | tail -n 1
    command -v nvidia-smi >/dev/null 2>&1 &&
        nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
} >"$report"

cd "$build" || exit 1
if test "$CHECK_GPU_QUICK" != 1; then
    step "make check, KRT_BACKEND=cuda" env KRT_BACKEND=cuda KERNC_BACKEND=cuda $MAKE check
fi
for b in cpu cuda; do
    step "e2e programs, $b backend" env KRT_BACKEND=$b $MAKE check TESTS=tests/e2e.sh
    step "examples, $b backend" env KRT_BACKEND=$b $MAKE check TESTS=tests/examples.sh
    step "conformance kernels, $b backend" env KERNC_BACKEND=$b $MAKE check TESTS=tests/conformance.sh
done
# the e2e programs launch the kernels' 32-bit variants NAME__i32 where
# their launches allow (krt_launch_fits32); once more with the int64
# kernels only, so that both variants of every kernel run and check
step "e2e programs, cuda backend, KRT_I32=0" env KRT_BACKEND=cuda KRT_I32=0 $MAKE check TESTS=tests/e2e.sh
step "SASS counts (bench/sass/count)" env SASS_REPORT="$work/sass" "$top/bench/sass/count" "$build"
test -f "$work/sass" && cp "$work/sass" "$report.sass"
step "GPU timings (tests/gpu/timing.sh)" env TIMING_REPORT="$work/timing" "$top/tests/gpu/timing.sh"
test -f "$work/timing" && cp "$work/timing" "$report.timing"

{
    echo
    echo "steps:"; cat "$report.steps"
    if test -f "$report.sass"; then echo; echo "SASS (sm_90):"; cat "$report.sass"; fi
    if test -f "$report.timing"; then echo; echo "timings:"; cat "$report.timing"; fi
    echo
    echo "total $(( $(date +%s) - start ))s; logs of each step: $report.log"
} >>"$report"
rm -f "$report.steps" "$report.sass" "$report.timing"
cat "$report"
exit $status
