/*
 * record.c - records: NumPy structured dtypes as numba types them
 * (numba.from_dtype(np.dtype([...], align=...))), their layout, exactly
 * NumPy's (offsets, padding, itemsize, alignment), and their C structs.
 *
 * At module level `d = np.dtype(...)` binds a GLOBAL_DTYPE and `r =
 * from_dtype(d)` (or numba.from_dtype, numba.cuda.np.numpy_support's) a
 * GLOBAL_RECORD; both name the same interned TY_RECORD.  The dtype is
 * written in either of NumPy's forms: a list of (name, format[, shape])
 * or a dict of names/formats/offsets/itemsize; a format is a NumPy type
 * string ('<f8', '|u1', 'int32'), a type (np.float64, float32), a
 * (format, shape) pair, or another record dtype (nested).
 *
 * In kernels a record value is a reference to one in memory, as in numba:
 * r = a[i] aliases the element, r.x = v writes it.  The typed tree reads a
 * field as an E_TUPLEGET (lhs the record, ival the field) whose type is the
 * field's: a scalar, a record (nested), or for a subarray field a C
 * contiguous array ty_array(elem, ndim, true, SPACE_LOCAL) that emit_*.c
 * indexes in place.  In C a record-typed Var, parameter or result is a
 * pointer (krt_recp_NAME), every other record expression the struct lvalue.
 */
#include "kernc.h"

#include <string.h>

static PtrVec records;   /* interned by layout; reset with the types */

void record_reset(void)
{
    records = (PtrVec){0};
    charseq_reset();   /* str: interned beside them */
}

/* NumPy's alignment of a scalar (complex: of its parts). */
static int64_t scalar_align(const Type *t)
{
    if (ty_is_charseq(t))   /* str: of a unit (numba's [n x i8] / [n x i32]) */
        return ty_size(t->elem);
    const ScalarInfo *i = ty_info(t);
    return i->cls == SC_COMPLEX ? i->size / 2 : i->size;
}

int64_t record_field_size(const RecField *f)
{
    int64_t n = f->type->kind == TY_RECORD ? f->type->rec->size : ty_size(f->type);
    for (int k = 0; k < f->ndim; k++)
        n *= f->shape[k];
    return n;
}

static int64_t field_align(const RecField *f)
{
    return f->type->kind == TY_RECORD ? f->type->rec->align : scalar_align(f->type);
}

/* The alignment a field needs in C (numba's strict alignment on CUDA). */
static int64_t field_c_align(const RecField *f)
{
    return f->type->kind == TY_RECORD ? f->type->rec->c_align : scalar_align(f->type);
}

static bool same_layout(const Record *a, const Record *b)
{
    if (a->nfields != b->nfields || a->size != b->size || a->align != b->align)
        return false;
    for (int i = 0; i < a->nfields; i++) {
        const RecField *x = &a->fields[i], *y = &b->fields[i];
        if (strcmp(x->name, y->name) != 0 || x->type != y->type || x->offset != y->offset ||
            x->ndim != y->ndim)
            return false;
        for (int k = 0; k < x->ndim; k++)
            if (x->shape[k] != y->shape[k])
                return false;
    }
    return true;
}

static Type *record_intern(Record *r, const char *pyname)
{
    for (int i = 0; i < records.len; i++) {
        Type *t = records.items[i];
        if (same_layout(t->rec, r))
            return t;
    }
    r->pyname = pyname ? pyname : "record";
    /* the C struct's name: the Python name, and a number when two records
     * share it */
    int same = 0;
    for (int i = 0; i < records.len; i++)
        same += strcmp(((Type *)records.items[i])->rec->pyname, r->pyname) == 0;
    const char *id = c_ident(r->pyname);
    r->cname = same ? arena_printf("krt_rec_%s_%d", id, same) : arena_printf("krt_rec_%s", id);
    /* C can hold it as a plain struct when every field is at its natural
     * alignment and the size is a multiple of the largest */
    r->c_align = 1;
    r->packed = false;
    for (int i = 0; i < r->nfields; i++) {
        int64_t a = field_c_align(&r->fields[i]);
        r->packed |= r->fields[i].offset % a != 0 ||
                     (r->fields[i].type->kind == TY_RECORD && r->fields[i].type->rec->packed);
        if (a > r->c_align)
            r->c_align = a;
    }
    r->packed |= r->size % r->c_align != 0;
    if (r->packed)
        r->c_align = 1;
    Type *t = arena_alloc(sizeof *t);
    t->kind = TY_RECORD;
    t->rec = r;
    vec_push(&records, t);
    return t;
}

