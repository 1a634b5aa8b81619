#!/bin/sh
# tests/layers.sh - the translator's files form layers: the file-level
# dependency graph of its objects (A uses B when A refers to a symbol that
# B defines, from `nm`) has no circle.  One TAP test; the graph itself is
# printed as TAP comments.  Files split from one for size count as that
# file (type_array.c, type_call.c, reduce_array.c, ntuple.c and
# type_charseq.c as type.c, emit_builtin.c as emit_expr.c, lower_nonneg.c as
# lower_cpu.c; see below).
#
# Environment: abs_top_builddir (where src/*.o and grammar/*.o are).

top=${abs_top_builddir:-.}
NM=${NM:-nm}
# KERNC_OBJECTS: kernc's objects, relative to the build directory (the
# Makefile passes them, so that stale objects of removed files do not
# count); else every kernc-*.o there.
if [ -n "$KERNC_OBJECTS" ]; then
    objs=
    for o in $KERNC_OBJECTS; do objs="$objs $top/$o"; done
else
    objs=$(ls "$top"/src/kernc-*.o "$top"/grammar/kernc-*.o 2>/dev/null)
fi
if [ -z "$objs" ] || ! command -v "$NM" >/dev/null 2>&1; then
    echo "1..0 # SKIP no objects or no nm"
    exit 0
fi
echo "1..1"
for o in $objs; do
    case $o in *.o) ;; *) continue ;; esac
    name=$(basename "$o" .o | sed 's/^kernc-//')
    # Files split from one for size are one layer: they call each other
    # through a private header (type.c, type_array.c and type_call.c share
    # src/type_impl.h, and so do arr's reduce_array.c and ntuple.c), so
    # their edges are the edges of the whole.
    case $name in
    type_array | type_call | reduce_array | ntuple | type_charseq) name=type ;;
    emit_builtin) name=emit_expr ;;
    lower_nonneg) name=lower_cpu ;;
    esac
    "$NM" "$o" | awk -v f="$name" '$1 == "U" { print "U", f, $2 } NF == 3 && $2 ~ /[TDBRC]/ { print "D", f, $3 }'
done | awk '
    $1 == "D" { def[$3] = $2 }
    $1 == "U" { use[NR] = $2 " " $3 }
    END {
        for (k in use) {
            split(use[k], p, " ")
            if ((p[2] in def) && def[p[2]] != p[1]) {
                e = p[1] " " def[p[2]]
                if (!(e in edge)) { edge[e] = p[2]; adj[p[1]] = adj[p[1]] " " def[p[2]]; nodes[p[1]]; nodes[def[p[2]]] }
            }
        }
        # depth-first search for a back edge
        bad = 0
        for (n in nodes) if (!(n in state)) dfs(n)
        for (n in nodes) printf "# %s ->%s\n", n, adj[n]
        if (bad) print "not ok 1 - the translator has a circle of file dependencies: " cycle
        else print "ok 1 - no circle among the translator files"
    }
    function dfs(n,   m, i, k, list) {
        state[n] = 1; stack[++sp] = n
        k = split(adj[n], list, " ")
        for (i = 1; i <= k; i++) {
            m = list[i]
            if ((m in state) && state[m] == 1 && !bad) {
                bad = 1; cycle = ""
                for (j = sp; j >= 1; j--) { cycle = stack[j] (cycle == "" ? "" : " -> ") cycle; if (stack[j] == m) break }
                cycle = cycle " -> " m " (" edge[n " " m] ")"
            } else if (!(m in state)) dfs(m)
        }
        state[n] = 2; sp--
    }'
