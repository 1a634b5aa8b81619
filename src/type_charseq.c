/*
 * type_charseq.c - typing of char sequences (src/charseq.c): what
 * compiled numba-cuda 0.30 does with CharSeq ('S<n>') and UnicodeCharSeq
 * ('<U<n>') array elements and record fields, and a clear error where it
 * refuses them.
 *
 * Stores (numba's setitem and lower_cast, charseq.py): a str constant into
 * a UnicodeCharSeq, a bytes constant into a CharSeq (truncated to the width,
 * zero-padded); a[i] = b[j], r['y'] = a[i], x = a[i]: copies of a value of
 * the same type.  numba-cuda refuses a str into a CharSeq and a bytes into a
 * UnicodeCharSeq (no setitem matches), a copy between widths or kinds
 * ("Cannot cast [unichr x 4] to [unichr x 12]"), and a str constant set as
 * an attribute (r.y = 'ABC': "Cannot cast Literal[str] to [unichr x 12]",
 * where r['y'] = 'ABC' works).
 */
#include "type_impl.h"

#include <string.h>

/* The constant str (a str or bytes literal; the parser joins adjacent ones) stored
 * into a char sequence of type t: an E_CONST of type t. */
Node *charseq_const(Loc loc, const Node *str, Type *t)
{
    StrBuf b = {0};
    sb_puts(&b, "");
    size_t len = (size_t)str->ival;
    for (size_t i = 0; i < len; i++)
        sb_putc(&b, str->text[i]);
    Node *k = node_new(E_CONST, loc);
    k->type = t;
    k->ival = b.len;
    k->text = arena_strndup(b.s, b.len);
    sb_free(&b);
    return k;
}

static const char *kind_word(const Type *t)
{
    return charseq_unicode(t) ? "UnicodeCharSeq" : "CharSeq";
}

/* A value v stored into a char sequence of type t (an element, a field, a
 * variable): false, with the error reported, where numba-cuda refuses it. */
bool charseq_check_store(Ctx *c, const Type *t, Node *v)
{
    if (v->type == t)
        return true;
    if (ty_is_charseq(v->type) && charseq_unicode(v->type) == charseq_unicode(t))
        fail(c, v->loc, "cannot store %s into %s: numba-cuda copies only a %s of the same "
             "width (Cannot cast %s to %s)", ty_name(v->type), ty_name(t), kind_word(t),
             ty_name(v->type), ty_name(t));
    else
        fail(c, v->loc, "cannot store %s into %s", ty_name(v->type), ty_name(t));
    return false;
}

/* target = 'text' or b'text' (rhs an E_STR, not lowered): true if the
 * statement was handled here (a store, or an error reported). */
bool charseq_assign_const(Ctx *c, Node *target, Node *rhs, NodeList *out)
{
    Node *t = NULL;
    bool attr = false;
    if (target->kind == E_SUBSCRIPT) {
        t = lower_index(c, target);
    } else if (target->kind == E_ATTR) {
        if (expr_path(c, target->lhs))
            return false;
        Node *base = lx(c, target->lhs);
        if (BAD(base))
            return true;
        if (base->type->kind != TY_RECORD)
            return false;
        t = record_attr(c, target, base);
        attr = true;
    } else {
        return false;
    }
    if (BAD(t))
        return true;
    bool bytes = rhs->name && rhs->name[0] == 'b';
    const char *what = bytes ? "a bytes constant" : "a str constant";
    if (!ty_is_charseq(t->type)) {
        if (t->kind == E_VIEW && ty_is_charseq(t->type->elem))   /* a[:] = 'abc' */
            fail(c, rhs->loc, "cannot store %s into a slice of %s: numba-cuda has no such "
                 "cast (Cannot cast Literal[str] to %s); store each element", what,
                 ty_name(t->type), ty_name(t->type->elem));
        else
            fail(c, rhs->loc, "strings are not supported in kernels (only as print() "
                 "arguments and assert messages)");
        return true;
    }
    if (t->kind == E_INDEX && t->lhs->type->space == SPACE_CONST) {
        fail(c, target->loc, "a constant array is read-only");
        return true;
    }
    if (bytes == charseq_unicode(t->type)) {
        fail(c, rhs->loc, "cannot store %s into %s: numba-cuda stores only %s constants "
             "into a %s", what, ty_name(t->type), bytes ? "str" : "bytes",
             kind_word(t->type));
        return true;
    }
    if (attr && !bytes) {
        fail(c, rhs->loc, "numba-cuda cannot store a str constant into a record field set "
             "as an attribute (Cannot cast Literal[str] to %s); write r['%s'] = ...",
             ty_name(t->type), target->name);
        return true;
    }
    if (!c->quiet)
        nl_push(out, tree_assign(target->loc, t, charseq_const(rhs->loc, rhs, t->type)));
    return true;
}

