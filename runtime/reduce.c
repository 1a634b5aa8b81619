/*
 * reduce.c - the host side of cuda.reduce: numba's Reduce.__call__
 * (numba/cuda/kernels/reduction.py) driving the kernel kernc generated for
 * one element type (src/ufunc.c transcribes numba's kernel).
 *
 * The launches are numba's, so the association order, hence every float
 * result, is numba's too: full blocks of 128 threads over the first
 * n - n % 128 elements (at most 64 blocks, each striding over the array),
 * one partial block of n % 128 threads over the rest, each writing one
 * partial; init is combined into partial 0 by whichever of the two ran
 * first; a last one-block launch reduces the partials (at most 65).  An
 * empty array gives init.  The result is copied to the host (*result)
 * and/or into element 0 of a device array (*device_result), as numba's
 * `res`; the call returns once the result is there (it frees its
 * temporary partials, which waits for the stream).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "ufunc.h"

#include <string.h>

#define KRT_REDUCE_WARPSIZE 32
#define KRT_REDUCE_NUMWARPS 4
#define KRT_REDUCE_BLOCK (KRT_REDUCE_WARPSIZE * KRT_REDUCE_NUMWARPS)

/* A 1-D view of n elements of a starting at element `first`. */
static krt_view krt_reduce_view(const krt_array *a, int64_t first, int64_t n)
{
    krt_view v;
    memset(&v, 0, sizeof v);
    v.data = (char *)a->data + first * a->strides[0];
    v.shape[0] = n;
    v.strides[0] = a->strides[0];
    return v;
}

/* kernel[grid, block, stream](arr, partials, init, use_init) */
static int krt_reduce_launch(const krt_ufunc *u, unsigned grid, unsigned block,
                             krt_view arr, krt_view partials, const void *init, int use_init,
                             krt_stream *stream)
{
    uint8_t flag = (uint8_t)(use_init != 0);
    void *args[4];
    krt_launch_cfg cfg = krt_grid1(grid, block);
    cfg.stream = stream;
    args[0] = &arr;
    args[1] = &partials;
    args[2] = (void *)init;
    args[3] = &flag;
    return krt_launch(u->kernel, cfg, args);
}

/* The first element of a, as an array of its own. */
static int krt_reduce_first(krt_array *out, const krt_array *a)
{
    int64_t one = 1;
    return krt_wrap(out, a->data, a->dtype, 1, &one, NULL);
}

int krt_reduce_call(const krt_ufunc *u, krt_array in, const void *init, void *result,
                    krt_array *device_result, krt_stream *stream)
{
    const char *who;
    const krt_kernel *k;
    krt_dtype dtype;
    size_t size;
    int64_t n, size_full, size_partial, full_blockct, partials_size;
    krt_array partials, first, res0;
    krt_view pv;
    int status = KRT_OK;

    if (u == NULL || u->kernel == NULL || u->operands == NULL || u->kind != KRT_UFUNC_REDUCE)
        return krt__error(KRT_EINVAL, "krt_reduce_call: no reduce description");
    who = u->host_name ? u->host_name : "krt_reduce_call";
    k = u->kernel;
    dtype = u->operands[0].dtype;
    size = krt_dtype_size(dtype);
    if (k->nparams != 4 || k->params[0].kind != KRT_PARAM_ARRAY || k->params[0].ndim != 1 ||
        k->params[0].dtype != dtype || k->params[2].kind != KRT_PARAM_SCALAR)
        return krt__error(KRT_EINTERNAL, "%s: kernel '%s' is not a reduce kernel of this "
                          "runtime", who, k->name);
    if (init == NULL)
        return krt__error(KRT_EINVAL, "%s: init is NULL", who);
    KRT_TRY(krt__check_stream(stream, who));
    KRT_TRY(krt__ufunc_check_array(&in, who, "in"));
    if (in.dtype != dtype)
        return krt__error(KRT_EDTYPE, "%s: parameter 'in': expected %s data, got %s", who,
                          krt_dtype_name(dtype), krt_dtype_name(in.dtype));
    if (in.ndim != 1)
        return krt__error(KRT_ENDIM, "%s: parameter 'in' has %d dimensions; cuda.reduce "
                          "reduces 1-D arrays only", who, in.ndim);
    if (device_result != NULL) {
        KRT_TRY(krt__ufunc_check_array(device_result, who, "device_result"));
        if (device_result->dtype != dtype)
            return krt__error(KRT_EDTYPE, "%s: parameter 'device_result': expected %s data, "
                              "got %s", who, krt_dtype_name(dtype),
                              krt_dtype_name(device_result->dtype));
        if (krt_array_size(device_result) < 1)
            return krt__error(KRT_ESHAPE, "%s: parameter 'device_result' is empty", who);
        /* element 0, wherever the strides put the others */
        KRT_TRY(krt_reduce_first(&res0, device_result));
    }

    n = in.shape[0];
    if (n == 0) {
        /* numba returns init (and leaves res alone); init goes to both. */
        if (result != NULL)
            memcpy(result, init, size);
        if (device_result != NULL) {
            KRT_TRY(krt_copy_to_device(res0, init, stream));
            if (stream != NULL)
                KRT_TRY(krt_stream_synchronize(stream));
        }
        return KRT_OK;
    }

    size_full = n / KRT_REDUCE_BLOCK * KRT_REDUCE_BLOCK;
    size_partial = n - size_full;
    full_blockct = size_full / KRT_REDUCE_BLOCK;
    if (full_blockct > KRT_REDUCE_WARPSIZE * 2)
        full_blockct = KRT_REDUCE_WARPSIZE * 2;
    partials_size = full_blockct + (size_partial ? 1 : 0);
    KRT_TRY(krt_alloc(&partials, dtype, 1, &partials_size));

    if (size_full)
        status = krt_reduce_launch(u, (unsigned)full_blockct, KRT_REDUCE_BLOCK,
                                   krt_reduce_view(&in, 0, size_full),
                                   krt_reduce_view(&partials, 0, full_blockct), init, 1,
                                   stream);
    if (status == KRT_OK && size_partial)
        status = krt_reduce_launch(u, 1, (unsigned)size_partial,
                                   krt_reduce_view(&in, size_full, size_partial),
                                   krt_reduce_view(&partials, full_blockct, 1), init,
                                   !full_blockct, stream);
    if (status == KRT_OK && partials_size > 1) {
        pv = krt_reduce_view(&partials, 0, partials_size);
        status = krt_reduce_launch(u, 1, (unsigned)partials_size, pv, pv, init, 0, stream);
    }
    if (status == KRT_OK)
        status = krt_reduce_first(&first, &partials);
    if (status == KRT_OK && device_result != NULL)
        status = krt_copy_device(res0, first, stream);
    if (status == KRT_OK && result != NULL)
        status = krt_copy_to_host(result, first, stream);
    /* Wait here, so that a failing kernel is reported by this call. */
    if (status == KRT_OK)
        status = stream != NULL ? krt_stream_synchronize(stream) : krt_synchronize();
    krt_free(partials);
    return status;
}
