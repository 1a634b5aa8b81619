#!/bin/sh
# tests/codegen.sh - golden tests of the generated code.  Each
# tests/codegen/NAME.kern is translated for both targets; the CUDA C
# (NAME.cu), the C of the CPU backend (NAME.c) and the launcher header
# (NAME.kern.h) must equal the files of those names beside it, byte for
# byte; and every line of the .cu and .c carries a right #line (a line of
# the .kern that exists, or the generated file's own line).  Four TAP tests
# per file.
#
# Extra options for one test can be given in its first line:
#   # kernc-options: -g
#
# After an intended change of the generated code, regenerate the expected
# files with
#   make regen-codegen        (or: tests/codegen.sh --regen)
# and say in the commit why they changed.
#
# Environment: KERNC (the kernc binary, default ./kernc), srcdir (the top
# source directory, default .).

srcdir=${srcdir:-.}
KERNC=${KERNC:-./kernc}
dir=$srcdir/tests/codegen
regen=no
[ "$1" = --regen ] && regen=yes

case $KERNC in
    /*) ;;
    */*) KERNC=$(pwd)/$KERNC ;;
esac

work=$(mktemp -d "${TMPDIR:-/tmp}/kernc-codegen.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT INT TERM

set -- "$dir"/*.kern
if [ ! -f "$1" ]; then
    echo "1..0 # SKIP no tests in $dir"
    exit 0
fi
[ $regen = no ] && echo "1..$(($# * 4))"
n=0
for kern in "$@"; do
    name=$(basename "$kern" .kern)
    opts=$(sed -n '1s/^# kernc-options: *//p' "$kern")
    # Both targets write the same header; the CUDA run's is the one kept.
    # kernc runs beside a copy of the .kern, so that the #line directives
    # name plain NAME.kern and NAME.cu / NAME.c.
    cp "$kern" "$work/$name.kern"
    # dev (issue 9): the CUDA C files a .kern links (cuda.declare_device)
    # are tests/codegen/*_lib.cu, beside it
    for lib in "$dir"/*_lib.cu; do [ -f "$lib" ] && cp "$lib" "$work/"; done
    # shellcheck disable=SC2086
    (cd "$work" && "$KERNC" $opts -o "$name.cu" --header "$name.kern.h" \
        "$name.kern") > "$work/$name.err1" 2>&1
    s1=$?
    # shellcheck disable=SC2086
    (cd "$work" && "$KERNC" $opts --target c -o "$name.c" \
        --header "$name.c.kern.h" "$name.kern") > "$work/$name.err2" 2>&1
    s2=$?
    for ext in cu c kern.h; do
        n=$((n + 1))
        case $ext in c) s=$s2 err=$work/$name.err2 ;; *) s=$s1 err=$work/$name.err1 ;; esac
        if [ $regen = yes ]; then
            if [ $s != 0 ]; then
                echo "codegen.sh: $name.kern: kernc failed:" >&2
                cat "$err" >&2
                exit 1
            fi
            cp "$work/$name.$ext" "$dir/$name.$ext"
            continue
        fi
        if [ $s != 0 ]; then
            echo "not ok $n - $name.$ext # kernc exited $s"
            sed 's/^/# /' "$err" | head -20
        elif [ ! -f "$dir/$name.$ext" ]; then
            echo "not ok $n - $name.$ext # no expected $name.$ext (make regen-codegen)"
        elif cmp -s "$work/$name.$ext" "$dir/$name.$ext"; then
            echo "ok $n - $name.$ext"
        else
            echo "not ok $n - $name.$ext # differs from tests/codegen/$name.$ext"
            diff -u "$dir/$name.$ext" "$work/$name.$ext" | head -40 | sed 's/^/# /'
        fi
    done
    # Every line of the code has a #line that is right: a .kern line that
    # exists (inherited numbers included), or the generated file's own.
    if [ $regen = no ]; then
        n=$((n + 1))
        kl=$(wc -l < "$kern")
        bad=
        for ext in cu c; do
            [ -f "$work/$name.$ext" ] || continue
            bad=$bad$(awk -v kern="$name.kern" -v own="$name.$ext" -v kl="$kl" '
                /^#line / { file = $3; gsub(/"/, "", file); cur = $2; next }
                file == kern && cur > kl { print own ":" NR ": inherits " kern ":" cur; exit }
                file == own && cur != NR { print own ":" NR ": is numbered " cur; exit }
                file != "" && file != kern && file != own { print own ":" NR ": names " file; exit }
                { if (file != "") cur++ }' "$work/$name.$ext")
        done
        if [ -z "$bad" ]; then
            echo "ok $n - $name: #line directives"
        else
            echo "not ok $n - $name: #line directives # $bad"
        fi
    fi
    if [ $regen = no ] && [ $s1 = 0 ] && [ $s2 = 0 ] &&
        ! cmp -s "$work/$name.kern.h" "$work/$name.c.kern.h"; then
        echo "# note: $name: the headers of the two targets differ"
    fi
done
[ $regen = yes ] && echo "codegen.sh: regenerated the expected files of $# tests in $dir"
exit 0
