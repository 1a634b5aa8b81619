#!/bin/sh
# tests/names.sh - every troublesome name in every role compiles and runs
# (issue 13, items 2-5; mangle.c).  A generated test: names_vars.kern uses
# each name of the list below as a device function, a parameter and a local
# (and calls the device function); names_kern.kern uses each as a kernel,
# with the collision pairs (int / int_, sqrt / sqrt_, a specialisation
# f__f8 beside a user's f__f8, an overload suffix beside a kernel of that
# name).  Both files are translated for both targets; the C is compiled
# with cc -Wall -Wextra -Werror, linked with a driver that includes both
# headers and runs every kernel on the CPU backend through the module
# tables; the CUDA is compiled with nvcc -Werror all-warnings where nvcc is.
#
# Environment: KERNC, CC, NVCC, NVCCFLAGS, KRT_INCLUDE, KRT_LIBS.

KERNC=${KERNC:-./kernc}
CC=${CC:-cc}
KRT_INCLUDE=${KRT_INCLUDE:-runtime}
KRT_LIBS=${KRT_LIBS:--Lruntime/.libs -lkernrt -lm}
case $KERNC in /*) ;; */*) KERNC=$(pwd)/$KERNC ;; esac
case $KRT_INCLUDE in /*) ;; *) KRT_INCLUDE=$(pwd)/$KRT_INCLUDE ;; esac

work=$(mktemp -d "${TMPDIR:-/tmp}/kernc-names-test.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT INT TERM
cd "$work" || exit 99

# Macros of the included headers, C library names, C11 keywords, CUDA names,
# kernc's own symbols beside a kernel k, kernc's temporaries and labels,
# C/C++ keywords and the collision pairs.
NAMES="EOF BUFSIZ INT32_MAX SIZE_MAX UINT64_MAX FP_NAN FP_ZERO M_PI_2 M_SQRT2
MAXFLOAT NULL stdout errno CHAR_BIT
remove puts strcpy y0 y1 gamma fopen index stdin time printf malloc free exit
main abort signal
_Bool _Atomic _Generic _Noreturn _x _ __x
__global__ __device__ __shared__ __host__ clock rand sinpi uint3 dim3
threadIdx warpSize float4 make_float4 atomicAdd norm
k__kernel k__cpu k__params k__launch krt_tmp0 krt_tmp krt_skip1 krt_skip krt_b krt_x
KRT_X cfg
int int_ sqrt sqrt_ sqrtf double_ char short long unsigned void auto
register restrict inline static extern typedef struct union enum switch
case default goto do sizeof volatile const signed this new delete template
typename namespace operator private public friend virtual explicit
thread_local static_assert alignof decltype nullptr bool true false
unix linux"

{
    echo "from numba import cuda"
    echo
    i=0
    for x in $NAMES; do
        cat <<K

@cuda.jit(device=True)
def $x(v):
    return v + 1


@cuda.jit("void(int32[:], int32)")
def p_$i(a, $x):
    a[0] = $x


@cuda.jit("void(int32[:])")
def l_$i(a):
    $x = a[1] + 1
    a[0] = $x


@cuda.jit("void(int32[:])")
def d_$i(a):
    a[0] = $x(a[1])
K
        i=$((i + 1))
    done
    # a specialisation f__f8 beside a user's f__f8
    cat <<'K'


@cuda.jit(device=True)
def f(v):
    return v + 1


@cuda.jit(device=True)
def f__f8(v):
    return v + 1


@cuda.jit("void(int32[:])")
def spec_0(a):
    a[0] = f(a[1]) + f__f8(1) - 2
    if f(2.5) != 3.5:
        a[0] = 0
K
} > names_vars.kern

{
    echo "from numba import cuda"
    for x in $NAMES f__f8 ov__a1i8; do
        cat <<K


@cuda.jit("void(int32[:])")
def $x(a):
    a[0] = a[1] + 1
K
    done
    cat <<'K'


@cuda.jit(["void(int32[:])", "void(int64[:])"])
def ov(a):
    a[0] = a[1] + 1
K
} > names_kern.kern

# The driver: every kernel of both modules, a = [0, 41]: a[0] becomes 42
# (p_*: the scalar 42 passed).
cat > driver.c <<'C'
#include <stdio.h>
#include <string.h>
#include <kernrt.h>
#include "names_vars.kern.h"
#include "names_kern.kern.h"

static int run(const krt_module *m)
{
    int bad = 0;
    for (int k = 0; k < m->nkernels; k++) {
        const krt_kernel *K = m->kernels[k];
        int wide = K->params[0].dtype == KRT_INT64;
        int32_t h[2] = {0, 41};
        int64_t h8[2] = {0, 41};
        krt_array a;
        krt_view v;
        int32_t s = 42;
        void *argv[2] = {&v, &s};
        if (krt_to_device(&a, wide ? (void *)h8 : (void *)h, wide ? KRT_INT64 : KRT_INT32, 1,
                          KRT_SHAPE(2), NULL) ||
            krt_check_array(K, 0, &a, &v) || krt_launch(K, krt_grid1(1, 1), argv) ||
            krt_copy_to_host(wide ? (void *)h8 : (void *)h, a, NULL)) {
            printf("# %s: %s\n", K->name, krt_last_error());
            bad++;
        } else if ((wide ? h8[0] : h[0]) != 42) {
            printf("# %s: a[0] = %lld, not 42\n", K->name, (long long)(wide ? h8[0] : h[0]));
            bad++;
        }
        krt_free(a);
    }
    printf("# %s: %d kernels, %d wrong\n", m->file, m->nkernels, bad);
    return bad;
}

int main(void)
{
    /* the header's launchers, by the C names of the renamed kernels too */
    int (*l)(krt_launch_cfg, krt_array) = k__kernel_;
    int (*i1)(krt_launch_cfg, krt_array) = int_;
    int (*i2)(krt_launch_cfg, krt_array) = int__;
    int (*ok)(krt_launch_cfg, krt_array) = spec_0;
    (void)l; (void)i1; (void)i2; (void)ok;
    return run(&krt_module_names_vars) + run(&krt_module_names_kern) != 0;
}
C

