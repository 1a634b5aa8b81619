#!/bin/sh
# tests/modules.sh - TAP tests of several .kern modules in one program
# (issue 13, item 6): a/kernels.kern beside b/kernels.kern (one base name:
# their module tables and header guards must differ), and a/same.kern
# beside b/same.kern (the same kernel and ufunc names), told apart with
# kernc --module-name, which puts NAME_ in front of every launcher and
# global symbol.  tests/modules/main.c links all four and runs them on the
# CPU backend; with NVCC set, the CUDA outputs of the two same-named
# modules are compiled and linked into the same program too.
#
# Environment: KERNC, srcdir, CC, NVCC (optional), KRT_INCLUDE, KRT_LIBS.

srcdir=${srcdir:-.}
CC=${CC:-cc}
KERNC=${KERNC:-./kernc}
KRT_INCLUDE=${KRT_INCLUDE:-$srcdir/runtime}
KRT_LIBS=${KRT_LIBS:-"-L$srcdir/runtime/.libs -lkernrt -lm"}
KRT_BACKEND=cpu
export KRT_BACKEND
d=$srcdir/tests/modules

work=$(mktemp -d "${TMPDIR:-/tmp}/kernc-modules.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT INT TERM

echo "1..18"
n=0
pass() { n=$((n + 1)); echo "ok $n - $1"; }
fail() { n=$((n + 1)); echo "not ok $n - $1"; sed 's/^/# /' "$work/err" | head -20; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
check() { name=$1; shift; if "$@" > "$work/out" 2> "$work/err"; then pass "$name"; else fail "$name"; fi; }

# kern OUT SRC [OPTIONS]: the C code and header of SRC as $work/OUT.kern.{c,h}
kern() {
    out=$1 src=$2; shift 2
    "$KERNC" --target c "$@" -o "$work/$out.kern.c" --header "$work/$out.kern.h" "$d/$src"
}
check "a/kernels.kern" kern a_kernels a/kernels.kern
check "b/kernels.kern" kern b_kernels b/kernels.kern
check "a/same.kern --module-name ma" kern ma a/same.kern --module-name ma
check "b/same.kern --module-name mb" kern mb b/same.kern --module-name mb

sym() { grep -o "krt_module_[A-Za-z0-9_]* =" "$work/$1.kern.c" | sed 's/ =//'; }
guard() { sed -n 's/^#ifndef \([A-Z0-9_]*_KERN_H_\)$/\1/p' "$work/$1.kern.h"; }
a=$(sym a_kernels) b=$(sym b_kernels)
if [ -n "$a" ] && [ -n "$b" ] && [ "$a" != "$b" ]; then
    pass "one base name, two module tables ($a, $b)"
else echo "a: $a, b: $b" > "$work/err"; fail "one base name, two module tables"; fi
if [ -n "$(guard a_kernels)" ] && [ "$(guard a_kernels)" != "$(guard b_kernels)" ]; then
    pass "one base name, two header guards"
else guard a_kernels > "$work/err"; fail "one base name, two header guards"; fi
if [ "$(sym ma)" = krt_module_ma ] && grep -q '^int ma_work__launch(' "$work/ma.kern.h" &&
   grep -q '^static inline int ma_work(' "$work/ma.kern.h" &&
   grep -q '^int ma_op_f4(krt_array v, krt_array out, krt_stream \*stream);' "$work/ma.kern.h" &&
   grep -q '^#ifndef MA_KERN_H_' "$work/ma.kern.h"; then
    pass "--module-name ma: krt_module_ma, ma_work, ma_op_f4, MA_KERN_H_"
else fail "--module-name ma: krt_module_ma, ma_work, ma_op_f4, MA_KERN_H_"; fi
# every global symbol of the two same-named modules is its own
for m in ma mb; do
    $CC -c -I"$KRT_INCLUDE" -o "$work/$m.o" "$work/$m.kern.c" 2> "$work/err"
done
# (less what a sanitizer adds: ASan's __odr_asan.* markers)
nm -g --defined-only "$work/ma.o" | awk '{print $3}' | grep -v '^__odr_asan\.\|^__asan\|^__tsan\|^__ubsan' |
    sort > "$work/ma.syms"
nm -g --defined-only "$work/mb.o" | awk '{print $3}' | grep -v '^__odr_asan\.\|^__asan\|^__tsan\|^__ubsan' |
    sort > "$work/mb.syms"
if [ -s "$work/ma.syms" ] && [ -z "$(comm -12 "$work/ma.syms" "$work/mb.syms")" ] &&
   ! grep -v '^ma_\|^krt_module_ma$\|^krt_ufuncs_ma$' "$work/ma.syms" > "$work/err"; then
    pass "--module-name: every global symbol has the prefix, none shared"
else comm -12 "$work/ma.syms" "$work/mb.syms" >> "$work/err"; fail "--module-name: every global symbol has the prefix, none shared"; fi

# the program: four modules, one C program, CPU backend
# shellcheck disable=SC2086
check "four modules link into one C program (cc -Wall -Wextra -Werror)" \
    $CC -std=c11 -Wall -Wextra -Werror -I"$KRT_INCLUDE" -I"$work" -o "$work/main" "$d/main.c" \
    "$work/a_kernels.kern.c" "$work/b_kernels.kern.c" "$work/ma.kern.c" "$work/mb.kern.c" $KRT_LIBS
"$work/main" > "$work/out" 2> "$work/err"
st=$?
if [ "$st" -eq 0 ] && [ "$(grep -c '^ok' "$work/out")" -eq 9 ]; then
    pass "each module runs its own kernels and ufuncs"
else cat "$work/out" >> "$work/err"; fail "each module runs its own kernels and ufuncs"; fi
# without --module-name the same kernel names collide, as the option says
kern a_same a/same.kern && kern b_same b/same.kern
# shellcheck disable=SC2086
if ! $CC -I"$KRT_INCLUDE" -o "$work/clash" "$work/a_same.kern.c" "$work/b_same.kern.c" \
       -x c /dev/null $KRT_LIBS > /dev/null 2> "$work/err" &&
   grep -q 'work__launch' "$work/err"; then
    pass "without --module-name, two kernels 'work' collide at link time"
else fail "without --module-name, two kernels 'work' collide at link time"; fi

# refusals
"$KERNC" --target c --module-name 9x -o "$work/x.c" --header "$work/x.h" "$d/a/same.kern" 2> "$work/err"
if [ $? -eq 1 ] && grep -q "module-name wants an identifier" "$work/err" && [ ! -e "$work/x.c" ]; then
    pass "--module-name 9x is refused"
else fail "--module-name 9x is refused"; fi
"$KERNC" --target c --module-name krt_x -o "$work/x.c" --header "$work/x.h" "$d/a/same.kern" 2> "$work/err"
if [ $? -eq 1 ] && grep -q "module-name wants an identifier" "$work/err"; then
    pass "--module-name krt_x is refused"
else fail "--module-name krt_x is refused"; fi
if "$KERNC" --help 2>&1 | grep -q -- '--module-name NAME' &&
   grep -qF -- '\-\-module\-name' "$srcdir/doc/kernc.1" &&
   grep -q -- '--module-name' "$srcdir/README.md"; then
    pass "--module-name in --help, kernc(1) and README"
else echo "undocumented" > "$work/err"; fail "--module-name in --help, kernc(1) and README"; fi

# kernc run finds the module table by its new name
check "kernc run: the module table is found" \
    "$KERNC" run "$d/a/kernels.kern" scale --block 4 'arange(4)' --quiet
check "kernc run: the ufunc table is found" \
    "$KERNC" run "$d/a/same.kern" op 'arange(4, float32)' 'zeros(4, float32)' --quiet

# CUDA: both same-named modules' .cu in one program
if [ -n "$NVCC" ] && command -v "$NVCC" > /dev/null 2>&1; then
    ok=1
    for m in a b; do
        "$KERNC" --module-name m$m -o "$work/m$m.cu" --header "$work/m$m.cu.h" "$d/$m/same.kern" 2> "$work/err" &&
            "$NVCC" -arch=sm_90 -Werror all-warnings -I"$KRT_INCLUDE" -c -o "$work/m${m}_cu.o" "$work/m$m.cu" \
                2>> "$work/err" || ok=0
    done
    if [ $ok -eq 1 ] && grep -q 'KRT_EXTERN_C __global__ void ma_work(' "$work/ma.cu"; then
        pass "nvcc -Werror all-warnings: extern \"C\" kernels ma_work, mb_work"
    else fail "nvcc -Werror all-warnings: extern \"C\" kernels ma_work, mb_work"; fi
    # shellcheck disable=SC2086
    if [ $ok -eq 1 ] && "$NVCC" -cudart shared -I"$KRT_INCLUDE" -I"$work" -o "$work/main_cu" \
           "$d/main.c" "$work/a_kernels.kern.c" "$work/b_kernels.kern.c" \
           "$work/ma_cu.o" "$work/mb_cu.o" $KRT_LIBS 2> "$work/err" &&
       "$work/main_cu" > "$work/out" 2>> "$work/err" && [ "$(grep -c '^ok' "$work/out")" -eq 9 ]; then
        pass "the two CUDA modules link into one program and run (CPU backend)"
    else fail "the two CUDA modules link into one program and run (CPU backend)"; fi
else
    skip "nvcc -Werror all-warnings: extern \"C\" kernels ma_work, mb_work" "no nvcc"
    skip "the two CUDA modules link into one program and run (CPU backend)" "no nvcc"
fi
[ "$n" -eq 18 ] || echo "# ran $n tests, planned 18"
exit 0
