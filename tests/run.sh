#!/bin/sh
# tests/run.sh - TAP tests of `kernc run` (SPEC section 4): kernels launched
# from the command line with .npy inputs and literal scalars, results read
# back from --outdir, and every way a run can be refused: each refusal must
# print a clear message, exit 1 (or 2 for usage errors), launch nothing,
# write no argI.npy, leave the input files untouched and leave no temporary
# directory behind.
#
# Environment: KERNC (the kernc binary), srcdir (default .), CC (default cc),
# KERNC_INCLUDEDIR (where kernrt.h is), KRT_BACKEND (the suite uses cpu).
# The .npy inputs are made by tests/run/npytool.c, compiled here: the suite
# needs no Python.

srcdir=${srcdir:-.}
CC=${CC:-cc}
KERNC=${KERNC:-./kernc}
KRT_BACKEND=${KRT_BACKEND:-cpu}
export KRT_BACKEND

work=$(mktemp -d "${TMPDIR:-/tmp}/kernc-run-test.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT INT TERM
mkdir "$work/tmp"
kern=$srcdir/tests/run/kernels.kern

echo "1..101"
n=0
failed=0

pass() { n=$((n + 1)); echo "ok $n - $1"; }
fail() {
    n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"
    [ -s "$work/err" ] && sed 's/^/# /' "$work/err" | head -20
}
check() { # check NAME COMMAND...: one test from a command's status
    name=$1; shift
    if "$@" > "$work/out" 2> "$work/err"; then pass "$name"; else fail "$name"; fi
}

if ! $CC -o "$work/npytool" "$srcdir/tests/run/npytool.c" -lm 2> "$work/err"; then
    echo "Bail out! cannot compile tests/run/npytool.c"
    cat "$work/err" >&2
    exit 1
fi
npytool=$work/npytool

# kernc run with a private TMPDIR (to find leftovers); stderr in $work/err.
# KRUN_CC, when set, replaces the C compiler for one test.
krun() {
    CC=${KRUN_CC:-$CC} TMPDIR=$work/tmp "$KERNC" run "$@" > "$work/out" 2> "$work/err"
}

# no_leftovers: the temporary build directory is gone.
no_leftovers() { [ -z "$(ls -A "$work/tmp")" ]; }

# refused NAME STATUS MESSAGE ARGS...: kernc run ARGS --outdir $work/refused
# exits with STATUS, says MESSAGE on stderr, writes no output, leaves no
# temporary directory.
refused() {
    name=$1 want=$2 msg=$3; shift 3
    rm -rf "$work/refused"
    krun "$@" --outdir "$work/refused"
    status=$?
    if [ "$status" -eq "$want" ] && grep -qF -- "$msg" "$work/err" &&
       [ ! -e "$work/refused" ] && no_leftovers; then
        pass "$name"
    else
        echo "# exit status $status (wanted $want); wanted message: $msg"
        fail "$name"
    fi
}

cd "$work" || exit 99

# ---- inputs ----
$npytool make x.npy f4 1000 range
$npytool make y.npy f4 1000 const:1
$npytool make y2.npy f4 1000 const:1 --version 2
$npytool make a.npy f8 5x7 range
$npytool make o.npy f8 5x7 const:0
$npytool make io.npy i8 5 const:0
$npytool make fo.npy f8 2 const:0
$npytool make uo.npy u8 3 const:0
$npytool make part.npy f4 4 const:0
$npytool make xi.npy i4 1000 range
$npytool make x2d.npy f4 10x100 range
$npytool make xf.npy f4 10x100 range --fortran
head -c 1000 x.npy > trunc.npy
printf 'PK\003\004 not a numpy file' > magic.npy
printf '\223NUMPY\001\000\040\000{"descr": <f4, "shape": (3,)}  \n' > header.npy
# A bool array as NumPy may hold it (any nonzero byte is True), and a shape
# whose nonzero dimensions overflow (NumPy: "array is too big").
printf '\223NUMPY\001\000v\000%-117s\n\002\000\377\001' \
    "{'descr': '|b1', 'fortran_order': False, 'shape': (4,), }" > bools.npy
$npytool make bo.npy b1 4 const:0
printf '\223NUMPY\001\000v\000%-117s\n' \
    "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 9223372036854775807), }" > huge.npy
inputs="x.npy y.npy y2.npy a.npy o.npy io.npy fo.npy uo.npy part.npy xi.npy x2d.npy xf.npy trunc.npy magic.npy header.npy bools.npy huge.npy"
cksum $inputs > inputs.sum

# ---- runs that work ----
krun "$kern" saxpy x.npy y.npy 2.5 --grid 4 --block 256 --outdir out1
check "saxpy runs (exit 0)" test $? -eq 0
check "saxpy: y = 2.5 * x + 1 element-wise" $npytool check out1/arg1.npy f4 1000 affine:2.5,1
check "saxpy: x written back unchanged, byte for byte" cmp x.npy out1/arg0.npy
check "saxpy: no file for the scalar parameter" test ! -e out1/arg2.npy
check "saxpy: no temporary directory left" no_leftovers

krun "$kern" saxpy x.npy y2.npy -0.5 --grid=2 --block=512 --outdir out2
check "saxpy with a version 2.0 input and --grid=/--block= spellings" \
    $npytool check out2/arg1.npy f4 1000 affine:-0.5,1

krun "$kern" saxpy x.npy y.npy 2 --grid 1 --block 256
check "without --outdir nothing is written" test $? -eq 0 -a ! -e arg1.npy -a ! -e out/arg1.npy

# out[i, j] = 2 * (7i + j) + 100i + j
expect=$(awk 'BEGIN { s = ""; for (i = 0; i < 5; i++) for (j = 0; j < 7; j++)
                      s = s (s == "" ? "" : ",") (114 * i + 3 * j); print s }')
krun "$kern" add2d a.npy o.npy --grid 2,2 --block 4,4 --outdir out3
check "2-D kernel with a 2-D grid" $npytool check out3/arg1.npy f8 5x7 "list:$expect"

# issue 9: Fortran order.  f23.npy holds range in F order: a[i, j] = i + 2j
# (C order 0,2,4,1,3,5); kernc run reads it in C order, a [:, ::1]
# parameter gets it C-contiguous, a [::1, :] one Fortran-contiguous (its
# strides (4, 8): out = a + 1 + 2000), and the file comes back in C order.
$npytool make f23.npy i4 2x3 range --fortran
$npytool make c23.npy i4 2x3 range
$npytool make o23.npy i4 2x3 const:0
$npytool make f23d.npy f8 2x3 range --fortran
$npytool make o23d.npy f8 2x3 const:0
krun "$kern" add2d f23d.npy o23d.npy --grid 1,1 --block 2,3 --outdir outf0
check "a fortran_order .npy is read (its logical values) for a [:, ::1] parameter" \
    $npytool check outf0/arg1.npy f8 2x3 list:0,5,10,102,107,112
fkern="$srcdir/tests/run/fortran.kern"
krun "$fkern" fcopy f23.npy o23.npy --grid 1,1 --block 2,3 --outdir outf1
check "a [::1, :] parameter from a fortran_order file: Fortran strides in the kernel" \
    $npytool check outf1/arg1.npy i4 2x3 list:2001,2003,2005,2002,2004,2006
check "the [::1, :] argument comes back written, in C order" \
    $npytool check outf1/arg0.npy i4 2x3 list:1,3,5,2,4,6
krun "$fkern" fcopy c23.npy o23.npy --grid 1,1 --block 2,3 --outdir outf2
check "a [::1, :] parameter from a C-order file is given the Fortran order" \
    $npytool check outf2/arg1.npy i4 2x3 list:2001,2002,2003,2004,2005,2006

krun "$kern" scalars io.npy fo.npy uo.npy -3 0x10 2.5 -1e-3 true 255 -128 \
    18446744073709551615 -0b101 0xffffffff --outdir out4
check "scalar literals: int32 -3, int64 0x10, bool true, int8 -128, int16 -0b101" \
    $npytool check out4/arg0.npy i8 5 list:-3,16,1,-128,-5
check "scalar literals: float32 2.5, float64 -1e-3" \
    $npytool check out4/arg1.npy f8 2 list:2.5,-0.001 0
check "scalar literals: uint8 255, uint64 2^64-1, uint32 0xffffffff" \
    $npytool check out4/arg2.npy u8 3 list:255,18446744073709551615,4294967295

krun "$kern" scalars io.npy fo.npy uo.npy 2147483647 -9223372036854775808 1e38 \
    inf False 0 127 0 32767 0 --outdir out5
check "scalar literals at the limits; False" \
    $npytool check out5/arg0.npy i8 5 list:2147483647,-9223372036854775808,0,127,32767
check "scalar literals: float32 1e38, float64 inf" \
    $npytool check out5/arg1.npy f8 2 list:1e38,inf 1e-7

krun "$kern" blocksum x.npy part.npy --grid 4 --block 256 --shared 1024 --outdir out6
check "dynamic shared memory from --shared" \
    $npytool check out6/arg1.npy f4 4 list:32640,98176,163712,204972

krun "$kern" negate bools.npy bo.npy --block 4 --outdir out7
check "bool array bytes other than 0 and 1 read as True (not x is False)" \
    $npytool check out7/arg1.npy b1 4 list:0,1,0,0
check "bool array written back with NumPy's canonical True" \
    $npytool check out7/arg0.npy b1 4 list:1,0,1,1

$npytool make fr.npy i8 7 const:0
$npytool make ff.npy f8 3 const:0
$npytool make fu.npy u8 2 const:0
krun "$kern" folded fr.npy ff.npy fu.npy --outdir out8
check "literal-only expressions folded exactly, as CPython does (int64 results)" \
    $npytool check out8/arg0.npy i8 7 \
    list:4611686018427387904,3074457345618258602,2305843009213693952,808,2305843009213693952,-1,0
check "2**64 - 1 and module-level (1 << 64) - 1 are uint64, as numba types them" \
    $npytool check out8/arg2.npy u8 2 list:18446744073709551615,18446744073709551615
check "uint64 module constants // 2 typed as numba types literals (int64)" \
    $npytool check out8/arg1.npy f8 3 \
    list:-1,-4611686018427387904,18446744073709551615 0

check "--help prints the usage and exits 0" "$KERNC" run --help
check "--help mentions every option" sh -c \
    "'$KERNC' run --help | grep -q -- --grid && '$KERNC' run --help | grep -q -- --outdir"

# ---- refusals ----
refused "too few arguments" 2 \
    "kernel 'saxpy' takes 3 arguments (x: float32[:], y: float32[:], a: float32), 2 given" \
    "$kern" saxpy x.npy y.npy
refused "too many arguments" 2 "4 given" "$kern" saxpy x.npy y.npy 1 2
refused "wrong dtype" 1 "argument 0 (x: float32[:]): xi.npy holds int32 data, expected float32" \
    "$kern" saxpy xi.npy y.npy 1
refused "wrong ndim" 1 "argument 1 (y: float32[:]): x2d.npy has 2 dimensions, expected 1" \
    "$kern" saxpy x.npy x2d.npy 1
refused "wrong ndim for a 2-D contiguous parameter" 1 \
    "argument 0 (a: float64[:, ::1]): fo.npy has 1 dimension, expected 2" \
    "$kern" add2d fo.npy o.npy
refused "wrong dtype for a 2-D parameter" 1 \
    "argument 0 (a: float64[:, ::1]): x2d.npy holds float32 data, expected float64" \
    "$kern" add2d x2d.npy o.npy
refused "missing file" 1 "nope.npy: No such file or directory" "$kern" saxpy nope.npy y.npy 1
refused "a literal where an array goes" 1 "is an array: expected a .npy file, got '2.5'" \
    "$kern" saxpy 2.5 y.npy 1
refused "truncated data" 1 "truncated data: the header promises 4000 bytes" \
    "$kern" saxpy trunc.npy y.npy 1
refused "bad magic" 1 "magic.npy: not a .npy file (bad magic)" "$kern" saxpy magic.npy y.npy 1
refused "bad header" 1 "header.npy: bad header: expected a string at offset 10" \
    "$kern" saxpy header.npy y.npy 1
refused "a shape whose nonzero dimensions overflow, even with a zero one" 1 \
    "huge.npy: bad header: the shape is too large" "$kern" add2d huge.npy o.npy
refused "unknown kernel" 1 "has no kernel 'sax'; its kernels: saxpy, add2d, scalars, blocksum" \
    "$kern" sax x.npy y.npy 1
refused "float literal for an int parameter" 2 \
    "argument 3 (a: int32): expected an integer, got the float literal '2.5'" \
    "$kern" scalars io.npy fo.npy uo.npy 2.5 0 0 0 true 0 0 0 0 0
refused "int8 out of range" 2 "argument 9 (g: int8): 128 is out of range for int8 [-128, 127]" \
    "$kern" scalars io.npy fo.npy uo.npy 0 0 0 0 true 0 128 0 0 0
refused "negative value for uint64" 2 "argument 10 (h: uint64): -1 is out of range" \
    "$kern" scalars io.npy fo.npy uo.npy 0 0 0 0 true 0 0 -1 0 0
refused "float32 out of range" 2 "argument 5 (c: float32): 1e39 is out of range for float32" \
    "$kern" scalars io.npy fo.npy uo.npy 0 0 1e39 0 true 0 0 0 0 0
refused "bad boolean" 2 "argument 7 (e: boolean): expected true or false, got 'yes'" \
    "$kern" scalars io.npy fo.npy uo.npy 0 0 0 0 yes 0 0 0 0 0
refused "bad --grid" 2 "--grid: expected X[,Y[,Z]] (1 to 3 integers), got '4,x'" \
    "$kern" saxpy x.npy y.npy 1 --grid 4,x
refused "bad --block" 2 "--block: expected X[,Y[,Z]]" "$kern" saxpy x.npy y.npy 1 --block 1,2,3,4
refused "block too large (runtime check)" 1 "too many threads per block" \
    "$kern" saxpy x.npy y.npy 1 --block 2048
refused "too much shared memory (runtime check)" 1 "too much shared memory" \
    "$kern" blocksum x.npy part.npy --block 256 --shared 1000000
refused "unknown option" 2 "unknown option '--gird'" "$kern" saxpy x.npy y.npy 1 --gird 4
refused "bad --backend" 2 "--backend: expected cpu, cuda or auto" \
    "$kern" saxpy x.npy y.npy 1 --backend gpu
refused "missing .kern file" 1 "cannot open 'none.kern'" none.kern saxpy x.npy y.npy 1
# range() whose step is 0 at run time (numba raises ValueError): with -g the
# launch fails with numba's message; without it every thread just ends.
rs_kern=$srcdir/tests/e2e/range_step.kern
$npytool make rs.npy i8 4 const:5
refused "-g: a range() step of 0 at run time fails the launch" 1 \
    "range_step.kern:54: range() arg 3 must not be zero" \
    "$rs_kern" count_block -g rs.npy 0 --block 4
krun "$rs_kern" count_block rs.npy 0 --block 4 --outdir out_rs
check "without -g a range() step of 0 ends the threads (nothing written)" \
    $npytool check out_rs/arg0.npy i8 4 const:5
printf 'from numba import cuda\n\ndef f(:\n    pass\n' > bad.kern
refused "translation error: a diagnostic with the location" 1 "bad.kern:3:" bad.kern f
KRUN_CC=false
refused "compiler failure is reported" 1 "compilation of the generated code failed" \
    "$kern" saxpy x.npy y.npy 1

KRUN_CC=
check "no input file was modified" sh -c "cksum $inputs | cmp -s - inputs.sum"

# ---- from the build tree as it is, printing, inputs without Python, timing ----
# The suite sets KERNC_INCLUDEDIR; a user of the build tree does not.
krun_plain() {
    env -u KERNC_INCLUDEDIR TMPDIR="$work/tmp" "$KERNC" run "$@" > "$work/out" 2> "$work/err"
}
# krun, keeping what it printed in got and goterr (check overwrites out).
krun_got() {
    krun "$@"
    status=$?
    cp "$work/out" "$work/got"
    cp "$work/err" "$work/goterr"
    return $status
}
krun_plain "$kern" saxpy 'arange(1000)' 'full(1000, 1)' 2.5 --grid 4 --block 256 --outdir g1
check "the build tree's kernc finds kernrt.h by itself; arange() and full() inputs" \
    $npytool check g1/arg1.npy f4 1000 affine:2.5,1
krun_got "$kern" saxpy 'arange(10)' 'zeros(10)' 2 --block 16
printf '%s\n' "arg0 x: shape (10,), float32, unchanged" "arg1 y: shape (10,), float32" \
    "[ 0.  2.  4.  6.  8. 10. 12. 14. 16. 18.]" > want.out
check "results printed as NumPy prints them, unchanged arrays on one line" cmp -s want.out got
krun_got "$kern" saxpy 'arange(2000)' 'zeros(2000, float32)' 1 --grid 8 --block 256
check "more than 1000 elements: elided as NumPy does" \
    grep -qx '\[0.000e+00 1.000e+00 2.000e+00 ... 1.997e+03 1.998e+03 1.999e+03\]' got
krun_got "$kern" saxpy 'arange(2000)' 'zeros(2000)' 1 --grid 8 --block 256 --print
check "--print: the whole array" \
    sh -c "! grep -q '\.\.\.' got && grep -q ' 1.234e+03 ' got && grep -q '1.999e+03\]' got"
krun_got "$kern" saxpy 'arange(10)' 'zeros(10)' 2 --block 16 --quiet
check "--quiet: nothing printed" test ! -s got
krun "$kern" add2d 'full((5, 7), 0.5)' 'zeros((5,7))' --grid 2,2 --block 4,4 --outdir g2
expect=$(awk 'BEGIN { s = ""; for (i = 0; i < 5; i++) for (j = 0; j < 7; j++)
                      s = s (s == "" ? "" : ",") (1 + 100 * i + j); print s }')
check "2-D shapes: full((5, 7), 0.5) and zeros((5,7))" \
    $npytool check g2/arg1.npy f8 5x7 "list:$expect"
krun "$kern" saxpy 'np.zeros(1000, dtype=np.float32)' 'rand(1000, 42)' 1 --grid 4 --block 256 \
    --outdir g3
krun "$kern" saxpy 'zeros(1000)' 'rand(1000, 42, f4)' 1 --grid 4 --block 256 --outdir g4
krun "$kern" saxpy 'zeros(1000)' 'rand(1000, 43)' 1 --grid 4 --block 256 --outdir g5
check "rand(SHAPE, SEED): the same seed gives the same numbers, another seed others" \
    sh -c 'cmp -s g3/arg1.npy g4/arg1.npy && ! cmp -s g3/arg1.npy g5/arg1.npy'
krun_got "$kern" saxpy 'arange(1000)' 'full(1000, 1)' 2.5 --grid 4 --block 256 --repeat 3 \
    --outdir g6
check "--repeat 3: each launch on the original inputs" \
    $npytool check g6/arg1.npy f4 1000 affine:2.5,1
check "--repeat 3: min and median of 3 launches" \
    grep -Eqx 'time: min [0-9]+\.[0-9]{3} ms, median [0-9]+\.[0-9]{3} ms \(3 launches, cpu backend\)' got
krun_got "$kern" saxpy 'arange(10)' 'zeros(10)' 2 --block 16 --time --quiet
check "--time: one launch timed" grep -Eq '^time: min .* \(1 launch, cpu backend\)$' got
krun_got "$srcdir/tests/ufunc/vec.kern" hyp 'full(3, 3.0, f4)' 'full(3, 4, float32)' 'zeros(3)'
check "a @vectorize function on generated inputs (the output follows the signature)" \
    sh -c "tail -n1 got | grep -qx '\[5. 5. 5.\]'"
krun_got "$srcdir/tests/ufunc/red.kern" sum_reduce 'arange(1000)'
check "cuda.reduce on arange(1000) (NumPy's int64 where the dtype picks the signature)" \
    sh -c 'test "$(cat got)" = 499500'
refused "a generator's dtype must fit" 1 \
    "argument 0 (x: float32[:]): full(1000, 1, float64) holds float64 data, expected float32" \
    "$kern" saxpy 'full(1000, 1, float64)' y.npy 1
refused "a generator's ndim must fit" 1 "zeros(10) has 1 dimension, expected 2" \
    "$kern" add2d 'zeros(10)' o.npy
refused "zeros() without a shape" 2 "expected zeros(SHAPE[, DTYPE]), got 'zeros()'" \
    "$kern" saxpy 'zeros()' y.npy 1
refused "an unknown dtype" 2 "unknown dtype 'float128'" "$kern" saxpy 'zeros(4, float128)' y.npy 1
refused "a bad shape" 2 "expected a shape N or (N, M, ...), got '(4, x)'" \
    "$kern" saxpy 'zeros((4, x))' y.npy 1
refused "arange() of a shape" 2 "expected a length N, got '(2, 3)'" \
    "$kern" add2d 'arange((2, 3))' o.npy
refused "rand() of integers" 2 "rand() makes float32 or float64 arrays, not int32" \
    "$kern" saxpy 'rand(4, 1, int32)' y.npy 1
refused "full() with a bad value" 2 "expected a number, got 'x'" "$kern" saxpy 'full(4, x)' y.npy 1
refused "--repeat 0" 2 "--repeat: expected a count from 1 to 1000000, got '0'" \
    "$kern" saxpy x.npy y.npy 1 --repeat 0
# issue 9: tuple literals for tuple parameters (the launcher's C structs)
tkern=$srcdir/tests/run/tuples.kern
krun "$tkern" tk 'zeros(2)' '(3, 4)' '(1, 2.5, (3, 0.25))' --outdir tup
check "tuple literals, nested and of mixed types" $npytool check tup/arg0.npy f8 2 list:43,303.75
refused "a tuple literal of the wrong length" 2 \
    "argument 1 (t: UniTuple(int64, 2)): expected a tuple of 2 values such as (1, 2), got '(3, 4, 5)'" \
    "$tkern" tk 'zeros(2)' '(3, 4, 5)' '(1, 2.5, (3, 0.25))'
refused "a float in an integer tuple" 2 "expected an integer, got the float literal '4.5'" \
    "$tkern" tk 'zeros(2)' '(3, 4.5)' '(1, 2.5, (3, 0.25))'
refused "a scalar for a tuple parameter" 2 "expected a tuple of 3 values such as (1, 2), got '7'" \
    "$tkern" tk 'zeros(2)' '(3, 4)' 7
# arr (issue 9): named tuple parameters, positional or by field name
nkern=$srcdir/tests/run/ntuples.kern
krun_got "$nkern" nk 'zeros(1)' '(1.5, 2)' --outdir ntup
check "a named tuple's positional literal" sh -c "tail -n1 got | grep -qx '\[17\.\]'"
krun_got "$nkern" nk 'zeros(1)' 'Point(y=2, x=1.5)' --outdir ntup
check "a named tuple's literal by field name" sh -c "tail -n1 got | grep -qx '\[17\.\]'"
refused "an unknown field of a named tuple" 2 \
    "expected a tuple of 2 values such as (1, 2), got 'Point(x=1, z=2)'" \
    "$nkern" nk 'zeros(1)' 'Point(x=1, z=2)'
# records: a record literal for a record parameter, structured .npy files out
rkern=$srcdir/tests/run/records.kern
krun_got "$rkern" rk '(1.5, 2)' 'zeros(2)' 'zeros(1)' --outdir recd
check "a record literal (its fields in order)" sh -c "tail -n1 got | grep -qx '\[3.5\]'"
check "an array of records written with NumPy's descr" \
    grep -qF "{'descr': [('a', '<f8'), ('b', '<i4'), ('', '|V4')], 'fortran_order': False, 'shape': (2,), }" \
    recd/arg1.npy
check "a record argument written back as a 0-d array" \
    grep -qF "{'descr': [('a', '<f8'), ('b', '<i4'), ('', '|V4')], 'fortran_order': False, 'shape': (), }" \
    recd/arg0.npy
refused "a record literal of the wrong length" 2 \
    "argument 0 (r: record): expected a record literal of 2 field values in order (a, ...), got '(1.5,)'" \
    "$rkern" rk '(1.5,)' 'zeros(2)' 'zeros(1)'
refused "one record for an array of records" 1 "has 0 dimensions, expected 1" \
    "$rkern" rk '(1.5, 2)' recd/arg0.npy 'zeros(1)'
refused "numbers for an array of records" 2 "an array of records is a .npy file or zeros(SHAPE)" \
    "$rkern" rk '(1.5, 2)' 'arange(2)' 'zeros(1)'

# Of several signatures, numba's dispatcher's choice (test_dispatcher's
# explicit signatures of one type class).
okern=$srcdir/tests/run/overloads.kern
krun_got "$okern" add_kernel 'zeros(1)' 1 2.9802322387695312e-08
check "of two signatures, an int and a float literal take (float64, float64): no unsafe conversion" \
    sh -c "tail -n1 got | grep -qx '\[1.00000003\]'"
krun_got "$okern" add_kernel 'zeros(1)' 'float32(1)' 'np.float32(2.9802322387695312e-08)'
check "typed literals float32(1) take (float32, float32): exact" \
    sh -c "tail -n1 got | grep -qx '\[1.\]'"
krun_got "$okern" add_kernel 'zeros(1)' 'float32(1)' 2.9802322387695312e-08
check "float32(1) and a float literal take (float64, float64): a promotion, not an unsafe conversion" \
    sh -c "tail -n1 got | grep -qx '\[1.00000003\]'"
refused "a typed literal's value is checked" 2 "argument 2 (y: float64): expected a number, got 'x'" \
    "$okern" add_kernel 'zeros(1)' 'float32(1)' 'float32(x)'

# str: char sequences ('<U5', 'S3'): arrays from zeros(N) written with
# NumPy's descr and printed as NumPy prints them, read back from .npy
ckern=$srcdir/tests/run/charseq.kern
krun_got "$ckern" put 'zeros(2)' 'zeros(2)' --outdir cs1
printf '%s\n' "arg0 names: shape (2,), str" "['héllo' 'ab']" "arg1 tags: shape (2,), bytes" \
    "[b'xyz' b'q']" > want.out
check "char sequences stored, truncated, printed as NumPy prints them" cmp -s want.out got
check "'<U5' and '|S3' arrays written with NumPy's descr" sh -c \
    "grep -qF \"{'descr': '<U5', 'fortran_order': False, 'shape': (2,), }\" cs1/arg0.npy &&
     grep -qF \"{'descr': '|S3', 'fortran_order': False, 'shape': (2,), }\" cs1/arg1.npy"
krun_got "$ckern" swap cs1/arg0.npy cs1/arg1.npy 'zeros(1)' --outdir cs2
check "char sequences read from .npy files and copied" \
    sh -c "sed -n 2p got | grep -qx \"\\['ab' 'héllo'\\]\" && sed -n 4p got | grep -qx \"\\[b'xyz' b'xyz'\\]\""
check "a record with a '<U5' field written with NumPy's descr" \
    grep -qF "{'descr': [('n', '<i4'), ('s', '<U5')], 'fortran_order': False, 'shape': (1,), }" \
    cs2/arg2.npy
krun_got "$ckern" first cs1/arg1.npy --outdir cs3
check "a '|S3' file picks the CharSeq(3) overload" sh -c "tail -n1 got | grep -qx \"\\[b'xyz' b'xyz'\\]\""
refused "a '|S3' file for a '<U5' parameter" 1 \
    "argument 0 (names: [unichr x 5][::1]): cs1/arg1.npy holds [char x 3] data, expected [unichr x 5]" \
    "$ckern" put cs1/arg1.npy cs1/arg1.npy
refused "numbers for an array of char sequences" 2 \
    "arange(2) makes numbers; an array of [unichr x 5] is a .npy file or zeros(SHAPE)" \
    "$ckern" put 'arange(2)' 'zeros(2)'

# --backend cuda: runs where there is a device, else a clear error (never a crash).
krun_got "$kern" saxpy 'arange(1000)' 'full(1000, 1)' 2.5 --grid 4 --block 256 --backend cuda \
    --outdir gc
status=$?
if [ $status -eq 0 ]; then
    check "--backend cuda: runs on the GPU" $npytool check gc/arg1.npy f4 1000 affine:2.5,1
else
    check "--backend cuda without a usable device: exit 1 and a message that says so" \
        sh -c "test $status -eq 1 && grep -qi '^kernc run: error: .*cuda' goterr && test ! -e gc"
fi

echo "# $failed of $n failed"
[ "$failed" -eq 0 ]
