#!/bin/sh
# downstream.sh - `make installcheck`: a project outside this tree uses the
# installed kernc exactly as kernc.m4 documents: KERNC_PROG in configure.ac
# (found through the installed kernc.m4 and kernrt.pc), the .kern.kern.c
# suffix rule in Makefile.am, examples/double.kern as its kernel.  It must
# configure, build and run; with nvcc (KERNC_NVCC from kernrt.pc) the
# .kern.kern.cu rule and the documented nvcc lines are run too.
#
# Environment (set by Makefile.am): srcdir, libdir, datadir.

set -e
: "${srcdir:?}" "${libdir:?}" "${datadir:?}"
srcdir=$(cd "$srcdir" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/kernc-downstream.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
cd "$work"

cp "$srcdir/examples/double.kern" "$srcdir/examples/double.c" .
cat > configure.ac <<'AC'
AC_INIT([downstream], [1.0])
AM_INIT_AUTOMAKE([foreign -Wall -Werror])
AC_PROG_CC
KERNC_PROG([0.1])
AC_CONFIG_FILES([Makefile])
AC_OUTPUT
AC
cat > Makefile.am <<'AM'
SUFFIXES = .kern .kern.c .kern.cu
.kern.kern.c:
	$(KERNC) --target c -o $@ --header $*.kern.h $<
.kern.kern.cu:
	$(KERNC) -o $@ --header $*.kern.h $<

bin_PROGRAMS = double
double_SOURCES = double.c
nodist_double_SOURCES = double.kern.c
double_CFLAGS = $(KERNRT_CFLAGS)
double_LDADD = $(KERNRT_LIBS)
double.kern.h: double.kern.c
double.kern.cu: double.kern.c
BUILT_SOURCES = double.kern.h
CLEANFILES = double.kern.c double.kern.h double.kern.cu
EXTRA_DIST = double.kern
AM

echo "downstream: autoreconf, configure against $libdir/pkgconfig"
ACLOCAL_PATH=$datadir/aclocal${ACLOCAL_PATH:+:$ACLOCAL_PATH}
PKG_CONFIG_PATH=$libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export ACLOCAL_PATH PKG_CONFIG_PATH LD_LIBRARY_PATH
autoreconf -i >autoreconf.log 2>&1 || { cat autoreconf.log; exit 1; }
./configure -q
make -s --no-print-directory
KRT_BACKEND=cpu ./double

nvcc=$(sed -n 's/^KERNC_NVCC = //p' Makefile)
if test -n "$nvcc"; then
    echo "downstream: nvcc, as kernc.m4 documents"
    make -s --no-print-directory double.kern.cu
    cflags=$(sed -n 's/^KERNRT_CFLAGS = //p' Makefile)
    libs=$(sed -n 's/^KERNRT_LIBS = //p' Makefile)
    # shellcheck disable=SC2086  # flag lists
    "$nvcc" $cflags -c double.kern.cu -o double.kern.o
    # shellcheck disable=SC2086
    "$nvcc" -cudart shared -o double-cuda double-double.o double.kern.o $libs
    KRT_BACKEND=auto ./double-cuda
fi
echo "downstream: ok"
