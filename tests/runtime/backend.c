/*
 * backend.c - backend selection: a bad KRT_BACKEND value fails every call
 * with KRT_EINVAL and the same message, krt_set_backend can still pick a
 * backend that works, and once one runs it cannot be switched.
 *
 * The environment is set by the test itself before the first call, since
 * the choice is made once per process.
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

static int contains(const char *hay, const char *needle)
{
    return strstr(hay, needle) != NULL;
}

static const krt_param params[] = {{"x", KRT_PARAM_ARRAY, KRT_FLOAT32, 1, 0}};
static const krt_kernel k = {"k", "t.kern", 1, params, NULL, NULL, 0, 0, 0, NULL};

int main(void)
{
    krt_array a, z;
    krt_view v;
    float host[4] = {1, 2, 3, 4}, back[4];
    int64_t shape[] = {4};
    void *args[] = {&v};

    setenv("KRT_BACKEND", "gpu", 1);
    plan(22);

    memset(&z, 0, sizeof z);
    is_status(KRT_EINVAL, krt_alloc(&a, KRT_FLOAT32, 1, shape),
              "KRT_BACKEND=gpu: krt_alloc");
    is_string("krt_alloc: backend 'gpu' (from KRT_BACKEND): unknown backend; "
              "expected cpu, cuda or auto",
              krt_last_error(), "message names the variable and the value");
    is_status(KRT_EINVAL, krt_to_device(&a, host, KRT_FLOAT32, 1, shape, NULL),
              "KRT_BACKEND=gpu: krt_to_device");
    ok(contains(krt_last_error(), "krt_to_device: backend 'gpu'"),
       "the same message for each call: %s", krt_last_error());
    is_status(KRT_EINVAL, krt_copy_to_host(back, z, NULL),
              "KRT_BACKEND=gpu: krt_copy_to_host");
    is_status(KRT_EINVAL, krt_check_array(&k, 0, &z, &v),
              "KRT_BACKEND=gpu: krt_check_array");
    is_status(KRT_EINVAL, krt_launch(&k, krt_grid1(1, 1), args),
              "KRT_BACKEND=gpu: krt_launch");
    is_status(KRT_EINVAL, krt_synchronize(), "KRT_BACKEND=gpu: krt_synchronize");
    is_string("none", krt_backend_name(), "krt_backend_name says none");
    is_status(KRT_OK, krt_free(z), "krt_free of a zeroed array still works");

    /* Without a device, cuda fails; with one, it would be chosen. */
    {
        int st = krt_set_backend("cuda");
#ifdef KRT_HAVE_CUDA
        if (st == KRT_OK) {
            skip_block(2, "a CUDA device is present");
            /* Leave cuda in use: the rest works on it just the same. */
        } else {
            is_status(KRT_ENODEVICE, st, "krt_set_backend(\"cuda\") without a "
                                         "device");
            is_status(KRT_ENODEVICE, krt_alloc(&a, KRT_FLOAT32, 1, shape),
                      "then krt_alloc fails the same way");
        }
#else
        is_status(KRT_ENOBACKEND, st, "krt_set_backend(\"cuda\") without CUDA "
                                      "support");
        is_status(KRT_ENOBACKEND, krt_alloc(&a, KRT_FLOAT32, 1, shape),
                  "then krt_alloc fails the same way");
#endif
        diag("cuda: %s", st == KRT_OK ? "available" : krt_last_error());
        if (st != KRT_OK)
            is_status(KRT_OK, krt_set_backend("cpu"),
                      "krt_set_backend(\"cpu\") after a failed choice");
        else
            is_status(KRT_OK, krt_set_backend("cuda"), "cuda chosen again");
    }
    ok(strcmp(krt_backend_name(), "cpu") == 0 ||
           strcmp(krt_backend_name(), "cuda") == 0,
       "a backend runs: %s", krt_backend_name());
    is_status(KRT_OK, krt_to_device(&a, host, KRT_FLOAT32, 1, shape, NULL),
              "krt_to_device works now");
    is_status(KRT_OK, krt_copy_to_host(back, a, NULL), "and copies back");
    is_blob(host, back, sizeof host, "same data");
    is_status(KRT_EINVAL,
              krt_set_backend(strcmp(krt_backend_name(), "cpu") == 0 ? "cuda"
                                                                     : "cpu"),
              "the other backend is refused now");
    ok(contains(krt_last_error(), "already in use"), "message: %s",
       krt_last_error());
    is_status(KRT_OK, krt_set_backend(krt_backend_name()),
              "the running backend is accepted");
    is_status(KRT_OK, krt_free(a), "krt_free");
    is_status(KRT_OK, krt_synchronize(), "krt_synchronize");
    return 0;
}
