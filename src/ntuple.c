/*
 * ntuple.c - issue 9 (arr): named tuples, collections.namedtuple as
 * numba-cuda 0.30 has them.
 *
 *   Point = namedtuple("Point", ["x", "y"])     (module level: resolve.c)
 *   p = Point(1, 2.5)  /  Point(x=1, y=2.5)     (a NamedTuple of the
 *                                                arguments' types)
 *   p.x, p[1], x, y = p, for v in p, f(p), return p
 *
 * The class (the module-level name) is a GLOBAL_NTUPLE: its name and
 * fields.  A value is a TY_TUPLE with the class name and field names
 * (types.c: ty_ntuple), so everything tuples do (indexing, unpacking,
 * iteration, device-function arguments and results, kernel parameters,
 * `kernc run`'s tuple literals) works unchanged; its C struct is the plain
 * tuple's.  Typing (numba's): numba's NamedUniTuple when the fields have
 * one type, else NamedTuple; two named tuples unify only within a class.
 */
#include "type_impl.h"

#include <string.h>

/* the field names of a namedtuple() call's second argument: a list or
 * tuple of strings, or one string of names separated by spaces/commas */
static Node *ntuple_fields(Node *a)
{
    Node *list = node_new(E_TUPLE, a->loc);
    if (a->kind == E_STR) {
        const char *s = a->text;
        while (*s) {
            while (*s == ' ' || *s == ',')
                s++;
            const char *b = s;
            while (*s && *s != ' ' && *s != ',')
                s++;
            if (s > b) {
                Node *f = node_new(E_STR, a->loc);
                f->text = arena_strndup(b, (size_t)(s - b));
                nl_push(&list->args, f);
            }
        }
        return list;
    }
    if (a->kind != E_LIST && a->kind != E_TUPLE)
        return NULL;
    for (int i = 0; i < a->args.len; i++) {
        Node *f = a->args.items[i];
        if (f->kind != E_STR)
            return NULL;
        nl_push(&list->args, f);
    }
    return list;
}

static bool is_ident(const char *s)
{
    if (!*s || (*s >= '0' && *s <= '9'))
        return false;
    for (; *s; s++)
        if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
              (*s >= '0' && *s <= '9')))
            return false;
    return true;
}

/* NAME = namedtuple(...) or collections.namedtuple(...): true when rhs is
 * such a call (bound, or reported). */
bool ntuple_module_assign(const char *name, Node *rhs)
{
    if (rhs->kind != E_CALL)
        return false;
    const char *p = NULL;
    Node *f = rhs->lhs;
    if (f->kind == E_NAME) {
        const Global *g = sema_global(f->name);
        p = g && g->kind == GLOBAL_PATH ? g->path : NULL;
    } else if (f->kind == E_ATTR && f->lhs->kind == E_NAME && strcmp(f->name, "namedtuple") == 0) {
        const Global *g = sema_global(f->lhs->name);
        p = g && g->kind == GLOBAL_PATH && strcmp(g->path, "collections") == 0
                ? "collections.namedtuple" : NULL;
    }
    if (!p || strcmp(p, "collections.namedtuple") != 0)
        return false;
    if (rhs->kwargs.len) {
        sema_error(((Node *)rhs->kwargs.items[0])->loc, "namedtuple() options (defaults, "
                   "rename, module) are not supported");
        return true;
    }
    if (rhs->args.len != 2 || ((Node *)rhs->args.items[0])->kind != E_STR) {
        sema_error(rhs->loc, "namedtuple() takes a name and the field names here: "
                   "namedtuple(\"Point\", [\"x\", \"y\"])");
        return true;
    }
    Node *fields = ntuple_fields(rhs->args.items[1]);
    if (!fields || fields->args.len == 0) {
        sema_error(((Node *)rhs->args.items[1])->loc, "the fields of namedtuple() must be a "
                   "list of names or a string of them");
        return true;
    }
    for (int i = 0; i < fields->args.len; i++) {
        const char *fn = ((Node *)fields->args.items[i])->text;
        bool dup = false;
        for (int j = 0; j < i; j++)
            dup |= strcmp(((Node *)fields->args.items[j])->text, fn) == 0;
        if (!is_ident(fn) || fn[0] == '_' || dup) {
            sema_error(((Node *)rhs->args.items[1])->loc, "namedtuple() field name '%s' is %s",
                       fn, dup ? "repeated" : "not valid");
            return true;
        }
    }
    Global *g = sema_bind(GLOBAL_NTUPLE, name);
    g->path = ((Node *)rhs->args.items[0])->text;
    g->value = fields;
    return true;
}

