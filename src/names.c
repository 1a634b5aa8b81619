/*
 * names.c - the module-level names of a .kern file and what they are
 * bound to (imports, constants, functions, arrays), the numba and NumPy
 * spellings of the type names, and the canonical API path of a name or
 * attribute chain (np.float32 -> float32, cuda.atomic.add).  The
 * names are found by hash: a file of many constants stays linear.
 */
#include "kernc.h"

#include <string.h>

/* name -> its latest Global, open addressing (a rebinding replaces the
 * entry: the last binding wins, as Python's module namespace). */
static Global **table;
static size_t table_cap, table_len;

static size_t slot_of(Global **t, size_t cap, const char *name)
{
    size_t i = str_hash_z(name) & (cap - 1);
    while (t[i] && strcmp(t[i]->name, name) != 0)
        i = (i + 1) & (cap - 1);
    return i;
}

void sema_names_reset(void)
{
    table = NULL;   /* arena memory, freed with the translation */
    table_cap = table_len = 0;
}

const Global *sema_global(const char *name)
{
    return table_cap ? table[slot_of(table, table_cap, name)] : NULL;
}

Global *sema_bind(GlobalKind kind, const char *name)
{
    if (2 * (table_len + 1) > table_cap) {
        size_t cap = table_cap ? 2 * table_cap : 64;
        Global **t = arena_alloc(sizeof *t * cap);
        for (size_t i = 0; i < table_cap; i++)
            if (table[i])
                t[slot_of(t, cap, table[i]->name)] = table[i];
        table = t;
        table_cap = cap;
    }
    Global *g = arena_alloc(sizeof *g);
    g->kind = kind;
    g->name = name;
    size_t i = slot_of(table, table_cap, name);
    if (!table[i])
        table_len++;
    table[i] = g;
    return g;
}

void sema_suggest_globals(Suggest *s)
{
    for (size_t i = 0; i < table_cap; i++)
        if (table[i])
            suggest_add(s, table[i]->name);
}

void sema_suggest_types(Suggest *s)
{
    for (int k = 0; k < TY_NSCALAR; k++)
        suggest_add(s, ty_scalar_info[k].name);
}

/* Whether `name` is one of the space-separated words of `list`. */
static bool is_word_of(const char *name, const char *list)
{
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, " ");
        if (len == n && strncmp(p, name, n) == 0)
            return true;
        p += len;
        p += *p == ' ';
    }
    return false;
}

/* numba and NumPy spellings of the types: a scalar type's name and aliases
 * (kernrt_types.h) give its name; bool_ is a type name of its own (API row
 * T_BOOL_, spelled so in messages), none is void. */
const char *sema_type_alias(const char *name)
{
    for (int k = 0; k < TY_NSCALAR; k++) {
        const ScalarInfo *info = &ty_scalar_info[k];
        if (strcmp(info->name, name) == 0 || is_word_of(name, info->aliases))
            return info->name;
    }
    if (strcmp(name, "bool_") == 0)
        return "bool_";
    if (strcmp(name, "void") == 0 || strcmp(name, "none") == 0)
        return "void";
    return NULL;
}

const char *sema_python_dtype(const char *name)
{
    if (strcmp(name, "float") == 0)
        return "float64";
    if (strcmp(name, "int") == 0)
        return "int64";
    if (strcmp(name, "bool") == 0)
        return "boolean";
    return name;
}

/* py (issue 9): numba/core/types/__init__.py's aliases of the C names */
const char *sema_numba_type_alias(const char *name)
{
    static const char *const tab[][2] = {
        {"bool", "bool_"}, {"byte", "uint8"}, {"uchar", "uint8"}, {"char", "int8"},
        {"short", "int16"}, {"ushort", "uint16"}, {"long_", "int64"}, {"ulong", "uint64"},
        {"longlong", "int64"}, {"ulonglong", "uint64"}, {"uint", "uint64"},
        {"ssize_t", "int64"}, {"size_t", "uint64"},
    };
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (strcmp(name, tab[i][0]) == 0)
            return sema_type_alias(tab[i][1]);
    return sema_type_alias(name);
}

Type *sema_scalar_named(const char *canon)
{
    const ApiEntry *a = canon ? api_lookup(canon) : NULL;
    if (!a || a->kind != AK_TYPE)
        return NULL;
    if (strcmp(canon, "void") == 0)
        return ty_void;
    if (strcmp(canon, "bool_") == 0)
        return ty_bool;
    return ty_scalar_named(canon);
}

/* cuda.<vector alias> -> cuda.<numba-cuda's name> (vecrec): cuda.float4 is
 * cuda.float32x4, cuda.long2 cuda.int64x2 */
const char *sema_vector_canon(const char *path)
{
    Type *v = path && strncmp(path, "cuda.", 5) == 0 ? ty_vector_named(path + 5) : NULL;
    return v ? arena_printf("cuda.%s", ty_name(v)) : path;
}

/* The canonical path of a name or attribute chain at module level (or in
 * a function, skipping its locals). */
const char *sema_path_of(const Node *e, bool (*is_local)(void *, const char *), void *ctx)
{
    if (e->kind == E_NAME) {
        if (is_local && is_local(ctx, e->name))
            return NULL;
        const Global *g = sema_global(e->name);
        if (g)
            return g->kind == GLOBAL_PATH ? sema_vector_canon(g->path) : NULL;
        const ApiEntry *a = api_lookup(e->name);
        return a && a->kind == AK_CALL ? e->name : NULL;
    }
    if (e->kind == E_ATTR) {
        const char *p = sema_path_of(e->lhs, is_local, ctx);
        if (!p)
            return NULL;
        const char *full = arena_printf("%s.%s", p, e->name);
        if (strncmp(full, "numba.", 6) == 0)
            full += 6;
        if (strncmp(full, "np.", 3) == 0 && sema_type_alias(full + 3))
            return sema_type_alias(full + 3);
        if (strncmp(full, "types.", 6) == 0 && sema_numba_type_alias(full + 6))
            return sema_numba_type_alias(full + 6);
        if (!strchr(full, '.') && sema_numba_type_alias(full))   /* numba.X */
            return sema_numba_type_alias(full);
        return sema_vector_canon(full);
    }
    return NULL;
}


/* ufunc.c: the names its generated kernels use for cuda and the types. */
void sema_bind_path(const char *name, const char *path)
{
    sema_bind(GLOBAL_PATH, name)->path = path;
}
