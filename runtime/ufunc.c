/*
 * ufunc.c - the host side of @vectorize and @guvectorize: what every
 * generated host function (kernc's src/ufunc.c) calls with its arguments
 * and a static description of its signature (krt_ufunc, <kernrt.h>).
 *
 * krt_ufunc_call follows NumPy's generalized-ufunc rules.  Each operand is
 * an array whose last core_ndim dimensions are its core (the layout's
 * group: none for vectorize) and whose leading ones are loop dimensions;
 * the loop dimensions of all operands broadcast together (right-aligned,
 * length 1 stretches), an output's must be the broadcast shape itself,
 * and a layout name (n in "(n),(n)->()") has one length everywhere.  The
 * kernel then gets one view per operand with exactly nloop loop
 * dimensions (missing leading ones have length 1, stretched ones stride 0)
 * and one thread per loop index.  Inputs a signature allows to be scalars
 * may be host scalars (krt_host_scalar): their value travels as a kernel
 * argument, with a bit in the mask, so nothing is copied to the device; a
 * scalar of another dtype is converted to the signature's, as numba does.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "ufunc.h"

#include <stdio.h>
#include <string.h>

/* More operands than any signature needs; bounds the stack arrays below. */
#define KRT_UFUNC_MAX_OPS 32
#define KRT_UFUNC_MAX_SYMBOLS (KRT_UFUNC_MAX_OPS * KRT_MAX_NDIM)
/* Threads per block of a (gu)vectorize kernel. */
#define KRT_UFUNC_BLOCK 256

int krt_host_scalar(krt_array *out, krt_dtype dtype, const void *value)
{
    if (out == NULL)
        return krt__error(KRT_EINVAL, "krt_host_scalar: out is NULL");
    memset(out, 0, sizeof *out);
    if ((int)dtype < 0 || dtype == KRT_XOROSHIRO128P || dtype >= KRT_DTYPE_COUNT)
        return krt__error(KRT_EINVAL, "krt_host_scalar: invalid dtype %d", (int)dtype);
    if (value == NULL)
        return krt__error(KRT_EINVAL, "krt_host_scalar: value is NULL");
    out->data = (void *)value;
    out->dtype = dtype;
    out->ndim = 0;
    out->flags = KRT_ARRAY_HOST_SCALAR;
    out->backend = KRT_BACKEND_NONE;
    return KRT_OK;
}

const char *krt__shape_str(char *buf, size_t len, int ndim, const int64_t *shape)
{
    size_t n = 0;
    int d;

    n += (size_t)snprintf(buf, len, "(");
    for (d = 0; d < ndim && n < len; d++)
        n += (size_t)snprintf(buf + n, len - n, "%s%lld", d ? ", " : "",
                              (long long)shape[d]);
    if (n < len)
        snprintf(buf + n, len - n, ndim == 1 ? ",)" : ")");
    return buf;
}

int krt__ufunc_check_array(const krt_array *a, const char *who, const char *param)
{
    const char *running = krt_backend_name();
    int id = strcmp(running, "cpu") == 0    ? KRT_BACKEND_CPU
             : strcmp(running, "cuda") == 0 ? KRT_BACKEND_CUDA
                                            : KRT_BACKEND_NONE;
    int d;

    if (id == KRT_BACKEND_NONE)
        return krt__error(KRT_ENOBACKEND, "%s: %s", who, krt__message());
    if (a == NULL)
        return krt__error(KRT_ENULLARRAY, "%s: parameter '%s' is NULL", who, param);
    if (a->flags & KRT_ARRAY_HOST_SCALAR)
        return krt__error(KRT_EINVAL, "%s: parameter '%s' cannot be a host scalar", who,
                          param);
    if (a->data == NULL && a->ndim == 0)
        return krt__error(KRT_ENULLARRAY, "%s: parameter '%s' is a zeroed or freed array",
                          who, param);
    if (a->ndim < 1 || a->ndim > KRT_MAX_NDIM)
        return krt__error(KRT_EINVAL, "%s: parameter '%s' has ndim %d, outside 1..%d", who,
                          param, a->ndim, KRT_MAX_NDIM);
    if ((int)a->dtype < 0 || a->dtype >= KRT_DTYPE_COUNT)
        return krt__error(KRT_EINVAL, "%s: parameter '%s' has an invalid dtype %d", who,
                          param, (int)a->dtype);
    for (d = 0; d < a->ndim; d++)
        if (a->shape[d] < 0)
            return krt__error(KRT_EINVAL, "%s: parameter '%s': dimension %d has negative "
                              "extent %lld", who, param, d, (long long)a->shape[d]);
    if (a->data == NULL && krt_array_size(a) > 0)
        return krt__error(KRT_ENULLARRAY, "%s: parameter '%s' has no data (zeroed or freed "
                          "array)", who, param);
    if (a->backend != id)
        return krt__error(KRT_EBACKENDMIX, "%s: parameter '%s' belongs to another backend "
                          "than the running one (%s)", who, param, running);
    /* Live (not freed), inside its allocation, on the current device. */
    {
        char what[256];
        snprintf(what, sizeof what, "%s: parameter '%s'", who, param);
        return krt__check_launch_array(a, what);
    }
}

