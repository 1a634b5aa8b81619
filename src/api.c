/*
 * api.c - the device API table, built from the X-macro rows of api.def,
 * and its lookup by path.
 *
 * resolve.c and type.c look up a dotted path ("cuda.atomic.add", "math.pi",
 * "abs", a type name) after canonicalising the user's spelling (import
 * aliases, numba./np. prefixes); type.c types a use by the row's rule,
 * check.c and tree.c read its flags, emit_*.c print it by its emission
 * kind with its spellings.
 */
#include "kernc.h"

#include <string.h>

const ApiEntry api_table[API__COUNT] = {
#define API(id, path, kind, nargs_min, nargs_max, cls, flags, rule, emit, cuda, cpu) \
    {API_##id, path, kind, nargs_min, nargs_max, cls, flags, rule, emit, cuda, cpu},
#include "api.def"
#undef API
};

/* Open addressing over a power of two at least twice the rows, built on
 * the first lookup: every path is looked up once per use in a kernel, so a
 * scan would make the translator quadratic in the size of its input. */
#define API_SLOTS 1024
_Static_assert(API_SLOTS >= 2 * API__COUNT, "api.c: grow API_SLOTS");

const ApiEntry *api_lookup(const char *path)
{
    static const ApiEntry *slots[API_SLOTS];
    static bool built;
    if (!built) {
        for (int i = 0; i < API__COUNT; i++) {
            uint32_t h = (uint32_t)str_hash_z(api_table[i].path) & (API_SLOTS - 1);
            while (slots[h])
                h = (h + 1) & (API_SLOTS - 1);
            slots[h] = &api_table[i];
        }
        built = true;
    }
    for (uint32_t h = (uint32_t)str_hash_z(path) & (API_SLOTS - 1); slots[h]; h = (h + 1) & (API_SLOTS - 1))
        if (strcmp(slots[h]->path, path) == 0)
            return slots[h];
    return NULL;
}

void api_suggest(Suggest *s, const char *prefix)
{
    size_t n = strlen(prefix);
    for (int i = 0; i < API__COUNT; i++) {
        const char *path = api_table[i].path, *rest;
        if (n == 0)
            rest = path;
        else if (strncmp(path, prefix, n) == 0 && path[n] == '.')
            rest = path + n + 1;
        else
            continue;
        if (!strchr(rest, '.'))
            suggest_add(s, rest);
    }
}
