/*
 * emit_complex.c - how both targets print complex64 and complex128 values:
 * constants, conversions, operators and the complex rows of api.def, each
 * through a helper of runtime/kernrt_cmath.h (krt_cmul_c64(a, b), ...) or
 * a part of the struct of kernrt_complex.h (z.re, z.im).  emit_expr.c asks
 * ex_complex first for every expression and conv_complex for every
 * conversion that has a complex side.
 */
#include "emit.h"

#include <string.h>

static const char *sfx(const Type *t) { return ty_info(t)->sfx; }

/* A conversion from or to a complex type. */
const char *conv_complex(const char *s, const Type *from, const Type *to)
{
    if (from == to)
        return s;
    if (to->kind == TY_BOOL)
        return arena_printf("krt_ctrue_%s(%s)", sfx(from), s);
    if (ty_is_complex(to) && ty_is_complex(from))
        return arena_printf("krt_%s_of_%s(%s)", sfx(to), sfx(from), s);
    if (ty_is_complex(to)) {
        Type *part = ty_complex_part(to);
        return arena_printf("krt_cmake_%s(%s, %s)", sfx(to), unparen(conv(s, from, part)),
                            fmt_float(part, 0));
    }
    return s;   /* complex -> real: type.c refuses it */
}

static const char *binop_name(Op op)
{
    switch (op) {
    case OP_ADD: return "add";
    case OP_SUB: return "sub";
    case OP_MUL: return "mul";
    case OP_DIV: return "div";
    case OP_POW: return "pow";
    default: return NULL;
    }
}

static const char *ex_complex_api(Emitter *E, Node *n)
{
    const ApiEntry *a = n->api;
    Node *x = n->args.len ? n->args.items[0] : NULL;
    if (!x)
        return NULL;
    switch (a->id) {
    case API_CX_REAL:
        return arena_printf("(%s).re", ex(E, x));
    case API_CX_IMAG:
        return arena_printf("(%s).im", ex(E, x));
    case API_B_COMPLEX: case API_CM_RECT: {
        Type *part = ty_complex_part(n->type);
        return arena_printf("%s_%s(%s, %s)", a->cuda, sfx(n->type), unparen(ex_as(E, x, part)),
                            unparen(ex_as(E, n->args.items[1], part)));
    }
    case API_CM_POLAR:
        return NULL;   /* lowered to a tuple by type.c */
    default:
        break;
    }
    if (!a->cuda || !ty_is_complex(x->type))
        return NULL;
    return arena_printf("%s_%s(%s)", E->mode == MODE_CUDA ? a->cuda : a->cpu, sfx(x->type),
                        unparen(ex(E, x)));
}

const char *ex_complex(Emitter *E, Node *n)
{
    switch (n->kind) {
    case E_CONST:
        if (!ty_is_complex(n->type))
            return NULL;
        return arena_printf("krt_cmake_%s(%s, %s)", sfx(n->type),
                            fmt_float(ty_complex_part(n->type), n->fval),
                            fmt_float(ty_complex_part(n->type), n->fimag));
    case E_BINOP: {
        const char *name = binop_name(n->op);
        if (!ty_is_complex(n->type))
            return NULL;
        if (!name) {
            error_at(n->loc, "operator '%s' is not supported on %s", op_spelling[n->op],
                     ty_name(n->type));
            return "0";
        }
        return arena_printf("krt_c%s_%s(%s, %s)", name, sfx(n->type),
                            unparen(ex_as(E, n->lhs, n->type)), unparen(ex_as(E, n->rhs, n->type)));
    }
    case E_UNARY:
        if (!ty_is_complex(n->type))
            return NULL;
        if (n->op == OP_NEG)
            return arena_printf("krt_cneg_%s(%s)", sfx(n->type), unparen(ex_as(E, n->lhs, n->type)));
        if (n->op == OP_POS)
            return ex_as(E, n->lhs, n->type);
        error_at(n->loc, "unary '%s' is not supported on %s", op_spelling[n->op],
                 ty_name(n->type));
        return "0";
    case E_COMPARE: {
        if (n->args.len != 2)
            return NULL;
        Node *l = n->args.items[0], *r = n->args.items[1];
        if (!ty_is_complex(l->type))
            return NULL;
        if (n->ops[0] != OP_EQ && n->ops[0] != OP_NE) {
            error_at(n->loc, "'%s' is not supported on %s", op_spelling[n->ops[0]],
                     ty_name(l->type));
            return "false";
        }
        return arena_printf("krt_c%s_%s(%s, %s)", n->ops[0] == OP_EQ ? "eq" : "ne", sfx(l->type),
                            unparen(ex_as(E, l, l->type)), unparen(ex_as(E, r, l->type)));
    }
    case E_API:
        if (n->api && n->api->emit == EK_COMPLEX)
            return ex_complex_api(E, n);
        return NULL;
    default:
        return NULL;
    }
}
