/*
 * nodevice.c - KRT_BACKEND=cuda on a machine without a usable CUDA device:
 * every call that needs the backend returns KRT_ENODEVICE (KRT_ENOBACKEND
 * when libkernrt was built without CUDA) with a message, and nothing exits.
 * Where a device is present this test has nothing to check and skips.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include "kernrt.h"
#include "tap/basic.h"

static int is_status(int want, int got, const char *what)
{
    int r = is_string(krt_status_name(want), krt_status_name(got), "%s", what);
    if (!r && got != KRT_OK)
        diag("message: %s", krt_last_error());
    return r;
}

static const krt_param params[] = {{"x", KRT_PARAM_ARRAY, KRT_FLOAT32, 1, 0}};
static const krt_kernel k = {"k", "t.kern", 1, params, NULL, NULL, 0, 0, 0, NULL};

int main(void)
{
#ifdef KRT_HAVE_CUDA
    const int want = KRT_ENODEVICE;
    const char *text = "no CUDA device";
#else
    const int want = KRT_ENOBACKEND;
    const char *text = "built without CUDA support";
#endif
    krt_array a, z;
    krt_view v;
    float host[4] = {0}, back[4];
    int64_t shape[] = {4};
    void *args[] = {&v};
    int st;

    setenv("KRT_BACKEND", "cuda", 1);
    memset(&z, 0, sizeof z);
    st = krt_alloc(&a, KRT_FLOAT32, 1, shape);
    if (st == KRT_OK)
        skip_all("a CUDA device is present");
    plan(12);
    is_status(want, st, "krt_alloc");
    ok(strstr(krt_last_error(), text) != NULL &&
           strstr(krt_last_error(), "krt_alloc: backend 'cuda' (from "
                                    "KRT_BACKEND)") != NULL,
       "message: %s", krt_last_error());
    ok(a.data == NULL && a.ndim == 0, "the array is left zeroed");
    is_status(want, krt_to_device(&a, host, KRT_FLOAT32, 1, shape, NULL),
              "krt_to_device");
    is_status(want, krt_copy_to_host(back, z, NULL), "krt_copy_to_host");
    is_status(want, krt_check_array(&k, 0, &z, &v), "krt_check_array");
    is_status(want, krt_launch(&k, krt_grid1(1, 32), args), "krt_launch");
    is_status(want, krt_synchronize(), "krt_synchronize");
    is_status(want, krt_alloc(&a, KRT_FLOAT32, 1, shape), "krt_alloc again");
    is_string("none", krt_backend_name(), "krt_backend_name");
    is_status(KRT_OK, krt_free(z), "krt_free of a zeroed array");
    is_status(KRT_EINVAL, krt_alloc(&a, KRT_FLOAT32, 0, shape),
              "argument errors still come first");
    return 0;
}