/* The layout group of operand o, "(m, n)", for messages. */
static const char *krt_ufunc_group(char *buf, size_t len, const krt_ufunc *u,
                                   const krt_ufunc_operand *o)
{
    size_t n = (size_t)snprintf(buf, len, "(");
    int d;

    for (d = 0; d < o->core_ndim && n < len; d++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", d ? "," : "",
                              u->symbols ? u->symbols[o->core_dims[d]] : "?");
    if (n < len)
        snprintf(buf + n, len - n, ")");
    return buf;
}

/* The kernel's parameters are what this file passes (a kernc of another
 * version could disagree). */
static int krt_ufunc_check_kernel(const krt_ufunc *u)
{
    const krt_kernel *k = u->kernel;
    int i, p = 0, bad = 0;

    for (i = 0; i < u->nin + u->nout && !bad; i++) {
        const krt_ufunc_operand *o = &u->operands[i];
        bad = p >= k->nparams || k->params[p].kind != KRT_PARAM_ARRAY ||
              k->params[p].dtype != o->dtype || k->params[p].ndim != u->nloop + o->view_ndim;
        p++;
        if (o->scalar_ok && !bad) {
            bad = p >= k->nparams || k->params[p].kind != KRT_PARAM_SCALAR ||
                  k->params[p].dtype != o->dtype;
            p++;
        }
    }
    if (bad || p + 2 != k->nparams)
        return krt__error(KRT_EINTERNAL, "%s: kernel '%s' does not take the arguments of "
                          "this runtime's krt_ufunc_call (kernc and libkernrt of different "
                          "versions?)", u->host_name, k->name);
    return KRT_OK;
}

typedef union krt_ufunc_scalar {
    uint64_t u64;
    double f64;
    unsigned char bytes[16];
} krt_ufunc_scalar;

/* numba's host-side rule for a scalar argument: the signature's dtype
 * decides, and the value is converted to it as np.array([value],
 * dtype=formal) does (C's conversions: float64 to float32 rounds, a float
 * to an integer truncates toward zero, integers wrap to the target width,
 * anything nonzero is True).  A float that does not fit the integer type
 * (or NaN) has no defined result in C or NumPy: refused. */
static int krt_ufunc_convert(krt_ufunc_scalar *out, krt_dtype to, const void *value,
                             krt_dtype from, const char *who, const char *param);

/* complex (issue 8): a real value becomes value + 0j (converted to float64
 * first), complex ones convert part by part; a complex scalar for a real
 * parameter is refused (NumPy would drop the imaginary part, warning). */
static int krt_ufunc_convert_complex(krt_ufunc_scalar *out, krt_dtype to, const void *value,
                                     krt_dtype from, const char *who, const char *param)
{
    double re = 0, im = 0;
    if (from == KRT_COMPLEX64) {
        krt_c64 z;
        memcpy(&z, value, sizeof z);
        re = z.re;
        im = z.im;
    } else if (from == KRT_COMPLEX128) {
        krt_c128 z;
        memcpy(&z, value, sizeof z);
        re = z.re;
        im = z.im;
    } else {
        krt_ufunc_scalar d;
        int st = krt_ufunc_convert(&d, KRT_FLOAT64, value, from, who, param);
        if (st != KRT_OK)
            return st;
        memcpy(&re, d.bytes, sizeof re);
    }
    memset(out, 0, sizeof *out);
    if (to == KRT_COMPLEX64) {
        krt_c64 z;
        z.re = (float)re;
        z.im = (float)im;
        memcpy(out->bytes, &z, sizeof z);
    } else if (to == KRT_COMPLEX128) {
        krt_c128 z;
        z.re = re;
        z.im = im;
        memcpy(out->bytes, &z, sizeof z);
    } else {
        return krt__error(KRT_EDTYPE, "%s: parameter '%s': a %s scalar cannot be converted "
                          "to %s", who, param, krt_dtype_name(from), krt_dtype_name(to));
    }
    return KRT_OK;
}

