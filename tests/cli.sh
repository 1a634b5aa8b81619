#!/bin/sh
# tests/cli.sh - TAP tests of the kernc command line around the passes:
# where outputs go and how diagnostics look (SPEC section 2).
#
# Outputs: "-o -" is standard output; devices, FIFOs and symlinks are
# written through and stay what they are (never renamed over, as kernc
# once did to /dev/null as root: that case runs in a private mount
# namespace, on a /dev of its own, where unshare(1) and root allow it);
# all outputs or none (a header path that is a directory leaves the .cu
# alone); -fsyntax-only writes nothing.  Diagnostics: gcc's colours with
# -fdiagnostics-color=always, auto on a pseudo-terminal (script(1)) and
# not through a pipe or with NO_COLOR, clang's closing count, -w, the
# warning options (-Wno-NAME, -Werror=NAME, the [-WNAME] tags) and "did you
# mean" for misspelled options.
#
# Environment: KERNC (the kernc binary), srcdir (default .).

srcdir=${srcdir:-.}
KERNC=${KERNC:-./kernc}
case $KERNC in
    /*) ;;
    */*) KERNC=$(pwd)/$KERNC ;;
esac
kern=$(cd "$srcdir/examples" && pwd)/double.kern
warnkern=$(cd "$srcdir/tests/diag" && pwd)/sema_divergent_barrier.kern

