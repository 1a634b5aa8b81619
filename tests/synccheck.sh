#!/bin/sh
# tests/synccheck.sh - TAP tests of the CPU backend's synchronisation checks
# (issue 13; runtime/cpucheck.c): with kernc -g, a barrier that not every
# live thread of a block reaches fails the launch with the barrier's file
# and line and the threads that missed it (and where they were); with
# kernc --racecheck, two threads touching one byte of shared memory between
# two barriers, one of them writing, fail it with both lines and both
# threads.  Race-free and barrier-clean kernels must run clean, and the
# code without -g must carry none of it.
#
# Environment: KERNC (the kernc binary), srcdir (default .),
# KERNC_INCLUDEDIR, KRT_BACKEND (the suite uses cpu).

srcdir=${srcdir:-.}
KERNC=${KERNC:-./kernc}
KRT_BACKEND=cpu
export KRT_BACKEND
d=$srcdir/tests/synccheck

work=$(mktemp -d "${TMPDIR:-/tmp}/kernc-synccheck.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT INT TERM

echo "1..33"
n=0
failed=0
pass() { n=$((n + 1)); echo "ok $n - $1"; }
fail() {
    n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"
    sed 's/^/# /' "$work/err" | head -20
}

# refused NAME 'MESSAGE' KERNC-RUN-ARGS...: the launch fails (exit 1) with
# MESSAGE (a fixed string) in the error.
refused() {
    name=$1 msg=$2; shift 2
    "$KERNC" run "$@" --quiet > "$work/out" 2> "$work/err"
    st=$?
    if [ "$st" -eq 1 ] && grep -qF -- "$msg" "$work/err"; then pass "$name"; else
        echo "exit $st, wanted 1 and: $msg" >> "$work/err"; fail "$name"; fi
}
# clean NAME KERNC-RUN-ARGS...: the launch succeeds.
clean() {
    name=$1; shift
    if "$KERNC" run "$@" --quiet > "$work/out" 2> "$work/err"; then pass "$name"; else fail "$name"; fi
}

b=$d/barrier.kern
g32="--block 32 zeros(32,int32)"
# shellcheck disable=SC2086
{
# ---- barrier divergence (kernc -g) ----
refused "barrier: threads that exit instead" \
    "barrier.kern:10: barrier divergence: not every live thread of the block reached this barrier: 16 threads (16,0,0)-(31,0,0) exited without reaching it" \
    -g "$b" exits_instead $g32
refused "barrier: threads at the else branch's barrier" \
    "barrier.kern:19: barrier divergence: not every live thread of the block reached this barrier: 16 threads (16,0,0)-(31,0,0) were at the cuda.syncthreads() at barrier.kern:22 instead" \
    -g "$b" other_barrier $g32
refused "barrier: a loop with thread-dependent trip counts" \
    "barrier.kern:30: barrier divergence: not every live thread of the block reached this barrier: 3 threads (0,0,0)-(2,0,0) were at the cuda.syncthreads() at barrier.kern:32 instead" \
    -g "$b" loop_trips --block 4 "zeros(4,int32)"
refused "barrier: syncthreads_count under a thread-dependent if" \
    "barrier.kern:41: barrier divergence: not every live thread of the block reached this barrier: 8 threads (0,0,0)-(7,0,0) were at the cuda.syncthreads() at barrier.kern:42 instead" \
    -g "$b" count_divergent $g32
refused "barrier: the message names the kernel and the block" \
    "krt_launch: kernel 'other_barrier': block (0, 0, 0): barrier.kern:19: barrier divergence" \
    -g "$b" other_barrier $g32
clean "barrier: threads that returned before the barrier are not waited for" \
    -g "$b" early_return $g32 20
clean "barrier: a barrier every thread skips together (uniform continue, break)" \
    --racecheck "$b" all_skip --block 64 "zeros(64,int32)" 6
clean "barrier: uniform loops and ifs" -g "$b" uniform_loop --block 64 "zeros(64,int32)" 20
clean "barrier: without -g the divergence is not checked (and costs nothing)" \
    "$b" other_barrier $g32
"$KERNC" --target c -w -o "$work/nog.c" --header "$work/nog.h" "$b" 2> "$work/err"
if [ -s "$work/nog.c" ] && ! grep -q 'krt_cpu_barrier\|krt_missed\|krt_rc_' "$work/nog.c"; then
    pass "barrier: no check in the code without -g"
else fail "barrier: no check in the code without -g"; fi
"$KERNC" --target c -w -g -o "$work/g.c" --header "$work/g.h" "$b" 2> "$work/err"
if grep -q 'krt_cpu_barrier' "$work/g.c" && ! grep -q 'krt_rc_' "$work/g.c"; then
    pass "barrier: -g checks barriers, no race detector without --racecheck"
else fail "barrier: -g checks barriers, no race detector without --racecheck"; fi

# ---- the race detector (kernc --racecheck) ----
r=$d/race.kern
g64="--block 64 zeros(64,int32)"
refused "race: the block scan without its second barrier" \
    "scan_racy.kern:23: racecheck: read-after-write hazard on shared memory 'temp' (byte 0 of the block's static shared memory): read by thread (2,0,0) at scan_racy.kern:23, write by thread (0,0,0) at scan_racy.kern:25, with no barrier between them" \
    --racecheck "$d/scan_racy.kern" block_scan --block 256 "arange(256,int32)" "zeros(256,int32)"
clean "race: the block scan with both barriers" \
    --racecheck "$d/scan.kern" block_scan --block 256 "arange(256,int32)" "zeros(256,int32)"
clean "race: the block scan with both barriers, 4 blocks of 256" \
    --racecheck "$d/scan.kern" block_scan --grid 4 --block 256 "arange(1000,int32)" "zeros(1000,int32)"
refused "race: write-write" \
    "race.kern:11: racecheck: write-after-write hazard on shared memory 's' (byte 0 of the block's static shared memory): write by thread (1,0,0) at race.kern:11, write by thread (0,0,0) at race.kern:11" \
    --racecheck "$r" write_write $g64
refused "race: read then another thread's write" \
    "race.kern:20: racecheck: write-after-read hazard on shared memory 's' (byte 4 of the block's static shared memory): write by thread (1,0,0) at race.kern:20, read by thread (0,0,0) at race.kern:21" \
    --racecheck "$r" read_write $g64
clean "race: the same with a barrier" --racecheck "$r" read_write_synced $g64
clean "race: atomics are not races" --racecheck "$r" atomics $g64
clean "race: lanes of a warp separated by syncwarp" --racecheck "$r" warp_synced $g64
refused "race: lanes of a warp without syncwarp" \
    "race.kern:58: racecheck: write-after-read hazard on shared memory 's' (byte 4 of the block's static shared memory): write by thread (1,0,0) at race.kern:58, read by thread (0,0,0) at race.kern:59" \
    --racecheck "$r" warp_unsynced $g64
refused "race: syncwarp does not order two warps" \
    "race.kern:68: racecheck: read-after-write hazard on shared memory 's' (byte 128 of the block's static shared memory): read by thread (0,0,0) at race.kern:68, write by thread (32,0,0) at race.kern:66" \
    --racecheck "$r" warp_across $g64
refused "race: dynamic shared memory" \
    "race.kern:75: racecheck: write-after-read hazard on shared memory 'd' (byte 128 of the block's dynamic shared memory): write by thread (32,0,0) at race.kern:75, read by thread (31,0,0) at race.kern:76" \
    --racecheck "$r" dynamic --block 64 --shared 256 "zeros(64)"
refused "race: through a device function's view of shared memory" \
    "race.kern:81: racecheck: read-after-write hazard on shared memory 'a'" \
    --racecheck "$r" through_device_function $g64
clean "race: global memory is not tracked" --racecheck "$r" global_only $g64 "zeros(64,int32)"
clean "race: a tree reduction" --racecheck "$b" uniform_loop --block 64 "zeros(64,int32)" 20
clean "race: early returns and barriers" --racecheck "$b" early_return $g32 20
}

"$KERNC" --target c --racecheck -o "$work/rc.c" --header "$work/rc.h" "$d/scan_racy.kern" 2> "$work/err"
if grep -q 'krt_rc_begin(krt_b, sizeof(struct block_scan__shared));' "$work/rc.c" &&
   grep -q 'krt_rc_sync(krt_b);' "$work/rc.c" && grep -q 'krt_ck_cpu' "$work/rc.c"; then
    pass "race: --racecheck implies -g and instruments the block"
else fail "race: --racecheck implies -g and instruments the block"; fi
# the generated code compiles warning-free with the race detector in it
if ${CC:-cc} -Wall -Wextra -Werror -I"${KERNC_INCLUDEDIR:-$srcdir/runtime}" -c -o "$work/rc.o" \
       "$work/rc.c" 2> "$work/err"; then pass "race: cc -Wall -Wextra -Werror"; else
    fail "race: cc -Wall -Wextra -Werror"; fi
"$KERNC" --racecheck -o "$work/rc.cu" --header "$work/rc.kern.h" "$r" 2> "$work/err"
if [ -s "$work/rc.cu" ] && grep -q 'krt_rc_pick' "$work/rc.cu"; then
    pass "race: the CUDA output carries the CPU version's checks"
else fail "race: the CUDA output carries the CPU version's checks"; fi
if [ -n "$NVCC" ] && command -v "$NVCC" > /dev/null 2>&1; then
    if "$NVCC" -arch=sm_90 -Werror all-warnings -I"${KERNC_INCLUDEDIR:-$srcdir/runtime}" -c \
           -o "$work/rc_cu.o" "$work/rc.cu" 2> "$work/err"; then
        pass "race: nvcc -Werror all-warnings"
    else fail "race: nvcc -Werror all-warnings"; fi
else
    n=$((n + 1)); echo "ok $n - race: nvcc -Werror all-warnings # SKIP no nvcc"
fi
"$KERNC" --racecheck --target c -o "$work/b.c" --header "$work/b.h" "$b" 2> "$work/err"
if ${CC:-cc} -Wall -Wextra -Werror -I"${KERNC_INCLUDEDIR:-$srcdir/runtime}" -c -o "$work/b.o" \
       "$work/b.c" 2> "$work/err"; then pass "barrier: cc -Wall -Wextra -Werror"; else
    fail "barrier: cc -Wall -Wextra -Werror"; fi
if "$KERNC" --help 2>&1 | grep -q -- '--racecheck' &&
   "$KERNC" run --help 2>&1 | grep -q -- '--racecheck'; then
    pass "race: --racecheck in kernc --help and kernc run --help"
else fail "race: --racecheck in kernc --help and kernc run --help"; fi
if grep -qF -- '\-\-racecheck' "$srcdir/doc/kernc.1" && grep -q -- '--racecheck' "$srcdir/README.md"; then
    pass "race: documented in kernc(1) and README"
else echo "missing" > "$work/err"; fail "race: documented in kernc(1) and README"; fi

[ "$n" -eq 33 ] || echo "# ran $n tests, planned 33"
exit 0
