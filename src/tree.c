/*
 * tree.c - builders of the typed tree (kernc.h: the lowering contract) and
 * the properties of its nodes that type.c asks about.  Nothing here
 * reports an error or depends on the typing state.
 */
#include "kernc.h"

#include <math.h>
#include <string.h>

Node *tree_var(Loc loc, Var *v)
{
    Node *n = node_new(E_VAR, loc);
    n->var = v;
    n->type = v->type;
    return n;
}

Node *tree_int(Loc loc, Type *t, int64_t v)
{
    Node *n = node_new(E_CONST, loc);
    n->type = t;
    n->ival = (uint64_t)v;
    return n;
}

Node *tree_float(Loc loc, Type *t, double v)
{
    Node *n = node_new(E_CONST, loc);
    n->type = t;
    n->fval = ty_round_float(t, v);
    return n;
}

Node *tree_binop(Loc loc, Op op, Node *a, Node *b, Type *t)
{
    Node *n = node_new(E_BINOP, loc);
    n->op = op;
    n->lhs = a;
    n->rhs = b;
    n->type = t;
    return n;
}

Node *tree_stmt(NodeKind k, Loc loc)
{
    return node_new(k, loc);
}

Node *tree_assign(Loc loc, Node *target, Node *value)
{
    Node *s = tree_stmt(S_ASSIGN, loc);
    nl_push(&s->args, target);
    s->rhs = value;
    return s;
}

/* Wrap an integer's bits to the width and signedness of t. */
uint64_t tree_wrap_int(uint64_t v, const Type *t)
{
    const ScalarInfo *info = ty_info(t);
    if (!info || info->cls == SC_FLOAT || info->cls == SC_HALF || info->cls == SC_BF16 ||
        info->size >= 8)
        return v;
    if (info->cls == SC_BOOL)
        return v != 0;
    int shift = 64 - info->size * 8;
    if (info->cls == SC_SINT)   /* sign-extend from the type's width */
        return (uint64_t)((int64_t)(v << shift) >> shift);
    return v << shift >> shift;
}

/* A constant converted at translate time; NULL where C would be undefined
 * (a float out of the integer range), which is left to an E_CAST. */
Node *tree_const_convert(Node *k, Type *t)
{
    Type *from = k->type;
    if (ty_is_complex(t) || ty_is_complex(from))   /* complex.c */
        return cx_const_convert(k, t);
    if (t->kind == TY_BOOL) {
        bool nz = ty_is_float(from) ? k->fval != 0 : k->ival != 0;
        return tree_int(k->loc, t, nz);
    }
    if (ty_is_float(t)) {
        double v = ty_is_float(from) ? k->fval
                 : ty_is_signed(from) ? (double)(int64_t)k->ival
                 : (double)k->ival;
        return tree_float(k->loc, t, v);
    }
    if (ty_is_half16(from))   /* cvt.rni / bfloat16's saturating rz at run time */
        return NULL;
    if (ty_is_float(from)) {
        double v = trunc(k->fval);
        if (!(v > -9223372036854775808.0 && v < 9223372036854775808.0))
            return NULL;
        return tree_int(k->loc, t, (int64_t)tree_wrap_int((uint64_t)(int64_t)v, t));
    }
    Node *n = tree_int(k->loc, t, 0);
    n->ival = tree_wrap_int(k->ival, t);
    return n;
}

/* An explicit conversion of a lowered expression to t (scalars only). */

Node *tree_cast(Node *e, Type *t)
{
    if (BAD(e) || !t || t == ty_error || e->type == t)
        return e;
    if (e->type->kind == TY_TUPLE && t->kind == TY_TUPLE && e->type->nelems == t->nelems &&
        (e->kind == E_TUPLE || e->kind == E_VAR)) {
        /* element by element; a variable is read once per element */
        Node *n = node_new(E_TUPLE, e->loc);
        for (int i = 0; i < t->nelems; i++)
            nl_push(&n->args, tree_cast(e->kind == E_TUPLE ? e->args.items[i]
                                      : tree_tupleget(node_clone(e), i), t->elems[i]));
        n->type = t;
        return n;
    }
    if (!ty_is_scalar(e->type) || !ty_is_scalar(t))
        return e;
    if (e->kind == E_CONST) {
        Node *k = tree_const_convert(e, t);
        if (k)
            return k;
    }
    Node *n = node_new(E_CAST, e->loc);
    n->lhs = e;
    n->type = t;
    return n;
}

Node *tree_tupleget(Node *tuple, int i)
{
    if (tuple->kind == E_TUPLE)
        return tuple->args.items[i];
    Node *g = node_new(E_TUPLEGET, tuple->loc);
    g->lhs = tuple;
    g->ival = (uint64_t)i;
    g->type = tuple->type->elems[i];
    return g;
}

/* No device-function call, no atomic and no random draw: safe to
 * evaluate twice. */
static Visit impure(const Node *n, void *ctx)
{
    (void)ctx;
    if (n->kind == E_CALLFN || n->kind == E_LET || n->kind == E_FFICALL)   /* dev: foreign */
        return VISIT_STOP;
    if (n->kind == E_API && api_has(n->api, AF_SIDE_EFFECTS))
        return VISIT_STOP;
    return VISIT_CHILDREN;
}

const Node *tree_strip_casts(const Node *n)
{
    while (n && n->kind == E_CAST)
        n = n->lhs;
    return n;
}

bool tree_is_pure(const Node *n)
{
    if (n && (n->kind == E_VAR || n->kind == E_CONST))   /* leaves, the most asked */
        return true;
    return !node_walk(n, impure, NULL);
}

/* A value that nothing evaluated later in the expression can change: a
 * constant, or a scalar variable (a device function cannot assign the
 * caller's variables).  An array element is not: a call may store to it. */
bool tree_is_stable(const Node *n)
{
    return n->kind == E_CONST || (n->kind == E_VAR && ty_is_scalar(n->type));
}

Node *tree_let(Loc loc, Var *v, Node *value, Node *body)
{
    Node *n = node_new(E_LET, loc);
    n->var = v;
    n->lhs = value;
    n->rhs = body;
    n->type = body->type;
    return n;
}

/* Does the value read an array element (which a call could change)? */
static Visit element_read(const Node *n, void *ctx)
{
    (void)ctx;
    return n->kind == E_INDEX ? VISIT_STOP : VISIT_CHILDREN;
}

bool tree_reads_memory(const Node *n)
{
    return node_walk(n, element_read, NULL);
}