work=$(mktemp -d "${TMPDIR:-/tmp}/kernc-cli-test.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT INT TERM
cd "$work" || exit 99

echo "1..47"
n=0
failed=0
pass() { n=$((n + 1)); echo "ok $n - $1"; }
fail() {
    n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"
    [ -s err ] && sed 's/^/# /' err | head -20
}
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
check() { # check NAME COMMAND...: one test from a command's status
    name=$1; shift
    if "$@"; then pass "$name"; else fail "$name"; fi
}
# same_code A B: the same code, but for the #line directives that name the
# generated file itself (they carry the -o name)
same_code() {
    sed -E '/^#line [0-9]+ ".*"$/{/\.kern"$/!d}' "$1" > same.a
    sed -E '/^#line [0-9]+ ".*"$/{/\.kern"$/!d}' "$2" > same.b
    cmp -s same.a same.b
}
status_and_same() { test "$1" -eq 0 && same_code "$2" "$3"; }
link_and_same() { test -L "$1" && same_code "$2" "$3"; }

# The reference outputs, written to plain files.
"$KERNC" -o ref.cu --header ref.kern.h "$kern" 2> err
check "plain run writes the .cu and the header" test -s ref.cu -a -s ref.kern.h

# ---- -o - ----
"$KERNC" -o - --header h1.kern.h "$kern" > stdout.cu 2> err
check "-o - writes the code to standard output" same_code stdout.cu ref.cu
check "-o - writes no file named '-'" test ! -e ./- -a -s h1.kern.h
mkdir md && cp "$kern" md/local.kern
"$KERNC" -o - --header h2.kern.h -MD md/local.kern > /dev/null 2> err
check "-o - with -MD: the rule goes next to the input, for the header" \
    grep -qx "h2.kern.h: md/local.kern" md/local.d
"$KERNC" -o - --header - "$kern" > two.out 2> err
check "two outputs to standard output are refused" \
    sh -c "test $? -eq 1 && grep -q 'only one output' err && test ! -s two.out"

# ---- FIFOs, symlinks, devices ----
if mkfifo fifo 2> /dev/null; then
    cat fifo > fifo.got &
    reader=$!
    "$KERNC" -o fifo --header h3.kern.h "$kern" 2> err
    status=$?
    wait $reader
    check "-o FIFO: written through" status_and_same "$status" fifo.got ref.cu
    check "-o FIFO: still a FIFO" test -p fifo
else
    skip "-o FIFO: written through" "no mkfifo"
    skip "-o FIFO: still a FIFO" "no mkfifo"
fi

echo old > target.cu
ln -s target.cu link.cu
"$KERNC" -o link.cu --header h4.kern.h "$kern" 2> err
check "-o SYMLINK: the file it names gets the code" same_code target.cu ref.cu
check "-o SYMLINK: still a symlink" test -L link.cu
check "-o SYMLINK: no temporary left next to it" \
    sh -c '! ls -A | grep -q tmp'
ln -s missing.cu dangling.cu
"$KERNC" -o dangling.cu --header h5.kern.h "$kern" 2> err
check "-o DANGLING-SYMLINK: written through to the name it holds" \
    link_and_same dangling.cu missing.cu ref.cu
chmod 0640 target.cu
"$KERNC" -o target.cu --header h6.kern.h "$kern" 2> err
check "replacing a regular file keeps its mode" \
    sh -c 'test "$(stat -c %a target.cu)" = 640'
check "... gives it the new code (swapped in: main.c, replace_file)" same_code target.cu ref.cu
check "... and leaves no temporary (the old text unlinked)" sh -c '! ls -A | grep -q tmp'

"$KERNC" -o /dev/null --header h7.kern.h "$kern" 2> err
check "-o /dev/null succeeds" sh -c "test $? -eq 0 && test -c /dev/null"
# As root, an unsafe kernc would rename over /dev/null: try it where that
# harms nothing, on a private /dev (tmpfs) with a null device of its own.
if [ "$(id -u)" -eq 0 ] && unshare -m true 2> /dev/null; then
    unshare -m sh -c '
        mount -t tmpfs kernc-test /dev && mknod -m 666 /dev/null c 1 3 || exit 77
        "$0" -o /dev/null --header h8.kern.h "$1" || exit 1
        test -c /dev/null || { echo "/dev/null is no longer a device" >&2; exit 1; }
        echo probe > /dev/null && test ! -s /dev/null' "$KERNC" "$kern" 2> err
    status=$?
    if [ $status -eq 77 ]; then
        skip "as root, -o /dev/null leaves the device in place" "no tmpfs/mknod here"
    else
        check "as root, -o /dev/null leaves the device in place" test $status -eq 0
    fi
else
    skip "as root, -o /dev/null leaves the device in place" "not root or no unshare -m"
fi

# ---- all outputs or none ----
cp ref.cu keep.cu
echo "int old;" > keep.cu
mkdir hdir
"$KERNC" -o keep.cu --header hdir "$kern" 2> err
status=$?
check "a header path that is a directory: exit 1 with a message" \
    sh -c "test $status -eq 1 && grep -q 'hdir.*Is a directory' err"
check "... and the .cu is not replaced" sh -c 'test "$(cat keep.cu)" = "int old;"'
check "... and no temporary is left" sh -c '! ls -A . hdir | grep -q tmp'

# ---- -fsyntax-only ----
mkdir so && cp "$kern" so/k.kern
"$KERNC" -fsyntax-only -MD so/k.kern > so.out 2> err
check "-fsyntax-only: exit 0, nothing written" \
    sh -c "test $? -eq 0 && test \"\$(ls so)\" = k.kern && test ! -s so.out"
printf 'from numba import cuda\n\n@cuda.jit("void(int32[:])")\ndef k(a):\n    a[0] = y\n' > so/bad.kern
"$KERNC" -fsyntax-only so/bad.kern 2> err
check "-fsyntax-only: errors reported, exit 1, nothing written" \
    sh -c "test $? -eq 1 && grep -q \"bad.kern:5:12: error: name 'y'\" err && test \"\$(ls so)\" = 'bad.kern
k.kern'"

# ---- -ftime-report ----
"$KERNC" -ftime-report -fsyntax-only so/k.kern 2> err
check "-ftime-report: every pass (seconds, MiB mapped) and a total on stderr" \
    sh -c "test $? -eq 0 && grep -q '^parse  *[0-9.]*  *[0-9.]*  *[0-9.]*\$' err &&
           grep -q '^type ' err && grep -q '^range ' err && grep -q '^header ' err &&
           grep -q '^total ' err"
"$KERNC" -fsyntax-only so/k.kern 2> err
check "... and nothing without it" test ! -s err

# ---- diagnostics ----
cp so/bad.kern bad.kern
printf 'from numba import cuda\n\n@cuda.jit("void(int32[:])")\ndef k(a):\n    a[0] = y\n    a[1] = zz\n' > bad2.kern
esc=$(printf '\033')
"$KERNC" -fdiagnostics-color=always bad.kern 2> color.err
printf '%s\n' \
    "${esc}[01m${esc}[Kbad.kern:5:12:${esc}[m${esc}[K ${esc}[01;31m${esc}[Kerror:${esc}[m${esc}[K name 'y' is not defined" \
    "    a[0] = y" \
    "           ${esc}[32m${esc}[K^${esc}[m${esc}[K" \
    "1 error generated." > color.want
check "always: gcc's colours (bold locus, bold red error:, green caret)" cmp -s color.err color.want
"$KERNC" bad.kern 2> plain.err
check "auto through a pipe: no colour" sh -c "! grep -q '$esc' plain.err"
"$KERNC" -fdiagnostics-color=never bad.kern 2> never.err
check "never: no colour" cmp -s never.err plain.err
"$KERNC" -fdiagnostics-color=sometimes bad.kern 2> err
check "a bad -fdiagnostics-color value is refused" \
    sh -c "test $? -eq 1 && grep -q 'expected auto, always or never' err"
if script -qc true /dev/null < /dev/null > /dev/null 2>&1; then
    TERM=xterm script -qc "'$KERNC' bad.kern" /dev/null < /dev/null > tty.out 2>&1
    check "auto on a terminal: colour" grep -q "${esc}\[01;31m${esc}\[Kerror:" tty.out
    TERM=xterm NO_COLOR=1 script -qc "'$KERNC' bad.kern" /dev/null < /dev/null > tty.out 2>&1
    check "auto on a terminal with NO_COLOR: no colour" \
        sh -c "grep -q 'error:' tty.out && ! grep -q '$esc' tty.out"
    TERM=xterm NO_COLOR=1 script -qc "'$KERNC' -fdiagnostics-color=always bad.kern" \
        /dev/null < /dev/null > tty.out 2>&1
    check "always wins over NO_COLOR" grep -q "$esc" tty.out
else
    skip "auto on a terminal: colour" "no script(1)"
    skip "auto on a terminal with NO_COLOR: no colour" "no script(1)"
    skip "always wins over NO_COLOR" "no script(1)"
fi
"$KERNC" bad2.kern 2> err
check "closing count: 2 errors generated." sh -c 'test "$(tail -n1 err)" = "2 errors generated."'
# The divergent-barrier kernel warns (its golden test runs it with -Werror).
cp "$warnkern" warn.kern
"$KERNC" -o w.cu --header w.kern.h warn.kern 2> err
check "a warning: exit 0, counted" \
    sh -c "test $? -eq 0 && grep -q 'warning: syncthreads' err && test \"\$(tail -n1 err)\" = '1 warning generated.'"
# ... and a check-pass error next to it: too much static shared memory.
sed 's/cuda.shared.array(32, float32)/cuda.shared.array(20000, float32)/' warn.kern > warn2.kern
"$KERNC" -o w.cu --header w.kern.h warn2.kern 2> err
check "closing count: 1 warning and 1 error generated." \
    sh -c 'test "$(tail -n1 err)" = "1 warning and 1 error generated."'
"$KERNC" -w -o w.cu --header w.kern.h warn.kern 2> err
check "-w: no warning, no count" sh -c "test $? -eq 0 && test ! -s err"
"$KERNC" -w -Werror -o w.cu --header w.kern.h warn.kern 2> err
check "-w wins over -Werror (as gcc)" sh -c "test $? -eq 0 && test ! -s err"
"$KERNC" -w -o w.cu --header w.kern.h warn2.kern 2> err
check "-w keeps the errors" \
    sh -c 'test "$(tail -n1 err)" = "1 error generated." && ! grep -q warning err'

# ---- warning options: [-Wname] tags, -Wno-name, -Werror=name ----
"$KERNC" -o w.cu --header w.kern.h warn.kern 2> err
check "a warning names its option: [-Wdivergent-barrier]" \
    grep -q 'warning: syncthreads() under .* \[-Wdivergent-barrier\]$' err
"$KERNC" -Wno-divergent-barrier -o w.cu --header w.kern.h warn.kern 2> err
check "-Wno-divergent-barrier: no warning, no count" sh -c "test $? -eq 0 && test ! -s err"
"$KERNC" -Wno-divergent-barrier -Wdivergent-barrier -o w.cu --header w.kern.h warn.kern 2> err
check "-Wdivergent-barrier after -Wno-...: the warning again" grep -q 'warning: syncthreads' err
"$KERNC" -Werror=divergent-barrier -o w.cu --header w.kern.h warn.kern 2> err
check "-Werror=divergent-barrier: an error, tagged [-Werror=divergent-barrier], exit 1" \
    sh -c "test $? -eq 1 && grep -q 'error: syncthreads() .* \[-Werror=divergent-barrier\]$' err"
"$KERNC" -Werror -Wno-error=divergent-barrier -o w.cu --header w.kern.h warn.kern 2> err
check "-Werror -Wno-error=divergent-barrier: a warning again, exit 0" \
    sh -c "test $? -eq 0 && grep -q 'warning: syncthreads' err"
"$KERNC" -Wall -Wextra -o w.cu --header w.kern.h warn.kern 2> err
check "-Wall and -Wextra are accepted" sh -c "test $? -eq 0 && grep -q 'warning: syncthreads' err"
"$KERNC" -Wno-divergent-barier warn.kern 2> err
check "an unknown warning is refused, with the closest one" \
    sh -c "test $? -eq 1 && grep -q \"unknown warning option '-Wno-divergent-barier'; did you mean '-Wno-divergent-barrier'?\" err"
"$KERNC" --heder x.h warn.kern 2> err
check "an unknown option gets the closest one" \
    grep -q "unknown option '--heder'; did you mean '--header'?" err
"$KERNC" run warn.kern k --gird 1 2> err
check "kernc run: an unknown option gets the closest one" \
    grep -q "unknown option '--gird'; did you mean '--grid'?" err
"$KERNC" --help > help.out
check "--help lists the warnings" grep -q '^  -Wcuda-only ' help.out

# ---- the manual page documents every option of --help ----
man1=$(cd "$srcdir/doc" && pwd)/kernc.1
missing=
for opt in $("$KERNC" --help | sed -n 's/^  \(-[-a-zA-Z]*\).*/\1/p') \
           $("$KERNC" run --help | sed -n 's/^  \(-[-a-zA-Z]*\).*/\1/p'); do
    sed 's/\\//g' "$man1" | grep -Eq "^\.[BIR]+ $opt( |\$|\[)" ||
        missing="$missing $opt"
done
echo "$missing" > err
check "doc/kernc.1 documents every option of kernc --help and kernc run --help" \
    test -z "$missing"

echo "# $failed of $n failed"
[ "$failed" -eq 0 ]