/* P(a, b) / P(x=a, y=b): the named tuple of the arguments' types */
Node *ntuple_construct(Ctx *c, Node *e, const Global *g)
{
    int n = g->value->args.len;
    const char **names = arena_alloc(sizeof *names * (size_t)n);
    for (int i = 0; i < n; i++)
        names[i] = ((Node *)g->value->args.items[i])->text;
    Node **arg = arena_alloc(sizeof *arg * (size_t)n);
    if (e->args.len > n)
        return fail(c, e->loc, "%s() takes %d argument%s (%d given)", g->path, n,
                    n == 1 ? "" : "s", e->args.len);
    for (int i = 0; i < e->args.len; i++)
        arg[i] = e->args.items[i];
    for (int k = 0; k < e->kwargs.len; k++) {
        Node *kw = e->kwargs.items[k];
        int i = 0;
        while (i < n && strcmp(names[i], kw->name) != 0)
            i++;
        if (i == n)
            return fail(c, kw->loc, "%s() has no field '%s'", g->path, kw->name);
        if (arg[i])
            return fail(c, kw->loc, "%s() got field '%s' twice", g->path, kw->name);
        arg[i] = kw->lhs;
    }
    for (int i = 0; i < n; i++)
        if (!arg[i])
            return fail(c, e->loc, "%s() is missing field '%s'", g->path, names[i]);
    Node *t = node_new(E_TUPLE, e->loc);
    Type **el = arena_alloc(sizeof *el * (size_t)n);
    Node *bad = NULL;
    for (int i = 0; i < n; i++) {
        Node *v = lx(c, arg[i]);
        if (BAD(v)) {
            bad = !bad || v->type == ty_error ? v : bad;
            continue;
        }
        if (!ty_is_scalar(v->type) && v->type->kind != TY_TUPLE && v->type->kind != TY_VECTOR &&
            v->type->kind != TY_RECORD)
            return fail(c, v->loc, "a named tuple of %s is not supported", ty_name(v->type));
        nl_push(&t->args, v);
        el[i] = v->type;
    }
    if (bad)
        return poison(e->loc, bad, NULL);
    t->type = ty_ntuple(el, n, g->path, names);
    return t;
}

/* p.NAME of a named tuple value */
Node *ntuple_attr(Ctx *c, Node *e, Node *base)
{
    const Type *t = base->type;
    for (int i = 0; i < t->nelems; i++)
        if (strcmp(t->fnames[i], e->name) == 0)
            return tree_tupleget(base, i);
    StrBuf b = {0};
    for (int i = 0; i < t->nelems; i++)
        sb_printf(&b, "%s%s", i ? ", " : "", t->fnames[i]);
    return fail(c, e->loc, "%s has no field '%s' (its fields: %s)", t->tname, e->name,
                sb_take(&b));
}

/* ---- Enums (issue 9, arr) ----
 * class Color(Enum): red = 1 ... and class Shape(IntEnum): ... at module
 * level (`from enum import Enum, IntEnum`, `import enum`), as numba-cuda
 * 0.30's enumimpl types them: an IntEnum member is numba's
 * IntEnumMember(cls, int64), which converts to int64 wherever an integer
 * is wanted: it is the int64 constant here.  An Enum member is
 * EnumMember(cls, dtype): compared (== != is) with members of its own
 * class only, .value its value (any constant of one type: ints, floats,
 * tuples of them), held in variables, passed to and returned from device
 * functions; here a one-field named tuple of class `cls` marked as an enum
 * (Type.is_enum), so the value's struct carries it.  Color["red"] is
 * Color.red; .name (a string) is refused. */

static bool enum_base(const Node *b, bool *is_int)
{
    const char *p = NULL;
    if (b->kind == E_NAME) {
        const Global *g = sema_global(b->name);
        p = g && g->kind == GLOBAL_PATH ? g->path : NULL;
    } else if (b->kind == E_ATTR && b->lhs->kind == E_NAME) {
        const Global *g = sema_global(b->lhs->name);
        if (g && g->kind == GLOBAL_PATH && strcmp(g->path, "enum") == 0)
            p = arena_printf("enum.%s", b->name);
    }
    if (!p)
        return false;
    *is_int = strcmp(p, "enum.IntEnum") == 0;
    return *is_int || strcmp(p, "enum.Enum") == 0;
}

