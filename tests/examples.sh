#!/bin/sh
# examples.sh - TAP: runs every example program (built by `make check` from
# examples/NAME.kern with the documented suffix rules) on the CPU backend.
# Each program checks its own result and exits non-zero on a mismatch.
# An entry NAME:KERN is the program NAME (built with KERN.kern's kernels).
#
# Environment (set by Makefile.am): EXAMPLES, abs_top_builddir, KRT_BACKEND.

: "${abs_top_builddir:?run me from make check}"
set -- $EXAMPLES
echo "1..$#"
n=0
for name; do
    name=${name%%:*}
    n=$((n + 1))
    prog=$abs_top_builddir/examples/$name
    if out=$("$prog" 2>&1); then
        echo "ok $n - $name"
    else
        echo "not ok $n - $name (exit status $?)"
    fi
    # The program's own report, bounded: a failing one may print a line per element.
    printf '%s\n' "$out" | head -n 20 | sed 's/^/# /'
done
