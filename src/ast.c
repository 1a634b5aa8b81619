/*
 * ast.c - construction, copying and printing of the AST of kernc.h.
 *
 * The parser builds nodes with node_new/nl_push and bounds the depth of
 * what it built with ast_check_depth; type.c clones a function's tree with
 * node_clone (without recursion) once per specialisation before lowering it
 * in place; node_walk and node_each_slot are the one visitor of the tree,
 * for every pass that needs all the nodes below one; ast_dump prints any
 * tree (parsed or lowered) as a stable S-expression with the line:col of
 * every node, which the parser tests compare (--dump-ast).
 */
#include "kernc.h"

#include <stdlib.h>
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
    Node *n = node_alloc(sizeof *n);
    n->kind = kind;
    n->loc = loc;
    return n;
}

void nl_push(NodeList *l, Node *n)
{
    if (l->len == l->cap) {
        int cap = l->cap ? l->cap * 2 : 4;
        Node **items = node_alloc(sizeof *items * (size_t)cap);
        if (l->len)
            memcpy(items, l->items, sizeof *items * (size_t)l->len);
        l->items = items;
        l->cap = cap;
    }
    l->items[l->len++] = n;
}

/* ---- walking and copying without recursion ----
 *
 * Parsed trees can be as deep as the input makes them (a 100,000-term
 * `a and b and ...` chain is a left spine of 100,000 nodes), so the two
 * walks here keep their own stack instead of the C stack.  Every child of a
 * node is one of the slots listed by node_slots: the three single children
 * and the node lists.  ast_check_depth then bounds the depth, so the later
 * passes, which recurse, stay well inside an 8 MB stack. */

enum { NSLOT_NODES = 3, NSLOT_LISTS = 7 };

static Node **node_slot(Node *n, int i)
{
    return i == 0 ? &n->lhs : i == 1 ? &n->rhs : &n->cond;
}

static NodeList *list_slot(Node *n, int i)
{
    NodeList *lists[NSLOT_LISTS] = {&n->args, &n->kwargs, &n->body, &n->orelse,
                                    &n->params, &n->decorators, &n->names};
    return lists[i];
}

/* A growable stack of work items, malloc'd: it is freed on every return. */
typedef struct Work {
    const Node *src;
    Node **dst;            /* node_clone: where the copy goes */
    int height;            /* ast_check_depth: the tallest child so far */
    int slot, item;        /* ast_check_depth: the next child to visit */
} Work;

typedef struct WorkStack {
    Work *items;
    size_t len, cap;
} WorkStack;

static Work *work_push(WorkStack *w, const Node *src, Node **dst)
{
    if (w->len == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 64;
        Work *items = realloc(w->items, sizeof *items * cap);
        if (!items)
            die("out of memory (%zu work items)", cap);
        w->items = items;
        w->cap = cap;
    }
    Work *it = &w->items[w->len++];
    *it = (Work){src, dst, 0, 0, 0};
    return it;
}

/* Strings are immutable arena strings and are shared; the semantic links
 * (type, var, api, callee) are copied as they are, since they point to
 * program-wide objects rather than into the tree.  Recursive: only trees
 * ast_check_depth has bounded are cloned (type.c, fold.c). */
static Node *clone_rec(const Node *src)
{
    Node *c = node_alloc(sizeof *c);
    *c = *src;
    for (int i = 0; i < NSLOT_NODES; i++) {
        Node **slot = node_slot(c, i);
        if (*slot)
            *slot = clone_rec(*slot);
    }
    for (int i = 0; i < NSLOT_LISTS; i++) {
        NodeList *l = list_slot(c, i);
        if (!l->len) {
            *l = (NodeList){0};
            continue;
        }
        Node **items = node_alloc(sizeof *items * (size_t)l->len);
        for (int j = 0; j < l->len; j++)
            items[j] = l->items[j] ? clone_rec(l->items[j]) : NULL;
        l->items = items;
        l->cap = l->len;
    }
    if (src->ops) {
        int nops = src->args.len > 1 ? src->args.len - 1 : 0;
        c->ops = node_alloc(sizeof *c->ops * (size_t)(nops ? nops : 1));
        memcpy(c->ops, src->ops, sizeof *c->ops * (size_t)nops);
    }
    return c;
}