static int krt_ufunc_convert(krt_ufunc_scalar *out, krt_dtype to, const void *value,
                             krt_dtype from, const char *who, const char *param)
{
    if (to == KRT_COMPLEX64 || to == KRT_COMPLEX128 || from == KRT_COMPLEX64 ||
        from == KRT_COMPLEX128)
        return krt_ufunc_convert_complex(out, to, value, from, who, param);
    int from_float = from == KRT_FLOAT32 || from == KRT_FLOAT64;
    int from_signed = from == KRT_INT8 || from == KRT_INT16 || from == KRT_INT32 ||
                      from == KRT_INT64;
    double f = 0;
    uint64_t bits = 0;               /* an integer's value, two's complement */
    double lo = 0, hi = 0;           /* to's range, for a float source */

    memset(out, 0, sizeof *out);
    switch (from) {
#define KRT_UFUNC_LOAD_(e, ct, sz, descr)                                    \
    case KRT_##e: {                                                           \
        ct v_;                                                                \
        memcpy(&v_, value, sizeof v_);                                        \
        if (from_float)                                                       \
            f = (double)v_;                                                   \
        else                                                                  \
            bits = from_signed ? (uint64_t)(int64_t)v_ : (uint64_t)v_;        \
        break;                                                                \
    }
        KRT_UFUNC_LOAD_(BOOL, uint8_t, 1, "")
        KRT_UFUNC_LOAD_(INT8, int8_t, 1, "")
        KRT_UFUNC_LOAD_(INT16, int16_t, 2, "")
        KRT_UFUNC_LOAD_(INT32, int32_t, 4, "")
        KRT_UFUNC_LOAD_(INT64, int64_t, 8, "")
        KRT_UFUNC_LOAD_(UINT8, uint8_t, 1, "")
        KRT_UFUNC_LOAD_(UINT16, uint16_t, 2, "")
        KRT_UFUNC_LOAD_(UINT32, uint32_t, 4, "")
        KRT_UFUNC_LOAD_(UINT64, uint64_t, 8, "")
        KRT_UFUNC_LOAD_(FLOAT32, float, 4, "")
        KRT_UFUNC_LOAD_(FLOAT64, double, 8, "")
#undef KRT_UFUNC_LOAD_
    default:
        return krt__error(KRT_EDTYPE, "%s: parameter '%s': a %s scalar cannot be "
                          "converted", who, param, krt_dtype_name(from));
    }
    if (from == KRT_BOOL)
        bits = bits != 0;
    switch (to) {
    case KRT_FLOAT32: {
        float v = from_float ? (float)f : from_signed ? (float)(int64_t)bits : (float)bits;
        memcpy(out->bytes, &v, sizeof v);
        return KRT_OK;
    }
    case KRT_FLOAT64: {
        double v = from_float ? f : from_signed ? (double)(int64_t)bits : (double)bits;
        memcpy(out->bytes, &v, sizeof v);
        return KRT_OK;
    }
    case KRT_BOOL:
        out->bytes[0] = from_float ? f != 0 : bits != 0;
        return KRT_OK;
    case KRT_INT8: lo = -129.0; hi = 128.0; break;
    case KRT_INT16: lo = -32769.0; hi = 32768.0; break;
    case KRT_INT32: lo = -2147483649.0; hi = 2147483648.0; break;
    case KRT_INT64: lo = -9223372036854777856.0; hi = 9223372036854775808.0; break;
    case KRT_UINT8: lo = -1.0; hi = 256.0; break;
    case KRT_UINT16: lo = -1.0; hi = 65536.0; break;
    case KRT_UINT32: lo = -1.0; hi = 4294967296.0; break;
    case KRT_UINT64: lo = -1.0; hi = 18446744073709551616.0; break;
    default:
        return krt__error(KRT_EDTYPE, "%s: parameter '%s' takes no scalar", who, param);
    }
    if (from_float) {
        /* Truncation toward zero must land strictly inside (lo, hi). */
        if (!(f > lo && f < hi))
            return krt__error(KRT_EINVAL, "%s: parameter '%s': the %s scalar %g does "
                              "not fit %s", who, param, krt_dtype_name(from), f,
                              krt_dtype_name(to));
        bits = to == KRT_UINT64 ? (uint64_t)f : (uint64_t)(int64_t)f;
    }
    /* Wrapped to the width (gcc and clang define the signed case). */
    switch (to) {
#define KRT_UFUNC_STORE_(e, ct)                                              \
    case KRT_##e: {                                                           \
        ct v_ = (ct)bits;                                                     \
        memcpy(out->bytes, &v_, sizeof v_);                                   \
        break;                                                                \
    }
        KRT_UFUNC_STORE_(INT8, int8_t)
        KRT_UFUNC_STORE_(INT16, int16_t)
        KRT_UFUNC_STORE_(INT32, int32_t)
        KRT_UFUNC_STORE_(INT64, int64_t)
        KRT_UFUNC_STORE_(UINT8, uint8_t)
        KRT_UFUNC_STORE_(UINT16, uint16_t)
        KRT_UFUNC_STORE_(UINT32, uint32_t)
        KRT_UFUNC_STORE_(UINT64, uint64_t)