/* ---- Parsing np.dtype(...) ---- */

static Type *scalar_of_string(const char *s)
{
    if (s[0] == '<' || s[0] == '|' || s[0] == '=')
        s++;
    if (strcmp(s, "?") == 0 || strcmp(s, "b1") == 0)
        return ty_bool;
    for (int k = 0; k < TY_NSCALAR; k++) {
        const ScalarInfo *i = &ty_scalar_info[k];
        if (strcmp(i->letters, s) == 0)
            return ty_scalar[k];
    }
    const char *canon = sema_type_alias(s);
    Type *t = canon ? sema_scalar_named(canon) : NULL;
    return t && t != ty_void ? t : NULL;
}

static Type *dtype_of(Node *e, const char *pyname);

/* A format: a scalar or a record type (*t), and a subarray shape. */
static bool format_of(Node *e, Type **t, int *ndim, int64_t *shape);

static bool shape_of(Node *e, int *ndim, int64_t *shape)
{
    Node *items[4];
    int n = 0;
    if (e->kind == E_TUPLE || e->kind == E_LIST) {
        if (e->args.len > 4) {
            error_at(e->loc, "record subarray fields of more than 4 dimensions are not supported");
            return false;
        }
        for (int i = 0; i < e->args.len; i++)
            items[n++] = e->args.items[i];
    } else {
        items[n++] = e;
    }
    for (int i = 0; i < n; i++) {
        Node *k = sema_fold(items[i], false, NULL, NULL);
        if (!k || !ty_is_int(k->type) || (int64_t)k->ival < 1 || (int64_t)k->ival > (1 << 20)) {
            error_at(items[i]->loc, "a record subarray extent must be a positive integer constant");
            return false;
        }
        shape[*ndim + i] = (int64_t)k->ival;
    }
    if (*ndim + n > 4) {
        error_at(e->loc, "record subarray fields of more than 4 dimensions are not supported");
        return false;
    }
    *ndim += n;
    return true;
}

static bool format_of(Node *e, Type **t, int *ndim, int64_t *shape)
{
    if (e->kind == E_TUPLE && e->args.len == 2) {   /* (format, shape) */
        if (!format_of(e->args.items[0], t, ndim, shape))
            return false;
        /* NumPy: the pair's shape is outside the inner format's */
        int inner = *ndim;
        int64_t save[4];
        memcpy(save, shape, sizeof save);
        *ndim = 0;
        if (!shape_of(e->args.items[1], ndim, shape))
            return false;
        if (*ndim + inner > 4) {
            error_at(e->loc, "record subarray fields of more than 4 dimensions are not supported");
            return false;
        }
        for (int k = 0; k < inner; k++)
            shape[*ndim + k] = save[k];
        *ndim += inner;
        return true;
    }
    if (e->kind == E_STR) {
        bool bad;
        *t = charseq_of_format(e->text, e->loc, &bad);   /* str: 'S12', '<U12' */
        if (bad)
            return false;
        if (!*t)
            *t = scalar_of_string(e->text);
        if (!*t) {
            if (e->text[0] == '>')
                error_at(e->loc, "big-endian record fields ('%s') are not supported", e->text);
            else
                error_at(e->loc, "unknown or unsupported record field format '%s'", e->text);
            return false;
        }
        return true;
    }
    if (e->kind == E_NAME) {
        const Global *g = sema_global(e->name);
        if (g && (g->kind == GLOBAL_DTYPE || g->kind == GLOBAL_RECORD)) {
            *t = g->type;
            return true;
        }
    }
    if (e->kind == E_CALL) {
        Type *r = dtype_of(e, NULL);
        if (!r)
            return false;
        *t = r;
        return true;
    }
    const char *p = sema_path_of(e, NULL, NULL);
    *t = p ? sema_scalar_named(sema_python_dtype(p)) : NULL;
    if (!*t || *t == ty_void) {
        error_at(e->loc, "a record field's format must be a NumPy type string, a scalar type "
                 "or a record dtype");
        return false;
    }
    return true;
}

