#!/bin/sh
# downstream.sh - projects outside this tree use an installed kernc, from
# the installed files only, each the way the README documents it:
#   - `kernc run` of the installed kernc (no KERNC_INCLUDEDIR: it finds the
#     headers next to itself);
#   - Autotools: KERNC_PROG from the installed kernc.m4 (aclocal finds it
#     through ACLOCAL_PATH), kernrt.pc, the .kern.kern.c suffix rule;
#   - CMake: find_package(kernc) (the version file refuses 9.0),
#     kernc_add_sources(), kernc::kernrt; a changed .kern file is
#     translated again (the -MD dependency file), with the Makefile
#     generator and with Ninja where it is installed;
#   - a plain GNU Makefile with pattern rules and pkg-config;
#   - with nvcc (KERNC_NVCC from kernrt.pc): the .kern.kern.cu rule and the
#     documented nvcc lines, and (KERNC_TEST_CMAKE_CUDA=yes, as make
#     installcheck sets it: CMake's CUDA detection is slow) a CMake project
#     with TARGET_LANG cuda.
# Each built program is examples/double.c with examples/double.kern, run on
# the CPU backend; programs find libkernrt through LD_LIBRARY_PATH (the
# CMake one through the rpath CMake gives it).
#
# `make installcheck` runs this after `make install` (make distcheck too);
# tests/install.sh runs it in `make check` on an installation staged with
# DESTDIR.  Prints TAP; exits non-zero if anything failed.
#
# Environment: srcdir; prefix, bindir, libdir, includedir, datadir as
# configured; DESTDIR (optional: the installation is staged there).

: "${srcdir:?}" "${prefix:?}" "${bindir:?}" "${libdir:?}" "${includedir:?}" "${datadir:?}"
srcdir=$(cd "$srcdir" && pwd)
root=${DESTDIR:-}
work=$(mktemp -d "${TMPDIR:-/tmp}/kernc-downstream.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT INT TERM

n=0
failed=0
pass() { n=$((n + 1)); echo "ok $n - $1"; }
fail() {
    n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"
    [ -s "$work/log" ] && tail -n 25 "$work/log" | sed 's/^/# /'
}
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
step() { # step NAME COMMAND...: one test, the command's output in $work/log
    name=$1; shift
    if "$@" > "$work/log" 2>&1; then pass "$name"; else fail "$name"; fi
}

# What a user sets for an installation in a non-default prefix (README).
ACLOCAL_PATH=$root$datadir/aclocal${ACLOCAL_PATH:+:$ACLOCAL_PATH}
PKG_CONFIG_PATH=$root$libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
LD_LIBRARY_PATH=$root$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
KRT_BACKEND=cpu
export ACLOCAL_PATH PKG_CONFIG_PATH LD_LIBRARY_PATH KRT_BACKEND
unset KERNC_INCLUDEDIR KERNC
# A staged installation: kernrt.pc still names the configured prefix.
if [ -n "$root" ]; then
    PKG_CONFIG="pkg-config --define-variable=prefix=$root$prefix"
else
    PKG_CONFIG=pkg-config
fi
export PKG_CONFIG
# shellcheck disable=SC2086  # PKG_CONFIG is a command with its options
kernc=$($PKG_CONFIG --variable=kernc kernrt 2> /dev/null)

echo "1..10"

# ---- kernc run, installed ----
cd "$work" || exit 99
step "kernc.pc names the installed kernc ($kernc)" test -x "$kernc"
if "$kernc" run "$srcdir/examples/double.kern" double_it 'arange(10)' --block 16 \
       > run.out 2> "$work/log" &&
   grep -qx '\[ 0.  2.  4.  6.  8. 10. 12. 14. 16. 18.\]' run.out; then
    pass "the installed kernc run finds its headers and prints the result"
else
    cat run.out >> "$work/log"
    fail "the installed kernc run finds its headers and prints the result"
fi

# ---- Autotools ----
mkdir "$work/am" && cd "$work/am" || exit 99
cp "$srcdir/examples/double.kern" "$srcdir/examples/double.c" . && chmod u+w double.kern double.c
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
double_CFLAGS = -O2 $(KERNRT_CFLAGS)
double_LDADD = $(KERNRT_LIBS)
double.kern.h: double.kern.c
double.kern.cu: double.kern.c
BUILT_SOURCES = double.kern.h
CLEANFILES = double.kern.c double.kern.h double.kern.cu
EXTRA_DIST = double.kern
AM
step "Autotools: KERNC_PROG from the installed kernc.m4, configure, make, run" sh -c '
    autoreconf -i && ./configure -q && make -s --no-print-directory && ./double'

# ---- CMake ----
mkdir "$work/cm" && cd "$work/cm" || exit 99
cp "$srcdir/examples/double.kern" "$srcdir/examples/double.c" . && chmod u+w double.kern double.c
cat > CMakeLists.txt <<'CM'
cmake_minimum_required(VERSION 3.20)
project(downstream C)
find_package(kernc 0.1 REQUIRED)
add_executable(double double.c)
kernc_add_sources(double double.kern)
CM
cmake_version=$(cmake --version 2> /dev/null | sed -n '1s/^cmake version \([0-9]*\.[0-9]*\).*/\1/p')
cmake_ok=no
case $cmake_version in
    3.2[0-9]*|3.[3-9][0-9]*|[4-9].*) cmake_ok=yes ;;
