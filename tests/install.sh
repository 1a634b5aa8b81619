#!/bin/sh
# tests/install.sh - `make check`'s view of an installation: `make install`
# into a scratch DESTDIR, then tests/downstream.sh against the staged files
# (downstream projects built from installed files only).  The same script
# runs after a real `make install` as `make installcheck`.
#
# Environment (Makefile.am): MAKE, abs_top_builddir, srcdir, and prefix,
# bindir, libdir, includedir, datadir, mandir as configured.

: "${MAKE:=make}" "${abs_top_builddir:?}" "${srcdir:?}"
stage=$(mktemp -d "${TMPDIR:-/tmp}/kernc-stage.XXXXXX") || exit 99
trap 'rm -rf "$stage"' EXIT INT TERM

# MAKEFLAGS from the make running the tests would bring its jobserver.
if ! env -u MAKEFLAGS -u MFLAGS $MAKE -C "$abs_top_builddir" install DESTDIR="$stage" \
        > "$stage.log" 2>&1; then
    echo "Bail out! make install DESTDIR=$stage failed"
    sed 's/^/# /' "$stage.log" | tail -n 30
    rm -f "$stage.log"
    exit 1
fi
rm -f "$stage.log"
for f in "$bindir/kernc" "$includedir/kernrt.h" "$libdir/pkgconfig/kernrt.pc" \
         "$libdir/cmake/kernc/kerncConfig.cmake" \
         "$libdir/cmake/kernc/kerncConfigVersion.cmake" "$datadir/aclocal/kernc.m4" \
         "${mandir:-$datadir/man}/man1/kernc.1" "${mandir:-$datadir/man}/man3/kernrt.3"; do
    if [ ! -f "$stage$f" ]; then
        echo "Bail out! make install did not install $f"
        exit 1
    fi
done
DESTDIR=$stage $SHELL "$srcdir/tests/downstream.sh"
