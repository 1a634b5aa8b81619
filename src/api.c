/*
 * api.c - the device API table, built from the X-macro rows of api.def.
 *
 * resolve.c and type.c look up a dotted path ("cuda.atomic.add", "math.pi",
 * "abs", a type name) after canonicalising the user's spelling (import
 * aliases, numba./np. prefixes); type.c gives each row its typing rule by
 * ApiId and emit_*.c spells it with the last two columns.
 */
#include "kernc.h"

#include <string.h>

const ApiEntry api_table[API__COUNT] = {
#define API(id, path, kind, nargs_min, nargs_max, cuda, cpu) \
    {API_##id, path, kind, nargs_min, nargs_max, cuda, cpu},
#include "api.def"
#undef API
};

/* A linear scan: the table has about a hundred rows and each path is
 * looked up once per use in a kernel, far from the translator's hot loop. */
const ApiEntry *api_lookup(const char *path)
{
    for (int i = 0; i < API__COUNT; i++)
        if (strcmp(api_table[i].path, path) == 0)
            return &api_table[i];
    return NULL;
}