/* len(x): numba's charseq_len, the index of the last nonzero unit plus
 * one (NumPy's length of the value). */
Node *charseq_len(Loc loc, Node *x)
{
    Node *n = node_new(E_API, loc);
    n->api = &api_table[API_CS_LEN];
    n->type = ty_int64;
    nl_push(&n->args, x);
    return n;
}

/* The truth of x (`if a[i]:`, `not a[i]`): numba's len(x) != 0. */
Node *charseq_truth(Loc loc, Node *x)
{
    Node *n = node_new(E_COMPARE, loc);
    n->ops = arena_alloc(sizeof *n->ops);
    n->ops[0] = OP_NE;
    nl_push(&n->args, charseq_len(loc, x));
    nl_push(&n->args, tree_int(loc, ty_int64, 0));
    n->type = ty_bool;
    return n;
}

/* An operand in a message: a constant as numba's Literal, else its type. */
static const char *operand_name(const Node *x)
{
    if (x->kind == E_CONST && ty_is_charseq(x->type))
        return charseq_unicode(x->type) ? "a str constant" : "a bytes constant";
    return ty_name(x->type);
}

/* a OP b of two char sequences (a constant is an E_CONST of its own
 * width): numba's charseq_eq / ne / lt / gt / le / ge, which compare the
 * codes up to the shorter length and then the lengths, as krt_cs_cmp's
 * sign; NULL when neither operand is a char sequence. */
Node *charseq_compare(Ctx *c, Loc loc, Op op, Node *a, Node *b)
{
    if (!ty_is_charseq(a->type) && !ty_is_charseq(b->type))
        return NULL;
    const char *an = operand_name(a), *bn = operand_name(b);
    if (!ty_is_charseq(a->type) || !ty_is_charseq(b->type) ||
        charseq_unicode(a->type) != charseq_unicode(b->type))
        return fail(c, loc, "'%s' of %s and %s is not supported (numba-cuda compares a "
                    "CharSeq with bytes and a UnicodeCharSeq with str)", op_spelling[op], an, bn);
    if (op == OP_IN || op == OP_NOTIN)
        return fail(c, loc, "'%s' of %s and %s is not supported (numba-cuda makes a str on "
                    "the heap for it, which its CUDA target cannot)", op_spelling[op], an, bn);
    if (op != OP_EQ && op != OP_NE && op != OP_LT && op != OP_LE && op != OP_GT && op != OP_GE)
        return fail(c, loc, "the '%s' operator is not supported on char sequences",
                    op_spelling[op]);
    if (!tree_is_pure(a) || !tree_is_pure(b))
        return fail(c, loc, "comparing a char sequence made by a call is not supported; assign "
                    "it to a variable first");
    Node *cmp = node_new(E_API, loc);
    cmp->api = &api_table[API_CS_CMP];
    cmp->type = ty_int32;
    nl_push(&cmp->args, a);
    nl_push(&cmp->args, b);
    Node *n = node_new(E_COMPARE, loc);
    n->ops = arena_alloc(sizeof *n->ops);
    n->ops[0] = op;
    nl_push(&n->args, cmp);
    nl_push(&n->args, tree_int(loc, ty_int32, 0));
    n->type = ty_bool;
    return n;
}

/* A comparison of two operands of which one is a str or bytes literal
 * (not lowered): the literal as an E_CONST of its own width when the
 * other is a char sequence; NULL otherwise (the caller reports the
 * literal). */
Node *charseq_compare_literal(Ctx *c, Node *e)
{
    Node *x = e->args.items[0], *y = e->args.items[1];
    bool first = x->kind == E_STR;
    Node *lit = first ? x : y, *other = first ? y : x;
    if (other->kind == E_STR)
        return NULL;
    Node *v = lx(c, other);
    if (BAD(v) || !ty_is_charseq(v->type))
        return NULL;
    bool bytes = lit->name && lit->name[0] == 'b';
    Type *t = ty_charseq(!bytes, charseq_units(lit, !bytes));
    Node *k = charseq_const(lit->loc, lit, t);
    return first ? charseq_compare(c, e->loc, e->ops[0], k, v)
                 : charseq_compare(c, e->loc, e->ops[0], v, k);
}
