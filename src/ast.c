/*
 * ast.c - construction, copying and printing of the AST of kernc.h.
 *
 * The parser builds nodes with node_new/nl_push; type.c clones a function's
 * tree with node_clone once per specialisation before lowering it in place;
 * node_walk and node_each_slot are the one visitor of the tree, for every
 * pass that needs all the nodes below one; ast_dump prints any tree (parsed
 * or lowered) as a stable S-expression with the line:col of every node,
 * which the parser tests compare (--dump-ast).
 */
#include "kernc.h"

#include <string.h>

const char *node_kind_desc[NODE__COUNT] = {
#define X_(k, d) [k] = d,
    NODE_KINDS(X_)
#undef X_
};

/* The enum spelling, for the dump: unambiguous where descriptions are not. */
static const char *node_kind_name[NODE__COUNT] = {
#define X_(k, d) [k] = #k,
    NODE_KINDS(X_)
#undef X_
};

const char *op_spelling[] = {
    [OP_NONE_] = "",
#define X_(k, s) [k] = s,
    OPERATORS(X_)
#undef X_
};

Node *node_new(NodeKind kind, Loc loc)
{
    Node *n = arena_alloc(sizeof *n);
    n->kind = kind;
    n->loc = loc;
    return n;
}

void nl_push(NodeList *l, Node *n)
{
    if (l->len == l->cap) {
        int cap = l->cap ? l->cap * 2 : 4;
        Node **items = arena_alloc(sizeof *items * (size_t)cap);
        if (l->len)
            memcpy(items, l->items, sizeof *items * (size_t)l->len);
        l->items = items;
        l->cap = cap;
    }
    l->items[l->len++] = n;
}

static void clone_list(NodeList *dst, const NodeList *src)
{
    *dst = (NodeList){0};
    for (int i = 0; i < src->len; i++)
        nl_push(dst, node_clone(src->items[i]));
}

/* Strings are immutable arena strings and are shared; the semantic links
 * (type, var, api, callee) are copied as they are, since they point to
 * program-wide objects rather than into the tree. */
Node *node_clone(const Node *n)
{
    if (!n)
        return NULL;
    Node *c = arena_alloc(sizeof *c);
    *c = *n;
    c->lhs = node_clone(n->lhs);
    c->rhs = node_clone(n->rhs);
    c->cond = node_clone(n->cond);
    clone_list(&c->args, &n->args);
    clone_list(&c->kwargs, &n->kwargs);
    clone_list(&c->body, &n->body);
    clone_list(&c->orelse, &n->orelse);
    clone_list(&c->params, &n->params);
    clone_list(&c->decorators, &n->decorators);
    clone_list(&c->names, &n->names);
    if (n->ops) {
        int nops = n->args.len > 1 ? n->args.len - 1 : 0;
        c->ops = arena_alloc(sizeof *c->ops * (size_t)(nops ? nops : 1));
        memcpy(c->ops, n->ops, sizeof *c->ops * (size_t)nops);
    }
    return c;
}

/* ---- the visitor ---- */

bool node_walk(const Node *n, NodeVisitFn *fn, void *ctx)
{
    if (!n)
        return false;
    Visit v = fn(n, ctx);
    if (v != VISIT_CHILDREN)
        return v == VISIT_STOP;
#define X_(f)                                                                \
    if (node_walk(n->f, fn, ctx))                                            \
        return true;
#define L_(f)                                                                \
    for (int i = 0; i < n->f.len; i++)                                       \
        if (node_walk(n->f.items[i], fn, ctx))                               \
            return true;
    NODE_CHILDREN(X_, L_)
#undef X_
#undef L_
    return false;
}

void node_each_slot(Node *n, NodeSlotFn *fn, void *ctx)
{
#define X_(f)                                                                \
    if (n->f)                                                                \
        fn(&n->f, ctx);
#define L_(f)                                                                \
    for (int i = 0; i < n->f.len; i++)                                       \
        fn(&n->f.items[i], ctx);
    NODE_CHILDREN(X_, L_)
#undef X_
#undef L_
}

/* ---- dump ---- */

static void dump_quoted(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\t': fputs("\\t", out); break;
        case '\r': fputs("\\r", out); break;
        default:
            if (c < 0x20 || c == 0x7f)
                fprintf(out, "\\x%02x", c);
            else
                fputc(c, out);
        }
    }
    fputc('"', out);
}

static void dump_node(FILE *out, const Node *n, int indent);

static void dump_child(FILE *out, const char *label, const Node *n, int indent)
{
    if (!n)
        return;
    fprintf(out, "\n%*s%s: ", indent, "", label);
    dump_node(out, n, indent);
}

static void dump_list(FILE *out, const char *label, const NodeList *l, int indent)
{
    if (!l->len)
        return;
    fprintf(out, "\n%*s%s:", indent, "", label);
    for (int i = 0; i < l->len; i++) {
        fprintf(out, "\n%*s", indent + 2, "");
        dump_node(out, l->items[i], indent + 2);
    }
}

/* (KIND @line:col attributes
 *   field: (child ...)
 *   list:
 *     (item ...)) */
static void dump_node(FILE *out, const Node *n, int indent)
{
    if (!n) {
        fputs("(null)", out);
        return;
    }
    fprintf(out, "(%s @%d:%d", node_kind_name[n->kind], n->loc.first_line, n->loc.first_column);
    if (n->op != OP_NONE_)
        fprintf(out, " op=\"%s\"", op_spelling[n->op]);
    if (n->name) {
        fputs(" name=", out);
        dump_quoted(out, n->name);
    }
    if (n->text) {
        fputs(" text=", out);
        dump_quoted(out, n->text);
    }
    switch (n->kind) {
    case E_INT:
    case E_BOOL:
    case E_SHAPE:
    case E_TUPLEGET:
        fprintf(out, " ival=%llu", (unsigned long long)n->ival);
        break;
    case E_FLOAT:
        fprintf(out, " fval=%.17g", n->fval);
        break;
    case E_CONST:
        if (n->type && ty_is_float(n->type))
            fprintf(out, " fval=%.17g", n->fval);
        else
            fprintf(out, " ival=%llu", (unsigned long long)n->ival);
        break;
    default:
        break;
    }
    if (n->kind == E_COMPARE && n->ops) {
        fputs(" ops=[", out);
        for (int i = 0; i + 1 < n->args.len; i++)
            fprintf(out, "%s\"%s\"", i ? " " : "", op_spelling[n->ops[i]]);
        fputc(']', out);
    }
    if (n->type)
        fprintf(out, " type=%s", ty_name(n->type));
    if (n->var)
        fprintf(out, " var=%s", n->var->name);
    if (n->api)
        fprintf(out, " api=%s", n->api->path);
    if (n->callee)
        fprintf(out, " callee=%s", n->callee->cname ? n->callee->cname : n->callee->name);

    int in = indent + 2;
    dump_list(out, "decorators", &n->decorators, in);
    dump_list(out, "params", &n->params, in);
    dump_list(out, "names", &n->names, in);
    dump_child(out, "cond", n->cond, in);
    dump_child(out, "lhs", n->lhs, in);
    dump_list(out, "args", &n->args, in);
    dump_list(out, "kwargs", &n->kwargs, in);
    dump_child(out, "rhs", n->rhs, in);
    dump_list(out, "body", &n->body, in);
    dump_list(out, "orelse", &n->orelse, in);
    fputc(')', out);
}

void ast_dump(FILE *out, const Node *n, int indent)
{
    fprintf(out, "%*s", indent, "");
    dump_node(out, n, indent);
    fputc('\n', out);
}