bool enum_class_def(const Node *s)
{
    bool is_int = false;
    if (s->args.len != 1 || s->kwargs.len || !enum_base(s->args.items[0], &is_int))
        return false;
    if (s->decorators.len) {
        sema_error(s->loc, "decorated enum classes are not supported");
        return true;
    }
    Node *members = node_new(E_TUPLE, s->loc);
    Type *vt = NULL;
    for (int i = 0; i < s->body.len; i++) {
        const Node *t = s->body.items[i];
        if (t->kind == S_PASS || t->kind == S_NOP || (t->kind == S_EXPR && t->lhs->kind == E_STR))
            continue;
        if (t->kind != S_ASSIGN || t->args.len != 1 ||
            ((Node *)t->args.items[0])->kind != E_NAME) {
            sema_error(t->loc, "an enum class body holds `NAME = constant` members only");
            return true;
        }
        const char *why;
        Loc why_loc;
        Node *k = sema_fold_why(t->rhs, &why, &why_loc);
        if (!k) {
            sema_error(why_loc, "enum member '%s' must be a compile-time constant: %s",
                       ((Node *)t->args.items[0])->name, why);
            return true;
        }
        if (is_int && (!k->type || !ty_is_int(k->type))) {
            sema_error(t->rhs->loc, "an IntEnum member must be an integer");
            return true;
        }
        if (vt && k->type != vt) {   /* numba-cuda: one dtype (HeterogeneousEnum fails) */
            sema_error(t->rhs->loc, "the members of enum '%s' have different types (%s and %s), "
                       "which numba-cuda 0.30 cannot type", s->name, ty_name(vt),
                       ty_name(k->type));
            return true;
        }
        vt = k->type;
        Node *pair = node_new(E_TUPLE, t->loc);
        Node *nm = node_new(E_STR, t->loc);
        nm->text = ((Node *)t->args.items[0])->name;
        nl_push(&pair->args, nm);
        nl_push(&pair->args, k);
        nl_push(&members->args, pair);
    }
    if (!vt) {
        sema_error(s->loc, "enum '%s' has no members", s->name);
        return true;
    }
    Global *g = sema_bind(GLOBAL_ENUM, s->name);
    g->path = s->name;
    g->value = members;
    if (is_int) {
        g->type = ty_int64;
    } else {
        static const char *const value_field[] = {"value"};
        Type *el[1] = {vt};
        Type *t = ty_ntuple(el, 1, s->name, value_field);
        t->is_enum = true;
        g->type = t;
    }
    return true;
}

/* The member NAME of enum g at loc, or NULL (reported) */
static Node *enum_member(Ctx *c, const Global *g, const char *name, Loc loc)
{
    for (int i = 0; i < g->value->args.len; i++) {
        Node *pair = g->value->args.items[i];
        if (strcmp(((Node *)pair->args.items[0])->text, name) != 0)
            continue;
        Node *k = node_clone(pair->args.items[1]);
        k->loc = loc;
        if (g->type == ty_int64)
            return tree_cast(k, ty_int64);
        Node *t = node_new(E_TUPLE, loc);
        nl_push(&t->args, k);
        t->type = g->type;
        return t;
    }
    return fail(c, loc, "enum '%s' has no member '%s'", g->path, name);
}

/* Color.red (e an E_ATTR of the class's name), Color["red"] (an
 * E_SUBSCRIPT); NULL when e is neither */
Node *enum_lower(Ctx *c, Node *e)
{
    if ((e->kind != E_ATTR && e->kind != E_SUBSCRIPT) || e->lhs->kind != E_NAME ||
        lookup_var(c, e->lhs->name))
        return NULL;
    const Global *g = sema_global(e->lhs->name);
    if (!g || g->kind != GLOBAL_ENUM)
        return NULL;
    if (e->kind == E_ATTR)
        return enum_member(c, g, e->name, e->loc);
    if (e->rhs->kind != E_STR)
        return fail(c, e->rhs->loc, "an enum is indexed by a constant member name here");
    return enum_member(c, g, e->rhs->text, e->loc);
}

/* m.value / m.name of an Enum member value */
Node *enum_attr(Ctx *c, Node *e, Node *base)
{
    if (strcmp(e->name, "value") == 0)
        return tree_tupleget(base, 0);
    if (strcmp(e->name, "name") == 0)
        return fail(c, e->loc, "the name of an enum member is a string, which kernels do "
                    "not have");
    return fail(c, e->loc, "an enum member of '%s' has no attribute '%s' here (only .value)",
                base->type->tname, e->name);
}