Node *node_clone(const Node *n)
{
    return n ? clone_rec(n) : NULL;
}

/* The next child of it->src in slot order (single children, then list
 * items), NULL children skipped; NULL after the last. */
static const Node *next_child(Work *it)
{
    Node *m = (Node *)it->src;   /* the slots are only read */
    while (it->slot < NSLOT_NODES + NSLOT_LISTS) {
        if (it->slot < NSLOT_NODES) {
            const Node *c = *node_slot(m, it->slot++);
            if (c)
                return c;
            continue;
        }
        const NodeList *l = list_slot(m, it->slot - NSLOT_NODES);
        if (it->item < l->len) {
            const Node *c = l->items[it->item++];
            if (c)
                return c;
            continue;
        }
        it->slot++;
        it->item = 0;
    }
    return NULL;
}

/* The height of the tree (a leaf is 1), computed bottom-up; the first node
 * found whose height passes `limit` is reported through *where, the
 * smallest subtree that is too deep. */
/* The common case first: recursion that gives up below `limit` levels (so
 * it never goes deeper than that) and says whether the tree is shallower. */
static bool shallow(const Node *n, int room, NodeVisitFn *fn, void *ctx)
{
    int own = n->kind == E_COMPARE && n->args.len > 1 ? n->args.len - 1 : 1;
    if ((room -= own) < 0)
        return false;
    if (fn)
        fn(n, ctx);
#define X_(f)                                                                \
    if (n->f && !shallow(n->f, room, fn, ctx))                               \
        return false;
#define L_(f)                                                                \
    for (int i = 0; i < n->f.len; i++)                                       \
        if (n->f.items[i] && !shallow(n->f.items[i], room, fn, ctx))         \
            return false;
    NODE_CHILDREN(X_, L_)
#undef X_
#undef L_
    return true;
}

bool ast_check_depth(const Node *root, int limit, const Node **where)
{
    return ast_check_depth_visit(root, limit, where, NULL, NULL);
}

bool ast_check_depth_visit(const Node *root, int limit, const Node **where, NodeVisitFn *fn,
                           void *ctx)
{
    if (!root || shallow(root, limit, fn, ctx))
        return true;
    WorkStack w = {0};
    bool ok = true;
    if (root)
        work_push(&w, root, NULL);
    while (w.len && ok) {
        Work *it = &w.items[w.len - 1];
        const Node *child = next_child(it);
        if (child) {
            work_push(&w, child, NULL);
            continue;
        }
        /* a < b < c ... is lowered into one nested test per operator */
        int own = it->src->kind == E_COMPARE && it->src->args.len > 1 ? it->src->args.len - 1 : 1;
        int height = it->height + own;
        if (height > limit) {
            *where = it->src;
            ok = false;
        }
        w.len--;
        if (w.len && w.items[w.len - 1].height < height)
            w.items[w.len - 1].height = height;
    }
    free(w.items);
    return ok;
}

/* ---- the visitor ---- */

/* n is not NULL: NULL children are skipped before the call (most single
 * slots are empty, and the walks visit millions of nodes) */
static bool walk_rec(const Node *n, NodeVisitFn *fn, void *ctx)
{
    Visit v = fn(n, ctx);
    if (v != VISIT_CHILDREN)
        return v == VISIT_STOP;
#define X_(f)                                                                \
    if (n->f && walk_rec(n->f, fn, ctx))                                     \
        return true;
#define L_(f)                                                                \
    for (int i = 0; i < n->f.len; i++)                                       \
        if (n->f.items[i] && walk_rec(n->f.items[i], fn, ctx))               \
            return true;
    NODE_CHILDREN(X_, L_)
#undef X_
#undef L_
    return false;
}

bool node_walk(const Node *n, NodeVisitFn *fn, void *ctx)
{
    return n ? walk_rec(n, fn, ctx) : false;
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
    case E_STRIDE:
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