#undef KRT_UFUNC_STORE_
    default:
        break;
    }
    return KRT_OK;
}

int krt_ufunc_call(const krt_ufunc *u, const krt_array *const *arrays, krt_stream *stream)
{
    const char *who;
    int nops, L, LN = 0, i, d;
    int loopnd[KRT_UFUNC_MAX_OPS];
    int64_t symsize[KRT_UFUNC_MAX_SYMBOLS];
    int symowner[KRT_UFUNC_MAX_SYMBOLS];
    int64_t gl[KRT_MAX_NDIM];
    krt_view views[KRT_UFUNC_MAX_OPS];
    krt_ufunc_scalar scalars[KRT_UFUNC_MAX_OPS];
    void *args[2 * KRT_UFUNC_MAX_OPS + 2];
    int64_t mask = 0, n = 1;
    int nargs = 0;
    char s1[96], s2[96];

    if (u == NULL || u->kernel == NULL || u->operands == NULL)
        return krt__error(KRT_EINVAL, "krt_ufunc_call: no ufunc description");
    who = u->host_name ? u->host_name : "krt_ufunc_call";
    nops = u->nin + u->nout;
    L = u->nloop;
    if (u->kind == KRT_UFUNC_REDUCE || nops < 1 || nops > KRT_UFUNC_MAX_OPS || L < 1 ||
        L > KRT_MAX_NDIM || u->nsymbols < 0 || u->nsymbols > KRT_UFUNC_MAX_SYMBOLS)
        return krt__error(KRT_EINVAL, "%s: bad ufunc description", who);
    if (arrays == NULL)
        return krt__error(KRT_EINVAL, "%s: arrays is NULL", who);
    KRT_TRY(krt__check_stream(stream, who));
    KRT_TRY(krt_ufunc_check_kernel(u));
    for (i = 0; i < u->nsymbols; i++)
        symsize[i] = -1;

    /* Each operand alone: dtype, dimensions, core lengths. */
    for (i = 0; i < nops; i++) {
        const krt_ufunc_operand *o = &u->operands[i];
        const krt_array *a = arrays[i];
        if (a == NULL)
            return krt__error(KRT_ENULLARRAY, "%s: parameter '%s' is NULL", who, o->name);
        if (a->flags & KRT_ARRAY_HOST_SCALAR) {
            if (!o->scalar_ok)
                return krt__error(KRT_EINVAL, "%s: parameter '%s' cannot be a host scalar "
                                  "(%s)", who, o->name,
                                  o->is_output ? "it is an output" : "it is an array");
            if (a->data == NULL)
                return krt__error(KRT_EINVAL, "%s: parameter '%s': host scalar without "
                                  "a value", who, o->name);
            KRT_TRY(krt_ufunc_convert(&scalars[i], o->dtype, a->data, a->dtype, who,
                                      o->name));
            loopnd[i] = 0;
            continue;
        }
        KRT_TRY(krt__ufunc_check_array(a, who, o->name));
        if (a->dtype != o->dtype)
            return krt__error(KRT_EDTYPE, "%s: parameter '%s': expected %s data, got %s", who,
                              o->name, krt_dtype_name(o->dtype), krt_dtype_name(a->dtype));
        if (a->ndim < o->core_ndim)
            return krt__error(KRT_ENDIM, "%s: parameter '%s' has %d dimension%s, fewer than "
                              "its core dimensions %s", who, o->name, a->ndim,
                              a->ndim == 1 ? "" : "s", krt_ufunc_group(s1, sizeof s1, u, o));
        loopnd[i] = a->ndim - o->core_ndim;
        if (loopnd[i] > L)
            return krt__error(KRT_ENDIM, "%s: parameter '%s' has %d loop dimension%s, at "
                              "most %d fit this signature", who, o->name, loopnd[i],
                              loopnd[i] == 1 ? "" : "s", L);
        for (d = 0; d < o->core_ndim; d++) {
            int sym = o->core_dims[d];
            int64_t len = a->shape[loopnd[i] + d];
            if (sym < 0 || sym >= u->nsymbols)
                return krt__error(KRT_EINVAL, "%s: bad ufunc description", who);
            if (symsize[sym] < 0) {
                symsize[sym] = len;
                symowner[sym] = i;
            } else if (symsize[sym] != len) {
                return krt__error(KRT_ESHAPE, "%s: core dimension '%s' is %lld in parameter "
                                  "'%s' %s but %lld in parameter '%s'", who,
                                  u->symbols[sym], (long long)len, o->name,
                                  krt_ufunc_group(s1, sizeof s1, u, o),
                                  (long long)symsize[sym], u->operands[symowner[sym]].name);
            }
        }
        if (loopnd[i] > LN)
            LN = loopnd[i];
    }

    /* The loop dimensions broadcast (NumPy: right-aligned, 1 stretches). */
    for (d = 0; d < KRT_MAX_NDIM; d++)
        gl[d] = 1;
    for (i = 0; i < nops; i++) {
        for (d = 0; d < loopnd[i]; d++) {
            int g = LN - loopnd[i] + d;
            int64_t len = arrays[i]->shape[d];
            if (len == gl[g] || len == 1)
                continue;
            if (gl[g] == 1) {
                gl[g] = len;
                continue;
            }
            {
                char msg[512];
                size_t m = 0;
                int k;
                for (k = 0; k < nops && m < sizeof msg; k++)
                    if (!(arrays[k]->flags & KRT_ARRAY_HOST_SCALAR))
                        m += (size_t)snprintf(msg + m, sizeof msg - m, "%s'%s' %s",
                                              m ? ", " : "", u->operands[k].name,
                                              krt__shape_str(s1, sizeof s1, loopnd[k],
                                                             arrays[k]->shape));
                return krt__error(KRT_ESHAPE, "%s: the operands' loop dimensions do not "
                                  "broadcast together (length %lld against %lld): %s", who,
                                  (long long)len, (long long)gl[g], msg);
            }
        }
    }
    for (i = u->nin; i < nops; i++) {
        int same = loopnd[i] == LN;
        for (d = 0; same && d < LN; d++)
            same = arrays[i]->shape[d] == gl[d];
        if (!same)
            return krt__error(KRT_ESHAPE, "%s: output '%s' has loop shape %s, but the "
                              "operands broadcast to %s", who, u->operands[i].name,
                              krt__shape_str(s1, sizeof s1, loopnd[i], arrays[i]->shape),
                              krt__shape_str(s2, sizeof s2, LN, gl));
    }
    for (d = 0; d < LN; d++)
        n *= gl[d];

    /* The views: nloop loop dimensions (padded in front), then the core. */
    for (i = 0; i < nops; i++) {
        const krt_ufunc_operand *o = &u->operands[i];
        const krt_array *a = arrays[i];
        krt_view *v = &views[i];
        memset(v, 0, sizeof *v);
        if (a->flags & KRT_ARRAY_HOST_SCALAR) {
            mask |= (int64_t)1 << i;     /* its value was converted above */
        } else {
            memset(&scalars[i], 0, sizeof scalars[i]);
            v->data = (char *)a->data;
            for (d = 0; d < L; d++) {
                int g = d - (L - LN);             /* the broadcast dimension */
                int od = g - (LN - loopnd[i]);    /* the operand's own */
                v->shape[d] = g < 0 ? 1 : gl[g];
                v->strides[d] = od < 0 || a->shape[od] == 1 ? 0 : a->strides[od];
            }
            for (d = 0; d < o->core_ndim; d++) {
                v->shape[L + d] = a->shape[loopnd[i] + d];
                v->strides[L + d] = a->strides[loopnd[i] + d];
            }
            for (d = o->core_ndim; d < o->view_ndim; d++) {   /* a `()` array */
                v->shape[L + d] = 1;
                v->strides[L + d] = 0;
            }
        }
        args[nargs++] = v;
        if (o->scalar_ok)
            args[nargs++] = &scalars[i];
    }
    args[nargs++] = &mask;
    args[nargs++] = &n;
    if (n == 0)
        return KRT_OK;

    {
        krt_launch_cfg cfg;
        int64_t block = n < KRT_UFUNC_BLOCK ? (n + 31) / 32 * 32 : KRT_UFUNC_BLOCK;
        int64_t grid = (n + block - 1) / block;
        if (grid > 2147483647)
            return krt__error(KRT_EINVAL, "%s: %lld loop iterations are too many for one "
                              "launch", who, (long long)n);
        cfg = krt_grid1((unsigned)grid, (unsigned)block);
        cfg.stream = stream;
        return krt_launch(u->kernel, cfg, args);
    }
}