static bool add_field(Record *r, PtrVec *fields, Node *name, Node *fmt, Node *shape)
{
    if (name->kind != E_STR) {
        error_at(name->loc, "a record field name must be a string");
        return false;
    }
    if (!name->text[0]) {
        error_at(name->loc, "record fields without a name are not supported");
        return false;
    }
    for (int i = 0; i < fields->len; i++)
        if (strcmp(((RecField *)fields->items[i])->name, name->text) == 0) {
            error_at(name->loc, "field name '%s' appears twice in the record", name->text);
            return false;
        }
    RecField *f = arena_alloc(sizeof *f);
    f->name = name->text;
    if (!format_of(fmt, &f->type, &f->ndim, f->shape))
        return false;
    if (shape) {
        int inner = f->ndim;
        int64_t save[4];
        memcpy(save, f->shape, sizeof save);
        f->ndim = 0;
        if (!shape_of(shape, &f->ndim, f->shape))
            return false;
        if (f->ndim + inner > 4) {
            error_at(shape->loc, "record subarray fields of more than 4 dimensions are not supported");
            return false;
        }
        for (int k = 0; k < inner; k++)
            f->shape[f->ndim + k] = save[k];
        f->ndim += inner;
    }
    f->loc = name->loc;
    (void)r;
    vec_push(fields, f);
    return true;
}

static Node *dict_get(Node *d, const char *key)
{
    for (int i = 0; i + 1 < d->args.len; i += 2) {
        Node *k = d->args.items[i];
        if (k->kind == E_STR && strcmp(k->text, key) == 0)
            return d->args.items[i + 1];
    }
    return NULL;
}

