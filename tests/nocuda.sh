#!/bin/sh
# nocuda.sh - TAP: no CUDA where CUDA is not used.  libkernrt and kernc do
# not link libcudart (no NEEDED entry: the cuda backend dlopen()s it at
# first use), and CPU programs run with the library made unfindable
# (KRT_CUDART pointing nowhere, an empty LD_LIBRARY_PATH directory in
# front), on the cpu backend under KRT_BACKEND=auto, while
# KRT_BACKEND=cuda fails with a clear message.
#
# Environment (set by Makefile.am): abs_top_builddir, KERNC.

: "${abs_top_builddir:?run me from make check}"
lib=$abs_top_builddir/runtime/.libs/libkernrt.so
# kernc is a libtool wrapper script in the build tree; the binary is here.
bin=$abs_top_builddir/.libs/kernc
test -f "$bin" || bin=$abs_top_builddir/kernc
empty=$abs_top_builddir/tests/tmp/nocuda-empty
mkdir -p "$empty"

if ! command -v readelf >/dev/null 2>&1; then
    echo "1..0 # SKIP readelf not found"
    exit 0
fi
echo "1..5"
n=0
check() {
    n=$((n + 1))
    if "$@"; then echo "ok $n - $desc"; else echo "not ok $n - $desc"; fi
}
needed() { readelf -d "$1" | grep NEEDED | sed 's/^/# /'; }

desc="libkernrt.so has no libcudart in its NEEDED entries"
needed "$lib"
check sh -c "! readelf -d '$lib' | grep NEEDED | grep -q libcudart"
desc="kernc has no libcudart in its NEEDED entries"
needed "$bin"
check sh -c "! readelf -d '$bin' | grep NEEDED | grep -q libcudart"

desc="kernc --version runs with libcudart unfindable"
check sh -c "LD_LIBRARY_PATH='$empty:$LD_LIBRARY_PATH' KRT_CUDART=/nonexistent '$KERNC' --version >/dev/null"

desc="examples/double runs on the cpu with KRT_BACKEND=auto and libcudart unfindable"
check sh -c "LD_LIBRARY_PATH='$empty:$LD_LIBRARY_PATH' KRT_CUDART=/nonexistent KRT_BACKEND=auto '$abs_top_builddir/examples/double' >/dev/null"

# (a build configured --without-cuda, as the sanitizer runs of .ci/run,
# says that instead)
desc="KRT_BACKEND=cuda then fails with a message, and no crash"
out=$(LD_LIBRARY_PATH="$empty:$LD_LIBRARY_PATH" KRT_CUDART=/nonexistent \
      KRT_BACKEND=cuda "$abs_top_builddir/examples/double" 2>&1)
rc=$?
printf '%s\n' "$out" | head -n 3 | sed 's/^/# /'
failed_cleanly() {
    test "$rc" -ge 1 && test "$rc" -lt 128 &&
        printf '%s\n' "$out" |
            grep -q "KRT_ENOBACKEND.*\(cannot load the CUDA runtime library\|built without CUDA support\)"
}
check failed_cleanly
