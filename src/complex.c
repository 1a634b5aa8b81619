/*
 * complex.c - what the translator knows of complex64 and complex128 beyond
 * their rows of kernrt_types.h: the complex cases of numba's operator
 * templates (numba/cuda/typing/builtins.py: BinOp*, BinOpTrueDiv,
 * BinOpPower, UnorderedCmpOp, UnaryOp; typing/cmathdecl.py), constant
 * conversions, and imaginary literals.  The casting rules are types.c's
 * (float32 -> complex64 and float64 -> complex128 safe, with no way back;
 * complex64 -> complex128 a promotion), type.c's complex block types the
 * operations, emit_expr.c's complex block prints them through
 * runtime/kernrt_cmath.h.
 * ty_is_complex and ty_complex_part are types.c's.
 */
#include "kernc.h"

#include <string.h>

#define C1(r, x) {TY_##r, {TY_##x, -1, -1}}
#define C2(r, x, y) {TY_##r, {TY_##x, TY_##y, -1}}
#define NCASES(t) ((int)(sizeof t / sizeof t[0]))

static const Case cases_arith[] = {C2(COMPLEX64, COMPLEX64, COMPLEX64),
                                   C2(COMPLEX128, COMPLEX128, COMPLEX128)};
static const Case cases_cmp[] = {C2(BOOL, COMPLEX64, COMPLEX64),
                                 C2(BOOL, COMPLEX128, COMPLEX128)};
static const Case cases_unary[] = {C1(COMPLEX64, COMPLEX64), C1(COMPLEX128, COMPLEX128)};
static const Case cases_pred[] = {C1(BOOL, COMPLEX64), C1(BOOL, COMPLEX128)};

const CaseList tr_cx_arith = {cases_arith, NCASES(cases_arith)},
               tr_cx_cmp = {cases_cmp, NCASES(cases_cmp)},
               tr_cx_unary = {cases_unary, NCASES(cases_unary)},
               tr_cx_pred = {cases_pred, NCASES(cases_pred)};

Node *cx_const_convert(Node *k, Type *t)
{
    Type *from = k->type;
    double re, im = 0;
    Node *n = node_new(E_CONST, k->loc);
    n->type = t;
    if (t->kind == TY_BOOL) {   /* complex_as_bool: either part nonzero (NaN too) */
        n->ival = k->fval != 0 || k->fimag != 0;
        return n;
    }
    if (!ty_is_complex(t))
        return NULL;            /* complex -> real: numba has no such cast */
    if (ty_is_complex(from)) {
        re = k->fval;
        im = k->fimag;
    } else if (ty_is_float(from)) {
        re = k->fval;
    } else if (ty_is_signed(from)) {
        re = (double)(int64_t)k->ival;
    } else {
        re = (double)k->ival;
    }
    n->fval = t->kind == TY_COMPLEX64 ? (double)(float)re : re;
    n->fimag = t->kind == TY_COMPLEX64 ? (double)(float)im : im;
    return n;
}

bool ast_is_imag(const Node *e)
{
    if (e->kind != E_FLOAT || !e->text)
        return false;
    size_t n = strlen(e->text);
    return n > 0 && (e->text[n - 1] == 'j' || e->text[n - 1] == 'J');
}