esac
if [ "$cmake_ok" = yes ]; then
    # build DIR GENERATOR: configure, build, run; then a changed kernel
    # (the factor 2 becomes 3) must be translated and built again.
    cmake_build() {
        sed 's/a\[i\] \* 2$/a[i] * 2/' "$srcdir/examples/double.kern" > double.kern &&
        cmake -S . -B "$1" -G "$2" -DCMAKE_PREFIX_PATH="$root$prefix" &&
        cmake --build "$1" && "./$1/double" &&
        sleep 1 && sed 's/a\[i\] \* 2$/a[i] * 3/' double.kern > double.kern.new &&
        mv double.kern.new double.kern &&
        cmake --build "$1" && grep -q 'a\[i\] \* 3' double.kern &&
        grep -q '3' "$1/double.kern.c" && ! "./$1/double"
    }
    step "CMake: find_package(kernc), kernc_add_sources, rebuilt when the .kern changes" \
        cmake_build build "Unix Makefiles"
    if command -v ninja > /dev/null 2>&1; then
        step "CMake with Ninja: the same" cmake_build build-ninja Ninja
    else
        skip "CMake with Ninja: the same" "no ninja"
    fi
    # dev (issue 9): a .kern that links CUDA C (cuda.declare_device)
    mkdir "$work/cmffi" && (cd "$work/cmffi" &&
        cp "$srcdir/examples/colormap.kern" "$srcdir/examples/colormap.cu" \
            "$srcdir/examples/colormap.c" . && chmod u+w colormap.* &&
        printf '%s\n' 'cmake_minimum_required(VERSION 3.20)' 'project(downstream C)' \
            'find_package(kernc 0.1 REQUIRED)' 'add_executable(colormap colormap.c)' \
            'kernc_add_sources(colormap colormap.kern)' > CMakeLists.txt)
    step "CMake: kernc_add_sources builds the CUDA C a .kern links (cuda.declare_device)" \
        sh -c "cd '$work/cmffi' && cmake -S . -B build -DCMAKE_PREFIX_PATH='$root$prefix' &&
               cmake --build build && ./build/colormap"
    sed 's/find_package(kernc 0.1 REQUIRED)/find_package(kernc 9.0 REQUIRED)/' CMakeLists.txt \
        > CMakeLists.txt.new && mv CMakeLists.txt.new CMakeLists.txt
    if cmake -S . -B build-v9 -DCMAKE_PREFIX_PATH="$root$prefix" > "$work/log" 2>&1; then
        fail "CMake: find_package(kernc 9.0) is refused by the version file"
    elif grep -q 'considered but not accepted' "$work/log"; then
        pass "CMake: find_package(kernc 9.0) is refused by the version file"
    else
        fail "CMake: find_package(kernc 9.0) is refused by the version file"
    fi
