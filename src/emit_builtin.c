/* emit_builtin.c - the Python builtins called in kernels (abs, min, max,
 * round, pow, len: the api.def rows of emission kind EK_BUILTIN) and the
 * len() and comparisons of char sequences, printed for both targets.
 * Split from emit_expr.c for size: it is part of the shared expression
 * printer (tests/layers.sh counts it as emit_expr.c) and uses its
 * helpers through emit.h. */
#include "emit.h"

/* The Python builtins (EK_BUILTIN). */
/* str: len() and the three-way comparison of char sequences
 * (type_charseq.c), by kernrt_device.h's krt_cs_len and krt_cs_cmp on the
 * units, their size and a length: a value's, up to its last nonzero unit;
 * a constant's, all of it (numba compares a str with its own length). */
static const char *cs_operand(Emitter *E, Node *x)
{
    int unit = charseq_unicode(x->type) ? 4 : 1, n;
    if (x->kind == E_CONST) {
        const char *lit = charseq_lit_c(x, x->type->nelems, &n);
        return arena_printf("%s, %d, %d", lit, unit, n);
    }
    const char *v = ex(E, x);
    return arena_printf("(%s).c, %d, krt_cs_len((%s).c, %d, %d)", v, unit, v, unit,
                        x->type->nelems);
}

static const char *ex_charseq(Emitter *E, Node *n)
{
    Node *x = n->args.items[0];
    if (n->api == &api_table[API_CS_LEN])
        return arena_printf("krt_cs_len((%s).c, %d, %d)", ex(E, x),
                            charseq_unicode(x->type) ? 4 : 1, x->type->nelems);
    return arena_printf("krt_cs_cmp(%s, %s)", cs_operand(E, x), cs_operand(E, n->args.items[1]));
}

const char *ex_builtin(Emitter *E, Node *n)
{
    const ApiEntry *a = n->api;
    const Type *t = n->type;
    Node *x = n->args.len > 0 ? n->args.items[0] : NULL;
    switch (a->rule) {
    case TR_ABS:
        if (t && t->kind == TY_FLOAT16)
            return arena_printf("krt_abs_f16(%s)", ex_as(E, x, t));
        if (t_int(t))
            return arena_printf("krt_abs_%s(%s)", t_suffix(t), ex_as(E, x, t));
        if (t_float(t))
            return arena_printf("fabs%s(%s)", t_libm(t), ex_as(E, x, t));
        break;
    case TR_MINMAX: {
        if (!t_scalar(t) || t->kind == TY_BOOL)
            break;
        /* numba-cuda lowers two-float min/max to fmin/fmax (a NaN operand
         * is ignored); any other form is numba's generic one, Python's
         * comparisons */
        if (t_float(t) && !ty_is_half16(t) && n->args.len == 2 && !n->ival) {
            Node *y = n->args.items[1];
            bool fx = !(x->kind == E_CAST && !t_float(x->lhs->type));
            bool fy = !(y->kind == E_CAST && !t_float(y->lhs->type));
            if (fx && fy)
                return arena_printf("f%s%s(%s, %s)", a->id == API_B_MIN ? "min" : "max",
                                    t_libm(t), ex_as(E, x, t), ex_as(E, y, t));
        }
        const char *acc = ex_as(E, x, t);
        for (int i = 1; i < n->args.len; i++)
            acc = arena_printf("krt_%s_%s(%s, %s)", a->id == API_B_MIN ? "min" : "max",
                               t_suffix(t), acc, ex_as(E, n->args.items[i], t));
        return acc;
    }
    case TR_ROUND:
        if (n->args.len == 1) {
            if (t_float(x->type))
                return conv(arena_printf("rint%s(%s)", t_libm(x->type), ex(E, x)), x->type, t);
            return ex_as(E, x, t);
        }
        if (t_float(t))
            return arena_printf("krt_round_ndigits_%s(%s, %s)", t_suffix(t), ex_as(E, x, t),
                                ex_as(E, n->args.items[1], ty_scalar[TY_INT64]));
        break;
    case TR_POW: {
        Node tmp = *n;
        tmp.kind = E_BINOP;
        tmp.op = OP_POW;
        tmp.lhs = x;
        tmp.rhs = n->args.items[1];
        return ex_binop(E, &tmp);
    }
    case TR_LEN:
        if (a == &api_table[API_CS_LEN] || a == &api_table[API_CS_CMP])   /* str */
            return ex_charseq(E, n);
        return ex_shape(E, x, 0);
    default:
        break;
    }
    error_at(n->loc, "%s is not supported here", a->path);
    return "0";
}

