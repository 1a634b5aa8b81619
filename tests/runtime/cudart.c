/*
 * cudart.c - libkernrt without the CUDA runtime library: with KRT_CUDART
 * pointing at a file that does not exist, the cuda backend cannot load
 * libcudart, so krt_is_available() says 0, choosing "cuda" fails with
 * KRT_ENOBACKEND and the loader's message (replayed by later calls), "auto"
 * falls back to the CPU, which works, and libcudart is never loaded into
 * the process (nothing links it: tests/nocuda.sh checks the NEEDED
 * entries).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "kernrt.h"
#include "tap/basic.h"

#ifndef KRT_CUDART_SONAME
#define KRT_CUDART_SONAME "libcudart.so"
#endif

static int is_status(int want, int got, const char *what)
{
    int r = is_string(krt_status_name(want), krt_status_name(got), "%s", what);
    if (!r && got != KRT_OK)
        diag("message: %s", krt_last_error());
    return r;
}

int main(void)
{
    float host[8] = {1, 2, 3, 4, 5, 6, 7, 8}, back[8] = {0};
    int64_t shape[] = {8};
    krt_array a;
    void *h;
#ifdef KRT_HAVE_CUDA
    const int want = KRT_ENOBACKEND;
    const char *text = "cannot load the CUDA runtime library";
#else
    const int want = KRT_ENOBACKEND;
    const char *text = "built without CUDA support";
#endif

    plan(11);
    setenv("KRT_CUDART", "/nonexistent/libcudart.so.13", 1);
    is_int(0, krt_is_available(), "krt_is_available() without libcudart");
    is_status(want, krt_set_backend("cuda"), "krt_set_backend(\"cuda\")");
    ok(strstr(krt_last_error(), text) != NULL,
       "message: %s", krt_last_error());
#ifdef KRT_HAVE_CUDA
    ok(strstr(krt_last_error(), "/nonexistent/libcudart.so.13") != NULL,
       "the message names the library it tried");
#else
    ok(1, "no library to name without CUDA support");
#endif
    is_status(want, krt_alloc(&a, KRT_FLOAT32, 1, shape),
              "later calls fail the same way");
    is_status(KRT_OK, krt_set_backend("auto"), "krt_set_backend(\"auto\")");
    is_string("cpu", krt_backend_name(), "auto fell back to the cpu");
    is_status(KRT_OK, krt_to_device(&a, host, KRT_FLOAT32, 1, shape, NULL),
              "krt_to_device on the cpu");
    is_status(KRT_OK, krt_copy_to_host(back, a, NULL), "krt_copy_to_host");
    ok(memcmp(host, back, sizeof host) == 0 && krt_free(a) == KRT_OK,
       "round trip and free");
    h = dlopen(KRT_CUDART_SONAME, RTLD_NOW | RTLD_NOLOAD);
    ok(h == NULL, "%s was never loaded into this process", KRT_CUDART_SONAME);
    if (h != NULL)
        dlclose(h);
    return 0;
}