echo "1..8"
n=0
failed=0
result() { # result NAME STATUS
    n=$((n + 1))
    if [ "$2" -eq 0 ]; then echo "ok $n - $1"; else failed=$((failed + 1)); echo "not ok $n - $1"; sed 's/^/# /' err | head -20; fi
}

st=0
for f in names_vars names_kern; do
    timeout 60 "$KERNC" $f.kern -o $f.cu 2>err || st=1
    timeout 60 "$KERNC" --target c $f.kern -o $f.c 2>>err || st=1
done
grep ": error: \|: warning: " err | grep -v "is launched from C as" > err2 && { st=1; mv err2 err; }
result "every name translates for both targets" $st

nk=$(grep -c "is launched from C as" err)
[ "$nk" -gt 40 ]; result "kernels with reserved names get a warning naming the launcher ($nk)" $?

st=0
$CC -std=c11 -Wall -Wextra -Werror -O0 -I"$KRT_INCLUDE" -c names_vars.c -o v.o 2>err &&
$CC -std=c11 -Wall -Wextra -Werror -O0 -I"$KRT_INCLUDE" -c names_kern.c -o k.o 2>>err &&
$CC -std=c11 -Wall -Wextra -Werror -O0 -I"$KRT_INCLUDE" -c driver.c -o d.o 2>>err || st=1
result "cc -Wall -Wextra -Werror compiles both files and a driver using both headers" $st

st=0
if [ $n -eq 3 ] && [ -f d.o ]; then
    $CC d.o v.o k.o -o driver $KRT_LIBS -lpthread 2>err && KRT_BACKEND=cpu ./driver >out 2>err || st=1
    cat out
else
    st=1
fi
result "every kernel runs on the CPU backend with the right result" $st

if command -v c++ >/dev/null 2>&1; then
    printf '#include "names_vars.kern.h"\n#include "names_kern.kern.h"\nint main() { return 0; }\n' > hdr.cc
    c++ -Wall -Wextra -Werror -I"$KRT_INCLUDE" -fsyntax-only hdr.cc 2>err
    result "the headers compile as C++" $?
else
    n=$((n + 1)); echo "ok $n - the headers compile as C++ # SKIP no c++"
fi

if [ -n "$NVCC" ] && command -v "$NVCC" >/dev/null 2>&1; then
    st=0
    for f in names_vars names_kern; do
        "$NVCC" $NVCCFLAGS -arch=sm_90 -Werror all-warnings -I"$KRT_INCLUDE" -c $f.cu -o $f.cu.o 2>>err || st=1
    done
    result "nvcc -Werror all-warnings compiles both .cu files" $st
else
    n=$((n + 1)); echo "ok $n - nvcc compiles both .cu files # SKIP no nvcc"
fi
# File names (item 6): my-kern.kern and my_kern.kern have different module
# symbols and header guards (both headers in one file, both objects in one
# program); a name starting with a digit, and names with a space, a quote,
# a backslash, a newline or a "*" give code that compiles.
mk() { printf 'from numba import cuda\n\n\n@cuda.jit("void(int32[:])")\ndef %s(a):\n    a[0] = 1\n' "$2" > "$1"; }
mk my-kern.kern k_dash
mk my_kern.kern k_under
mk 1st.kern k_digit
st=0
: > err
for f in my-kern my_kern 1st; do
    "$KERNC" --target c $f.kern -o $f.c 2>>err &&
    $CC -std=c11 -Wall -Wextra -Werror -I"$KRT_INCLUDE" -c $f.c -o $f.o 2>>err || st=1
done
printf '#include "my-kern.kern.h"\n#include "my_kern.kern.h"\n#include "1st.kern.h"\nint main(void) { return (krt_module_my_kern.nkernels + k_dash(krt_grid1(0, 0), (krt_array){0}) * 0 + k_under(krt_grid1(0, 0), (krt_array){0}) * 0) != 1; }\n' > two.c
[ $st -eq 0 ] && $CC -std=c11 -Wall -Wextra -Werror -I"$KRT_INCLUDE" two.c my-kern.o my_kern.o 1st.o -o two $KRT_LIBS -lpthread 2>>err || st=1
result "my-kern.kern and my_kern.kern: two modules, two guards, one program; 1st.kern.h compiles" $st

st=0
: > err
for f in 'sp ace' 'quo"te' 'back\slash' 'new
line' 'st*r'; do
    mk "$f.kern" k
    "$KERNC" --target c "$f.kern" -o odd.c 2>>err &&
    $CC -std=c11 -Wall -Wextra -Werror -I"$KRT_INCLUDE" -c odd.c -o odd.o 2>>err || { st=1; echo "# $f" >> err; }
    grep -c '^#line' odd.c > /dev/null || st=1
done
result "file names with a space, quote, backslash, newline or * give C that compiles" $st
[ $failed -eq 0 ]