/* np.dtype(spec, align=...) or np.dtype(spec, True); NULL after an error. */
static Type *dtype_of(Node *e, const char *pyname)
{
    const char *p = e->kind == E_CALL ? sema_path_of(e->lhs, NULL, NULL) : NULL;
    if (!p || strcmp(p, "np.dtype") != 0) {
        if (e->kind == E_NAME) {
            const Global *g = sema_global(e->name);
            if (g && (g->kind == GLOBAL_DTYPE || g->kind == GLOBAL_RECORD))
                return g->type;
        }
        error_at(e->loc, "expected a structured dtype: np.dtype([(name, format), ...])");
        return NULL;
    }
    if (e->args.len < 1 || e->args.len > 2) {
        error_at(e->loc, "np.dtype() takes the fields and align");
        return NULL;
    }
    bool align = false;
    Node *al = e->args.len == 2 ? e->args.items[1] : NULL;
    for (int i = 0; i < e->kwargs.len; i++) {
        Node *kw = e->kwargs.items[i];
        if (strcmp(kw->name, "align") == 0 && !al)
            al = kw->lhs;
        else {
            error_at(kw->loc, "unsupported keyword argument '%s' in np.dtype()", kw->name);
            return NULL;
        }
    }
    if (al) {
        Node *k = sema_fold(al, false, NULL, NULL);
        if (!k || (k->type != ty_bool && !ty_is_int(k->type))) {
            error_at(al->loc, "align must be True or False");
            return NULL;
        }
        align = k->ival != 0;
    }
    if (e->args.items[0]->kind == E_STR && e->args.len == 1 && e->kwargs.len == 0) {
        /* str: np.dtype('S12'), np.dtype('<U12'): numba's CharSeq(12), UnicodeCharSeq(12) */
        Node *s = e->args.items[0];
        bool bad;
        Type *t = charseq_of_format(s->text, s->loc, &bad);
        if (!t && !bad)
            error_at(s->loc, "np.dtype('%s'): only records and char sequences ('S12', "
                     "'<U12') are supported here", s->text);
        return t;
    }
    Record *r = arena_alloc(sizeof *r);
    r->aligned = align;
    PtrVec fields = {0};
    Node *spec = e->args.items[0];
    Node *offsets = NULL, *itemsize = NULL;
    if (spec->kind == E_LIST) {
        for (int i = 0; i < spec->args.len; i++) {
            Node *it = spec->args.items[i];
            if (it->kind != E_TUPLE || it->args.len < 2 || it->args.len > 3) {
                error_at(it->loc, "a record field is (name, format) or (name, format, shape)");
                return NULL;
            }
            if (!add_field(r, &fields, it->args.items[0], it->args.items[1],
                           it->args.len == 3 ? it->args.items[2] : NULL))
                return NULL;
        }
    } else if (spec->kind == E_DICT && !spec->text) {
        Node *names = dict_get(spec, "names"), *formats = dict_get(spec, "formats");
        offsets = dict_get(spec, "offsets");
        itemsize = dict_get(spec, "itemsize");
        for (int i = 0; i + 1 < spec->args.len; i += 2) {
            Node *k = spec->args.items[i];
            if (k->kind != E_STR || (strcmp(k->text, "names") && strcmp(k->text, "formats") &&
                                     strcmp(k->text, "offsets") && strcmp(k->text, "itemsize") &&
                                     strcmp(k->text, "aligned"))) {
                error_at(k->loc, "np.dtype({...}) keys other than names, formats, offsets and "
                         "itemsize are not supported");
                return NULL;
            }
        }
        if (!names || !formats || (names->kind != E_LIST && names->kind != E_TUPLE) ||
            (formats->kind != E_LIST && formats->kind != E_TUPLE) ||
            names->args.len != formats->args.len) {
            error_at(spec->loc, "np.dtype({...}) needs lists of names and formats of one length");
            return NULL;
        }
        if (offsets && ((offsets->kind != E_LIST && offsets->kind != E_TUPLE) ||
                        offsets->args.len != names->args.len)) {
            error_at(offsets->loc, "offsets must be a list, one per name");
            return NULL;
        }
        for (int i = 0; i < names->args.len; i++)
            if (!add_field(r, &fields, names->args.items[i], formats->args.items[i], NULL))
                return NULL;
    } else {
        error_at(spec->loc, "np.dtype() of a record takes a list of (name, format) or a dict "
                 "of names and formats");
        return NULL;
    }
    if (fields.len == 0) {
        error_at(spec->loc, "a record needs at least one field");
        return NULL;
    }
    r->nfields = fields.len;
    r->fields = arena_alloc(sizeof *r->fields * (size_t)fields.len);
    int64_t off = 0, maxal = 1, end = 0;
    for (int i = 0; i < fields.len; i++) {
        RecField *f = fields.items[i];
        int64_t a = field_align(f);
        if (a > maxal)
            maxal = a;
        if (offsets) {
            Node *k = sema_fold(offsets->args.items[i], false, NULL, NULL);
            if (!k || !ty_is_int(k->type) || (int64_t)k->ival < 0) {
                error_at(((Node *)offsets->args.items[i])->loc, "an offset must be a "
                         "non-negative integer constant");
                return NULL;
            }
            f->offset = (int64_t)k->ival;
            if (align && f->offset % a != 0) {   /* NumPy refuses it */
                error_at(((Node *)offsets->args.items[i])->loc, "offset %lld of field '%s' is "
                         "not a multiple of its alignment %lld (align=True)",
                         (long long)f->offset, f->name, (long long)a);
                return NULL;
            }
        } else {
            if (align)
                off = (off + a - 1) / a * a;
            f->offset = off;
        }
        off = f->offset + record_field_size(f);
        if (off > end)
            end = off;
        r->fields[i] = *f;
    }
    /* overlapping fields (only the dict form can make them) */
    for (int i = 0; i < r->nfields; i++)
        for (int j = 0; j < r->nfields; j++) {
            const RecField *x = &r->fields[i], *y = &r->fields[j];
            if (i != j && x->offset < y->offset + record_field_size(y) &&
                y->offset < x->offset + record_field_size(x) && x->offset <= y->offset) {
                error_at(y->loc, "record fields '%s' and '%s' overlap", x->name, y->name);
                return NULL;
            }
        }
    int64_t size = align ? (end + maxal - 1) / maxal * maxal : end;
    if (itemsize) {
        Node *k = sema_fold(itemsize, false, NULL, NULL);
        if (!k || !ty_is_int(k->type) || (int64_t)k->ival < end) {
            error_at(itemsize->loc, "itemsize must be an integer constant of at least %lld",
                     (long long)end);
            return NULL;
        }
        size = (int64_t)k->ival;
        if (align && size % maxal != 0) {
            error_at(itemsize->loc, "itemsize %lld is not a multiple of the record's "
                     "alignment %lld (align=True)", (long long)size, (long long)maxal);
            return NULL;
        }
    }
    r->size = size;
    r->align = align ? maxal : 1;
    return record_intern(r, pyname);
}

