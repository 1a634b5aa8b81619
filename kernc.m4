# kernc.m4 - Autoconf support for projects whose kernels are .kern files
# translated by kernc and run by libkernrt.       -*- Autoconf -*-
#
# Installed into $(datadir)/aclocal by kernc's `make install'; aclocal
# finds it there when that is its own directory, else tell it where:
# ACLOCAL_PATH=PREFIX/share/aclocal autoreconf -i, or aclocal -I
# PREFIX/share/aclocal (or copy it into your project's m4/ directory).
#
# serial 2
#
# KERNC_PROG([MINIMUM-VERSION], [ACTION-IF-FOUND], [ACTION-IF-NOT-FOUND])
# AM_PATH_KERNC(...) is the same macro under the traditional name.
#
# Finds libkernrt with pkg-config (module "kernrt") and the translator that
# belongs to it (the pkg-config variable "kernc"), or else `kernc' on PATH,
# with the runtime beside it (BINDIR/../include, BINDIR/../lib).  The user
# may preset KERNC (./configure KERNC=/path/to/kernc).  AC_SUBSTs:
#
#   KERNC          the translator
#   KERNRT_CFLAGS  compiler flags for <kernrt.h> and the generated code
#   KERNRT_LIBS    linker flags for libkernrt (and libm)
#   KERNC_NVCC     the nvcc libkernrt was configured with, if any
#
# Without ACTION-IF-NOT-FOUND, a missing kernc is an error.
#
# Makefile.am: the translation rules.  `kernc --target c' writes C for the
# CPU backend, the default target writes CUDA C (which also contains the CPU
# code); both write the launchers' header NAME.kern.h.  Automake accepts
# these double-suffix rules and chains .kern -> .kern.c -> .o through its own
# .c rule; list the generated .kern.c as a nodist source and the header as a
# built source (the header is made by the .kern.c rule, hence the line that
# says so):
#
#   SUFFIXES = .kern .kern.c .kern.cu
#   .kern.kern.c:
#   	$(KERNC) --target c -o $@ --header $*.kern.h $<
#   .kern.kern.cu:
#   	$(KERNC) -o $@ --header $*.kern.h $<
#
#   bin_PROGRAMS = foo
#   foo_SOURCES = main.c                  # includes "foo.kern.h"
#   nodist_foo_SOURCES = foo.kern.c
#   foo_CFLAGS = -O2 $(KERNRT_CFLAGS)
#   foo_LDADD = $(KERNRT_LIBS)
#   foo.kern.h: foo.kern.c
#   BUILT_SOURCES = foo.kern.h
#   CLEANFILES = foo.kern.c foo.kern.h
#   EXTRA_DIST = foo.kern
#
# In a VPATH build the header lands in the build directory: add
# -I$(builddir) (Automake's default DEFAULT_INCLUDES has it).  If both
# rules run for one .kern file, order them (foo.kern.cu: foo.kern.c) so
# that two kernc processes never write foo.kern.h at the same time.
#
# For the GPU, compile foo.kern.cu with nvcc and link with the shared CUDA
# runtime, which libkernrt uses too (the kernels must be registered with the
# same copy of libcudart):
#
#   $(KERNC_NVCC) -O2 $(KERNRT_CFLAGS) -c foo.kern.cu -o foo.kern.o
#   $(KERNC_NVCC) -cudart shared -o foo main.o foo.kern.o $(KERNRT_LIBS)

AC_DEFUN([KERNC_PROG],
[AC_REQUIRE([PKG_PROG_PKG_CONFIG])dnl
AC_ARG_VAR([KERNC], [the kernc translator (.kern -> CUDA C / C)])dnl
AC_ARG_VAR([KERNRT_CFLAGS], [C compiler flags for libkernrt])dnl
AC_ARG_VAR([KERNRT_LIBS], [linker flags for libkernrt])dnl
kernc_found=no
kernc_module="kernrt m4_ifnblank([$1], [>= $1])"
AS_IF([test -n "$PKG_CONFIG"],
  [PKG_CHECK_MODULES([KERNRT], [$kernc_module], [kernc_found=yes], [:])])
AS_IF([test "$kernc_found" = yes],
  [PKG_CHECK_VAR([KERNC], [kernrt], [kernc])
   PKG_CHECK_VAR([KERNC_NVCC], [kernrt], [nvcc])
   AS_IF([test -n "$KERNC" && test ! -x "$KERNC"],
     [AC_MSG_WARN([kernrt.pc names $KERNC, which is not executable])
      KERNC=])])
dnl No pkg-config data: the translator on PATH, the runtime next to it.
AS_IF([test -z "$KERNC"],
  [AC_PATH_PROG([KERNC], [kernc])
   AS_IF([test -n "$KERNC" && test "$kernc_found" = no],
     [kernc_prefix=`AS_DIRNAME(["$KERNC"])`
      kernc_prefix=`AS_DIRNAME(["$kernc_prefix"])`
      AS_IF([test -f "$kernc_prefix/include/kernrt.h"],
        [: "${KERNRT_CFLAGS=-I$kernc_prefix/include}"
         : "${KERNRT_LIBS=-L$kernc_prefix/lib -lkernrt -lm}"
         kernc_found=yes])])])
AS_IF([test -n "$KERNC"], [AC_MSG_CHECKING([whether $KERNC runs])
   AS_IF([$KERNC --version >&AS_MESSAGE_LOG_FD 2>&1], [AC_MSG_RESULT([yes])],
     [AC_MSG_RESULT([no]); KERNC=])])
AC_SUBST([KERNC])dnl
AC_SUBST([KERNC_NVCC])dnl
AC_SUBST([KERNRT_CFLAGS])dnl
AC_SUBST([KERNRT_LIBS])dnl
AS_IF([test -n "$KERNC" && test "$kernc_found" = yes],
  [m4_default([$2], [:])],
  [m4_default([$3],
     [AC_MSG_ERROR([kernc and libkernrt]m4_ifnblank([$1], [ >= $1])[ not found: install kernc, or set PKG_CONFIG_PATH to the directory of kernrt.pc, or KERNC, KERNRT_CFLAGS and KERNRT_LIBS])])])
])

AC_DEFUN([AM_PATH_KERNC], [KERNC_PROG($@)])
