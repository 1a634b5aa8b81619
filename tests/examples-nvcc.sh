#!/bin/sh
# examples-nvcc.sh - TAP: the CUDA side of the examples.  Each
# examples/NAME.kern.cu (kernc's default output, made by the .kern.kern.cu
# suffix rule) must compile with `nvcc -Werror all-warnings`; the object is
# then linked with the example's host program and libkernrt and run with
# KRT_BACKEND=auto: on the GPU where there is one, otherwise the same binary
# runs the CPU code of the .cu file.  Skipped without nvcc.  An entry
# NAME:KERN is the program NAME, linked with KERN.kern.cu.
#
# Environment (set by Makefile.am): NVCC, NVCCFLAGS, EXAMPLES,
# abs_top_builddir, KERNC_INCLUDEDIR, KRT_LIBDIR.

: "${abs_top_builddir:?run me from make check}"
if test -z "$NVCC"; then
    echo "1..0 # SKIP nvcc not found by configure"
    exit 0
fi
work=$abs_top_builddir/tests/tmp/examples-nvcc
rm -rf "$work" && mkdir -p "$work" || exit 1

set -- $EXAMPLES
echo "1..$(($# * 2))"
n=0
for name; do
    kern=${name#*:}
    name=${name%%:*}
    cu=$abs_top_builddir/examples/$kern.kern.cu
    obj=$work/$name.kern.o
    # A program built with flags of its own has a per-target object name.
    host=$abs_top_builddir/examples/$name.o
    test -f "$host" || host=$abs_top_builddir/examples/$name-$name.o
    out=
    n=$((n + 1))
    # dev (issue 9): an example that links CUDA C files (cuda.declare_device)
    # is compiled with kernc's nvcc flags (-rdc=true); each linked file is
    # compiled by nvcc too, and the CPU build of it (examples/NAME.cpu.o,
    # made by make check) joins the link.
    kflags=$("$KERNC" --print-nvcc-flags "$abs_top_srcdir/examples/$kern.kern" 2>/dev/null)
    extra=
    for lf in $("$KERNC" --print-link-files "$abs_top_srcdir/examples/$kern.kern" 2>/dev/null); do
        lo=$work/$(basename "$lf" .cu).rdc.o
        # shellcheck disable=SC2086
        "$NVCC" $NVCCFLAGS -Werror all-warnings -rdc=true -c "$lf" -o "$lo" \
            >>"$work/$name.nvcc.log" 2>&1
        extra="$extra $lo $abs_top_builddir/examples/$(basename "$lf" .cu).cpu.o"
    done
    # shellcheck disable=SC2086  # NVCCFLAGS is a list of flags
    if "$NVCC" $NVCCFLAGS $kflags -Werror all-warnings -I"$KERNC_INCLUDEDIR" \
        -c "$cu" -o "$obj" >>"$work/$name.nvcc.log" 2>&1; then
        echo "ok $n - nvcc -c $kern.kern.cu"
    else
        echo "not ok $n - nvcc -c $kern.kern.cu"
        head -n 20 "$work/$name.nvcc.log" | sed 's/^/# /'
    fi
    n=$((n + 1))
    if test ! -f "$obj"; then
        echo "not ok $n - $name on KRT_BACKEND=auto # no object to link"
        continue
    fi
    # -cudart shared: libkernrt uses the shared libcudart, and the kernels
    # must be registered with that same copy.
    # shellcheck disable=SC2086  # $kflags and $extra are lists
    if "$NVCC" $NVCCFLAGS $kflags -cudart shared -o "$work/$name" "$obj" $extra \
        "$host" -L"$KRT_LIBDIR" -lkernrt \
        -Xlinker -rpath -Xlinker "$KRT_LIBDIR" >"$work/$name.link.log" 2>&1 &&
        out=$(KRT_BACKEND=auto "$work/$name" 2>&1); then
        echo "ok $n - $name on KRT_BACKEND=auto"
    else
        echo "not ok $n - $name on KRT_BACKEND=auto"
        out=$(cat "$work/$name.link.log")${out:+
$out}
    fi
    printf '%s\n' "$out" | head -n 20 | sed 's/^/# /'
done
