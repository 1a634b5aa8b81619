#!/bin/sh
# mpi.sh - TAP: examples/mpi_exchange under mpirun, two ranks on this
# machine on the cpu backend: with one device (both ranks on device 0),
# with KRT_CPU_DEVICES=2 (one device per rank), and with the buffers
# staged through pinned host memory instead of handed to MPI directly.
# Skipped where configure found no mpicc/mpirun.
#
# Environment (set by Makefile.am): abs_top_builddir, MPIRUN.

: "${abs_top_builddir:?run me from make check}"
prog=$abs_top_builddir/examples/mpi_exchange
if test -z "$MPIRUN" || ! test -x "$prog"; then
    echo "1..0 # SKIP no MPI (mpicc and mpirun; apt-get install openmpi-bin libopenmpi-dev)"
    exit 0
fi
# As root Open MPI wants to be told; two ranks on two cores or fewer.
flags="-np 2"
case $("$MPIRUN" --version 2>&1) in
*"Open MPI"*) flags="--allow-run-as-root --oversubscribe $flags" ;;
esac
tmo=
command -v timeout >/dev/null 2>&1 && tmo="timeout 120"

echo "1..3"
n=0
run() {
    desc=$1
    shift
    n=$((n + 1))
    # shellcheck disable=SC2086  # word splitting of the flags is wanted
    if out=$(env KRT_BACKEND=cpu "$@" $tmo "$MPIRUN" $flags "$prog" $extra 2>&1) &&
        test "$(printf '%s\n' "$out" | grep -c ': ok$')" = 2 &&
        printf '%s\n' "$out" | grep -q "$want"; then
        echo "ok $n - $desc"
    else
        echo "not ok $n - $desc"
    fi
    printf '%s\n' "$out" | head -n 12 | sed 's/^/# /'
}
extra= want="rank 1 of 2 on cpu device 0 (device buffers to MPI)"
run "two ranks on one cpu device swap device buffers"
want="rank 1 of 2 on cpu device 1 (device buffers to MPI)"
run "two ranks on two devices (KRT_CPU_DEVICES=2), one each" KRT_CPU_DEVICES=2
extra=--staged want="rank 1 of 2 on cpu device 1 (staged)"
run "two ranks staging through pinned host buffers" KRT_CPU_DEVICES=2
