#!/bin/sh
# tests/gpu.sh - issue 11's GPU path, on any machine: `kernc
# --print-nvcc-flags` (-lineinfo for lineinfo=True, nothing otherwise),
# `make check-gpu`'s probe (a clear skip, exit 0, without nvcc or a
# device), --assume-noalias output that nvcc compiles warning-free,
# bench/sass/count where nvcc and cuobjdump are installed, and the 32-bit
# kernel variants' printing checked on the CPU backend.
# Environment (set by Makefile.am): abs_top_builddir, abs_top_srcdir, NVCC.
top=${abs_top_srcdir:-.}
build=${abs_top_builddir:-.}
KERNC=$build/kernc
work=$(mktemp -d "${TMPDIR:-/tmp}/kernc-gpu.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT INT TERM
echo "1..7"

f=$("$KERNC" --print-nvcc-flags "$top/tests/e2e/options.kern")
g=$("$KERNC" --print-nvcc-flags "$top/examples/double.kern")
if [ "$f" = "-lineinfo" ] && [ -z "$g" ]; then
    echo "ok 1 - --print-nvcc-flags: -lineinfo for lineinfo=True, nothing otherwise"
else
    echo "not ok 1 - --print-nvcc-flags gave '$f' and '$g'"
fi

out=$(abs_top_builddir=$build abs_top_srcdir=$top NVCC=/nonexistent/nvcc \
      sh "$top/tests/gpu/check-gpu.sh" 2>&1); rc=$?
case $rc:$out in
    0:*"check-gpu: SKIP: this build has no CUDA toolkit"*) echo "ok 2 - check-gpu without nvcc: a skip, exit 0" ;;
    *) echo "not ok 2 - check-gpu without nvcc: exit $rc: $out" ;;
esac

# The 32-bit variants' printing (NAME__i32, issue 11) checked on the CPU
# backend: KERNC_TEST_CPU_I32=1 prints the CPU kernels as NAME__i32 is,
# valid for these small launches; their results against numba.
out=$(KERNC_TEST_CPU_I32=1 KERNC=$KERNC KERNC_INCLUDEDIR=$top/runtime \
      LD_LIBRARY_PATH=$build/runtime/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} /usr/bin/python3 \
      "$top/tests/conformance/run.py" $(for t in value_ranges grid_stride array_2d_strided neg_index \
      shared_stencil wrap_store_i32 loop_range_forms; do echo "$top/tests/conformance/$t.kern"; done) 2>&1)
if echo "$out" | grep -q '^not ok\|Bail out'; then
    echo "not ok 3 - the 32-bit variants' code on the CPU backend"; echo "$out" | grep -A5 '^not ok\|Bail' | sed 's/^/# /'
elif echo "$out" | grep -q '^1\.\.0'; then
    echo "ok 3 # SKIP conformance: $(echo "$out" | head -n 1)"
else
    echo "ok 3 - the 32-bit variants' code on the CPU backend equals numba ($(echo "$out" | grep -c '^ok') files)"
fi

if [ -z "$NVCC" ] || ! command -v "$NVCC" >/dev/null 2>&1; then
    echo "ok 4 # SKIP no nvcc"
    echo "ok 5 # SKIP no nvcc"
    echo "ok 6 # SKIP no nvcc"
    echo "ok 7 # SKIP no nvcc"
    exit 0
fi
out=$(abs_top_builddir=$build abs_top_srcdir=$top NVCC=$NVCC CHECK_GPU_PROBE_ONLY=1 \
      sh "$top/tests/gpu/check-gpu.sh" 2>&1); rc=$?
case $rc:$out in
    0:*"check-gpu: SKIP: no CUDA device"*) echo "ok 4 - check-gpu without a device: a skip, exit 0" ;;
    0:*"a CUDA device is present"*) echo "ok 4 - check-gpu finds the CUDA device" ;;
    *) echo "not ok 4 - check-gpu probe: exit $rc: $out" ;;
esac

ok=yes
for k in saxpy axpy2d histogram matmul reduce scan stencil warpsum; do
    if ! "$KERNC" --assume-noalias -o "$work/$k.cu" --header "$work/$k.kern.h" "$top/bench/sass/$k.kern" ||
       ! "$NVCC" -arch=sm_90 -Werror all-warnings -cubin -I"$top/runtime" -I"$build/runtime" \
            -o "$work/$k.cubin" "$work/$k.cu" 2>"$work/err"; then
        ok=no; echo "# $k: $(head -n 3 "$work/err")"
    fi
    grep -q '__restrict__' "$work/$k.cu" || { ok=no; echo "# $k: no __restrict__ pointer"; }
done
[ $ok = yes ] && echo "ok 5 - --assume-noalias: the eight bench kernels compile with nvcc -Werror all-warnings" \
              || echo "not ok 5 - --assume-noalias output"

out=$("$top/bench/sass/count" "$build" 2>&1); rc=$?
case $rc:$out in
    77:*) echo "ok 6 # SKIP bench/sass/count: $(echo "$out" | tail -n 1)" ;;
    0:*"geometric mean: kernc/hand"*) echo "ok 6 - bench/sass/count: $(echo "$out" | grep 'geometric mean')" ;;
    *) echo "not ok 6 - bench/sass/count: exit $rc"; echo "$out" | sed 's/^/# /' ;;
esac

# The GPU timings' references (tests/gpu/timing.sh) build without a GPU
# and skip cleanly (77) where there is none.
ok=yes
"$NVCC" -arch=sm_90 -Werror all-warnings -o "$work/hand_timing" "$top/bench/gpu/hand_timing.cu" 2>"$work/err" ||
    { ok=no; echo "# hand_timing.cu: $(head -n 3 "$work/err")"; }
if "$KERNC" -o "$work/launch.kern.cu" --header "$work/launch.kern.h" "$top/bench/gpu/launch.kern"; then
    "$NVCC" -arch=sm_90 -Werror all-warnings -I"$work" -I"$top/runtime" -I"$build/runtime" -o "$work/launch_overhead" \
        "$top/bench/gpu/launch_overhead.cu" "$work/launch.kern.cu" -L"$build/runtime/.libs" -lkernrt 2>"$work/err" ||
        { ok=no; echo "# launch_overhead.cu: $(head -n 3 "$work/err")"; }
else
    ok=no
fi
/usr/bin/python3 -c "import ast, sys; ast.parse(open(sys.argv[1]).read())" "$top/bench/gpu/numba_timing.py" ||
    { ok=no; echo "# numba_timing.py does not parse"; }
if [ $ok = yes ] && [ -z "$(nvidia-smi -L 2>/dev/null)" ]; then
    "$work/hand_timing" >/dev/null; a=$?
    LD_LIBRARY_PATH=$build/runtime/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$work/launch_overhead" >/dev/null; b=$?
    [ $a = 77 ] && [ $b = 77 ] || { ok=no; echo "# without a GPU: exit $a and $b, not 77"; }
fi
[ $ok = yes ] && echo "ok 7 - bench/gpu: the hand-written and launch-overhead timings build (nvcc -Werror) and skip without a GPU" \
              || echo "not ok 7 - bench/gpu"