/* resolve.c: `name = np.dtype(...)`, `name = from_dtype(...)`; true if it
 * was one (bound, or an error reported). */
bool record_module_assign(const char *name, Node *rhs)
{
    if (rhs->kind != E_CALL)
        return false;
    const char *p = sema_path_of(rhs->lhs, NULL, NULL);
    if (!p)
        return false;
    if (strcmp(p, "np.dtype") == 0) {
        Type *t = dtype_of(rhs, name);
        if (t)
            sema_bind(GLOBAL_DTYPE, name)->type = t;
        return true;
    }
    if (strcmp(p, "from_dtype") == 0) {
        if (rhs->args.len != 1 || rhs->kwargs.len != 0) {
            error_at(rhs->loc, "from_dtype() takes one dtype");
            return true;
        }
        Node *a = rhs->args.items[0];
        Type *t = dtype_of(a, name);
        if (t) {
            /* the struct is named after the dtype's name where it has one */
            sema_bind(GLOBAL_RECORD, name)->type = t;
        }
        return true;
    }
    return false;
}

/* A record type by module-level name (a GLOBAL_RECORD or GLOBAL_DTYPE). */
Type *record_named(const char *name)
{
    const Global *g = sema_global(name);
    return g && (g->kind == GLOBAL_RECORD || g->kind == GLOBAL_DTYPE) ? g->type : NULL;
}

int record_field_index(const Type *t, const char *name)
{
    for (int i = 0; i < t->rec->nfields; i++)
        if (strcmp(t->rec->fields[i].name, name) == 0)
            return i;
    return -1;
}

/* The type of field i as a value: the scalar, the nested record, or the
 * subarray as a C-contiguous array. */
Type *record_field_type(const Type *t, int i)
{
    const RecField *f = &t->rec->fields[i];
    if (f->ndim == 0)
        return f->type;
    return ty_array(f->type, f->ndim, true, SPACE_LOCAL);
}

/* numba's check (strict alignment on CUDA): a field read or written must
 * be at its natural alignment; NULL if it is, else the message. */