else
    skip "CMake: find_package(kernc), kernc_add_sources, rebuilt when the .kern changes" \
        "no cmake >= 3.20"
    skip "CMake with Ninja: the same" "no cmake >= 3.20"
    skip "CMake: find_package(kernc 9.0) is refused by the version file" "no cmake >= 3.20"
    skip "CMake: kernc_add_sources builds the CUDA C a .kern links (cuda.declare_device)" \
        "no cmake >= 3.20"
fi

# ---- a plain GNU Makefile ----
mkdir "$work/mk" && cd "$work/mk" || exit 99
cp "$srcdir/examples/double.kern" "$srcdir/examples/double.c" . && chmod u+w double.kern double.c
cat > Makefile <<'MK'
PKG_CONFIG ?= pkg-config
KERNC := $(shell $(PKG_CONFIG) --variable=kernc kernrt)
CFLAGS := -O2 $(shell $(PKG_CONFIG) --cflags kernrt)
LDLIBS := $(shell $(PKG_CONFIG) --libs kernrt)

double: double.o double.kern.o
double.o: double.kern.h

# NAME.kern -> NAME.kern.c and NAME.kern.h, in one kernc run.  The empty
# rule for %.kern keeps GNU make from trying to make a .kern file from a
# NAME.kern.o (the built-in link rule), which ends in "Circular
# NAME.kern.c <- NAME.kern dependency dropped".
%.kern: ;
%.kern.c %.kern.h: %.kern
	$(KERNC) --target c -o $*.kern.c --header $*.kern.h $<
MK
step "plain GNU make: pattern rules and pkg-config, no circular dependency" sh -c '
    make 2>&1 | tee make.out && ! grep -q Circular make.out && ./double'

# ---- nvcc, as kernc.m4 documents ----
cd "$work/am" || exit 99
nvcc=$(sed -n 's/^KERNC_NVCC = //p' Makefile 2> /dev/null)
if [ -n "$nvcc" ]; then
    cflags=$(sed -n 's/^KERNRT_CFLAGS = //p' Makefile)
    libs=$(sed -n 's/^KERNRT_LIBS = //p' Makefile)
    # shellcheck disable=SC2086  # flag lists
    step "nvcc: the .kern.kern.cu rule and the documented nvcc lines" sh -c "
        make -s --no-print-directory double.kern.cu &&
        '$nvcc' -O2 $cflags -c double.kern.cu -o double.kern.o &&
        '$nvcc' -cudart shared -o double-cuda double-double.o double.kern.o $libs &&
        KRT_BACKEND=auto ./double-cuda"
else
    skip "nvcc: the .kern.kern.cu rule and the documented nvcc lines" "no nvcc"
fi

# ---- CMake, TARGET_LANG cuda (slow: CMake's CUDA detection; installcheck) ----
if [ -z "$nvcc" ] || [ "$cmake_ok" != yes ]; then
    skip "CMake: kernc_add_sources(... TARGET_LANG cuda) with nvcc" "no nvcc or cmake"
elif [ "${KERNC_TEST_CMAKE_CUDA:-no}" != yes ]; then
    skip "CMake: kernc_add_sources(... TARGET_LANG cuda) with nvcc" \
        "make installcheck runs it (KERNC_TEST_CMAKE_CUDA=yes)"
else
    mkdir "$work/cu" && cd "$work/cu" || exit 99
    cp "$srcdir/examples/double.kern" "$srcdir/examples/double.c" . && chmod u+w double.kern double.c
    cat > CMakeLists.txt <<'CM'
cmake_minimum_required(VERSION 3.20)
project(downstream C CUDA)
find_package(kernc 0.1 REQUIRED)
add_executable(double-cuda double.c)
kernc_add_sources(double-cuda double.kern TARGET_LANG cuda)
CM
    step "CMake: kernc_add_sources(... TARGET_LANG cuda) with nvcc" sh -c "
        cmake -S . -B build -DCMAKE_PREFIX_PATH='$root$prefix' -DCMAKE_CUDA_COMPILER='$nvcc' &&
        cmake --build build && KRT_BACKEND=auto ./build/double-cuda"
fi

echo "# $failed of $n failed"
[ "$failed" -eq 0 ]
