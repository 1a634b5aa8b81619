/*
 * safety.c - the runtime refuses what used to crash or corrupt memory
 * (issue 13, item 12): a copy into (or out of) a pinned, registered or
 * mapped host buffer that is too small is KRT_EBOUNDS before a byte moves;
 * a freed array, through any copy of its handle or a view of it, is
 * KRT_ENULLARRAY wherever it is used (copies, launches, views, a second
 * krt_free or krt_free_async); a hand-made handle claiming to own memory
 * is refused; and the registry of live arrays holds up under many
 * allocations and frees.
 */
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

static void touch_cpu(const krt_cpu_block *b, void **args)
{
    (void)b;
    (void)args;
}

static const krt_param touch_params[] = {
    {"x", KRT_PARAM_ARRAY, KRT_FLOAT32, 1, 0}};
static const krt_kernel touch_k = {"touch", "safety.kern", 1, touch_params,
                                   touch_cpu, NULL, 0, 0, 0, NULL};

#define NMANY 3000

int main(void)
{
    static krt_array many[NMANY];
    float host[64], back[64], *pinned = NULL, *reg, *mh = NULL;
    int64_t n64[] = {64}, n32[] = {32}, n8[] = {8};
    krt_array a, copy, view, b, m, fake;
    krt_stream *s;
    krt_view v;
    int i, good;

    plan(41);
    is_status(KRT_OK, krt_set_backend("cpu"), "the cpu backend");
    for (i = 0; i < 64; i++)
        host[i] = (float)i;
    is_status(KRT_OK, krt_to_device(&a, host, KRT_FLOAT32, 1, n64, NULL),
              "float32[64]");

    /* Pinned buffers know their size. */
    is_status(KRT_OK, krt_host_alloc((void **)&pinned, 32 * sizeof(float)),
              "krt_host_alloc of 32 floats");
    is_status(KRT_EBOUNDS, krt_copy_to_host(pinned, a, NULL),
              "copying 64 floats into it is refused");
    ok(strstr(krt_last_error(), "needs 256 bytes") != NULL &&
           strstr(krt_last_error(), "has 128 bytes left (of 128)") != NULL,
       "message: %s", krt_last_error());
    is_status(KRT_EBOUNDS, krt_copy_to_host(pinned + 16, a, NULL),
              "so is a copy that starts inside it");
    is_status(KRT_EBOUNDS,
              krt_to_device(&b, pinned, KRT_FLOAT32, 1, n64, NULL),
              "krt_to_device reading past its end");
    ok(b.data == NULL && b.ndim == 0, "and allocates nothing");
    is_status(KRT_EBOUNDS, krt_copy_to_device(a, pinned, NULL),
              "krt_copy_to_device reading past its end");
    is_status(KRT_OK, krt_to_device(&b, host, KRT_FLOAT32, 1, n32, NULL),
              "float32[32]");
    is_status(KRT_OK, krt_copy_to_host(pinned, b, NULL),
              "an exact fit is fine");
    ok(memcmp(pinned, host, 32 * sizeof(float)) == 0, "and copied");
    krt_free(b);
    is_status(KRT_OK, krt_host_free(pinned), "krt_host_free");

    reg = malloc(40 * sizeof(float));
    is_status(KRT_OK, krt_host_register(reg, 40 * sizeof(float)),
              "krt_host_register of 40 floats");
    is_status(KRT_EBOUNDS, krt_copy_to_host(reg, a, NULL),
              "a copy of 64 floats into it is refused");
    ok(strstr(krt_last_error(), "registered buffer") != NULL,
       "message: %s", krt_last_error());
    is_status(KRT_OK, krt_stream_create(&s), "a stream");
    is_status(KRT_EBOUNDS, krt_copy_to_host(reg, a, s),
              "on a stream too, before anything is queued");
    krt_stream_destroy(s);
    krt_host_unregister(reg);
    free(reg);

    is_status(KRT_OK, krt_mapped_array(&m, (void **)&mh, KRT_FLOAT32, 1, n8),
              "a mapped float32[8]");
    is_status(KRT_EBOUNDS, krt_copy_to_host(mh, a, NULL),
              "copying 64 floats into its host side is refused");
    is_status(KRT_EINVAL, krt_host_free(mh),
              "krt_host_free does not take mapped memory");
    is_status(KRT_OK, krt_free(m), "krt_free releases it");

    /* Use after free and double free. */
    copy = a;
    is_status(KRT_OK, krt_array_slice(&view, a, 0, 8, 16, 1), "a view a[8:16]");
    is_status(KRT_OK, krt_free(a), "krt_free");
    is_status(KRT_ENULLARRAY, krt_free(a), "a second krt_free is refused");
    ok(strstr(krt_last_error(), "already freed") != NULL,
       "message: %s", krt_last_error());
    is_status(KRT_ENULLARRAY, krt_free(copy),
              "so is freeing a copy of the handle");
    is_status(KRT_ENULLARRAY, krt_free_async(copy, NULL),
              "or krt_free_async of it");
    is_status(KRT_ENULLARRAY, krt_copy_to_host(back, copy, NULL),
              "a copy from the freed array");
    ok(strstr(krt_last_error(), "was freed") != NULL,
       "message: %s", krt_last_error());
    is_status(KRT_ENULLARRAY, krt_copy_to_device(copy, host, NULL),
              "a copy into it");
    is_status(KRT_ENULLARRAY, krt_check_array(&touch_k, 0, &copy, &v),
              "a launch with it");
    is_status(KRT_ENULLARRAY, krt_copy_to_host(back, view, NULL),
              "a copy from a view of it");
    is_status(KRT_ENULLARRAY, krt_array_slice(&b, copy, 0, 0, 4, 1),
              "a new view of it");
    is_status(KRT_ENULLARRAY, krt_device_array_like(&b, copy),
              "krt_device_array_like of it");

    /* A handle the library did not make. */
    memset(&fake, 0, sizeof fake);
    fake.data = host;
    fake.dtype = KRT_FLOAT32;
    fake.ndim = 1;
    fake.shape[0] = 64;
    fake.strides[0] = 4;
    fake.flags = KRT_ARRAY_OWNED;
    fake.backend = copy.backend;
    is_status(KRT_EINVAL, krt_free(fake),
              "a hand-made handle that claims to own memory");

    /* Many arrays: every other one freed, the rest still live. */
    for (good = 1, i = 0; i < NMANY; i++)
        good &= krt_alloc(&many[i], KRT_FLOAT32, 1, n8) == KRT_OK;
    ok(good, "%d arrays", NMANY);
    for (good = 1, i = 0; i < NMANY; i += 2)
        good &= krt_free(many[i]) == KRT_OK;
    ok(good, "every other one freed");
    for (good = 1, i = 0; i < NMANY; i++)
        good &= krt_copy_to_host(back, many[i], NULL) ==
                (i % 2 ? KRT_OK : KRT_ENULLARRAY);
    ok(good, "the others are live, the freed ones refused");
    for (good = 1, i = 1; i < NMANY; i += 2)
        good &= krt_free(many[i]) == KRT_OK && krt_free(many[i]) != KRT_OK;
    ok(good, "and each frees once");
    is_status(KRT_OK, krt_synchronize(), "krt_synchronize");
    return 0;
}