const char *record_misaligned(const Type *t, int i)
{
    const RecField *f = &t->rec->fields[i];
    int64_t a = field_c_align(f);
    if (f->offset % a == 0)
        return NULL;
    return arena_printf("%s.%s of type %s is not aligned", ty_name(t), f->name,
                        ty_name(f->type));
}

/* ---- C ---- */

/* Every record a type reaches, nested ones first, into *out (once). */
void record_collect(PtrVec *out, const Type *t)
{
    if (!t)
        return;
    if (t->kind == TY_ARRAY) {
        record_collect(out, t->elem);
        return;
    }
    if (t->kind == TY_TUPLE) {
        for (int i = 0; i < t->nelems; i++)
            record_collect(out, t->elems[i]);
        return;
    }
    if (t->kind != TY_RECORD && t->kind != TY_CHARSEQ)
        return;
    for (int i = 0; i < out->len; i++)
        if (out->items[i] == t)
            return;
    if (t->kind == TY_CHARSEQ) {   /* str: its struct before the records that hold it */
        vec_push(out, (void *)t);
        return;
    }
    for (int i = 0; i < t->rec->nfields; i++)
        record_collect(out, t->rec->fields[i].type);
    vec_push(out, (void *)t);
}

/* The struct of a record: its fields at NumPy's offsets, explicit padding
 * between them; abi: the launchers' C types (bool as uint8_t, complex as
 * the header's), else the generated code's.  Static assertions of every
 * offset and of the size keep the two equal to NumPy's. */
void record_emit_struct(StrBuf *b, const Type *t, bool abi)
{
    if (t->kind == TY_CHARSEQ) {   /* str: record_collect gives them too */
        charseq_emit_struct(b, t, abi);
        return;
    }
    const Record *r = t->rec;
    sb_printf(b, "typedef struct %s {\n", r->cname);
    int64_t at = 0;
    int pad = 0;
    for (int i = 0; i < r->nfields; i++) {
        const RecField *f = &r->fields[i];
        if (f->offset > at)
            sb_printf(b, "    unsigned char krt_pad%d[%lld];\n", pad++, (long long)(f->offset - at));
        const char *ct = f->type->kind == TY_RECORD    ? f->type->rec->cname
                         : f->type->kind == TY_CHARSEQ ? charseq_cname(f->type)
                         : abi                      ? ty_info(f->type)->abi
                                                    : ty_info(f->type)->cname;
        sb_printf(b, "    %s %s", ct, c_ident(f->name));
        for (int k = 0; k < f->ndim; k++)
            sb_printf(b, "[%lld]", (long long)f->shape[k]);
        sb_puts(b, ";\n");
        at = f->offset + record_field_size(f);
    }
    if (r->size > at)
        sb_printf(b, "    unsigned char krt_pad%d[%lld];\n", pad++, (long long)(r->size - at));
    sb_printf(b, "}%s %s;\n", r->packed ? " __attribute__((packed))" : "", r->cname);
    sb_printf(b, "typedef %s *krt_recp_%s;\n", r->cname, r->cname + 8);
    /* C11 _Static_assert and C++11 static_assert */
    const char *sa = "KRT_REC_ASSERT";
    sb_printf(b, "#ifndef KRT_REC_ASSERT\n"
                 "#ifdef __cplusplus\n#define KRT_REC_ASSERT(c, m) static_assert(c, m)\n"
                 "#else\n#define KRT_REC_ASSERT(c, m) _Static_assert(c, m)\n#endif\n#endif\n");
    sb_printf(b, "%s(sizeof(%s) == %lld, \"%s: NumPy's itemsize\");\n", sa, r->cname,
              (long long)r->size, r->cname);
    for (int i = 0; i < r->nfields; i++)
        sb_printf(b, "%s(offsetof(%s, %s) == %lld, \"%s.%s: NumPy's offset\");\n", sa, r->cname,
                  c_ident(r->fields[i].name), (long long)r->fields[i].offset, r->cname,
                  c_ident(r->fields[i].name));
}
