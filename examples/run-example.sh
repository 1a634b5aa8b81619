#!/bin/sh
# run-example.sh NAME - the quick start behind `make run-example`: shows
# examples/NAME.kern, then runs it on the GPU if there is one, else on the
# CPU.  With CUDA (NVCC set by configure) the translator's .cu output is
# compiled with nvcc and linked with the host program, and the runtime picks
# the backend (KRT_BACKEND=auto); without CUDA the program built from the
# --target c output runs on the CPU backend.
#
# Run from the build directory by make, which sets NVCC, NVCCFLAGS,
# KRT_INCLUDEDIR and KRT_LIBDIR and has built examples/NAME and
# examples/NAME.kern.cu.

name=${1:-double}
srcdir=$(dirname "$0")
set -e

echo "== $srcdir/$name.kern"
cat "$srcdir/$name.kern"
echo
if test -n "$NVCC"; then
    echo "== nvcc: examples/$name.kern.cu + examples/$name.o -> examples/$name-cuda"
    # shellcheck disable=SC2086  # NVCCFLAGS is a list of flags
    "$NVCC" $NVCCFLAGS -I"$KRT_INCLUDEDIR" -cudart shared \
        -o "examples/$name-cuda" "examples/$name.kern.cu" "examples/$name.o" \
        -L"$KRT_LIBDIR" -lkernrt -Xlinker -rpath -Xlinker "$KRT_LIBDIR"
    echo "== examples/$name-cuda (KRT_BACKEND=${KRT_BACKEND:-auto})"
    KRT_BACKEND=${KRT_BACKEND:-auto} "examples/$name-cuda"
else
    echo "== examples/$name (no CUDA toolkit: CPU backend)"
    KRT_BACKEND=${KRT_BACKEND:-cpu} "examples/$name"
fi
