/*
 * cxx.cc - the public headers as C++17 (compiled with -Wall -Wextra
 * -Werror) and the C++ layer of <kernrt.hpp> on the cpu backend: KRT_SHAPE
 * in place of C's compound literal, RAII arrays passed to a launcher kernc
 * generated (examples/double.kern), views, streams with an
 * auto_synchronize scope (which throws a queued kernel's error at its
 * end), events, free_async, pinned buffers, deferred cleanup, devices, and
 * krt::error for a failing call.
 */
#include <cstring>
#include <stdexcept>
#include <vector>

#include "kernrt.h"
#include "kernrt_device.h"
#include "kernrt_random.h"
#include "kernrt.hpp"
#include "double.kern.h"
#include "tap/basic.h"

namespace {

/* fail(x): every block fails, as a kernel's assert would. */
void fail_cpu(const krt_cpu_block *b, void **)
{
    krt_cpu_fail(b, KRT_EKERNEL, "failed on purpose");
}

const krt_param fail_params[] = {{"x", KRT_PARAM_ARRAY, KRT_FLOAT32, 1, 0}};
const krt_kernel fail_k = {"fail", "cxx.kern", 1, fail_params, fail_cpu,
                           nullptr, 0, 0, 0, NULL};

int fail_launch(krt_launch_cfg cfg, krt_array x)
{
    krt_view v;
    void *args[] = {&v};

    KRT_TRY(krt_check_array(&fail_k, 0, &x, &v));
    return krt_launch(&fail_k, cfg, args);
}

} // namespace

int main()
{
    const int n = 1000;
    std::vector<float> x(n), back(n);
    bool good;

    plan(25);
    is_int(KRT_OK, krt_set_backend("cpu"), "the cpu backend");
    for (int i = 0; i < n; i++)
        x[i] = 0.5f * static_cast<float>(i);

    /* The C API from C++: KRT_SHAPE for the compound literal. */
    krt_array c;
    is_int(KRT_OK, krt_to_device(&c, x.data(), KRT_FLOAT32, 1, KRT_SHAPE(n), nullptr),
           "krt_to_device with KRT_SHAPE(n)");
    is_int(KRT_OK, double_it(krt_grid1((n + 255) / 256, 256), c), "the generated launcher");
    is_int(KRT_OK, krt_copy_to_host(back.data(), c, nullptr), "krt_copy_to_host");
    ok(back[7] == 7.0f && back[n - 1] == static_cast<float>(n - 1), "doubled");
    is_int(KRT_OK, krt_free(c), "krt_free");

    /* RAII arrays. */
    krt_array saved;
    {
        auto d = krt::array::to_device(x);
        is_int(KRT_OK, double_it(krt::launch((n + 255) / 256, 256), d),
               "a krt::array passed to the launcher");
        auto h = d.to_host<float>();
        good = h.size() == static_cast<size_t>(n);
        for (int i = 0; good && i < n; i++)
            good = h[i] == 2 * x[i];
        ok(good, "to_host: every element doubled");
        auto v = d.slice(100, 200);
        ok(v.is_view() && v.size() == 100, "slice(100, 200) is a view of 100");
        is_int(KRT_OK, double_it(krt::launch(1, 128), v), "launch on the view");
        h = d.to_host<float>();
        ok(h[99] == 2 * x[99] && h[100] == 4 * x[100] && h[199] == 4 * x[199] &&
               h[200] == 2 * x[200],
           "only the view's elements doubled again");
        krt::array moved = std::move(d);
        ok(d.get().data == nullptr && moved.size() == n, "a moved-from array is empty");
        saved = moved.get();
    }
    is_int(KRT_ENULLARRAY, krt_copy_to_host(back.data(), saved, nullptr),
           "the array was freed once, at the end of its scope");

    /* Streams, auto_synchronize, events. */
    {
        krt::stream s;
        krt::event start, stop;
        auto d = krt::array::empty<float>({n});
        {
            auto sync = s.auto_synchronize();
            start.record(s);
            d.copy_to_device(x.data(), s);
            KRT_TRY_THROW(double_it(krt::launch((n + 255) / 256, 256, s), d));
            d.copy_to_host(back.data(), s);
            stop.record(s);
        }
        ok(s.done(), "the stream is idle after the auto_synchronize scope");
        ok(back[n - 1] == 2 * x[n - 1], "and the results are there");
        ok(stop.elapsed_ms_since(start) >= 0.0f, "elapsed %.3f ms", stop.elapsed_ms_since(start));
        d.free_async(s);
        ok(d.get().data == nullptr, "free_async gives the handle up");

        auto e = krt::array::empty<float>({32});
        bool threw = false;
        try {
            auto sync = s.auto_synchronize();
            KRT_TRY_THROW(fail_launch(krt::launch(1, 32, s), e));
        } catch (const krt::error &err) {
            threw = err.status() == KRT_EKERNEL &&
                    std::strstr(err.what(), "failed on purpose") != nullptr;
            diag("caught: %s", err.what());
        }
        ok(threw, "auto_synchronize throws the queued kernel's error");
    }

    /* Errors are exceptions. */
    try {
        auto bad = krt::array::empty<float>({-1});
        ok(false, "a negative extent was accepted");
    } catch (const krt::error &err) {
        is_int(KRT_EINVAL, err.status(), "krt::error carries the status: %s", err.what());
    }

    /* Pinned memory, deferred cleanup, devices. */
    {
        krt::pinned_buffer<float> p(n);
        auto d = krt::array::to_device(x);
        d.copy_to_host(p.data());
        ok(p[n - 1] == x[n - 1], "copy into a pinned buffer");
        bool refused = false;
        auto big = krt::array::empty<float>({2 * n});
        try {
            big.copy_to_host(p.data());
        } catch (const krt::error &err) {
            refused = err.status() == KRT_EBOUNDS;
        }
        ok(refused, "a copy too large for it is refused (KRT_EBOUNDS)");
    }
    {
        krt::defer_cleanup section;
        auto d = krt::array::to_device(x);
        ok(d.size() == n, "an array inside a deferred-cleanup section");
    }
    is_int(1, krt::device_count(), "one cpu device");
    is_int(0, krt::current_device(), "device 0 is current");
    krt_device_props props = krt::device_props(0);
    ok(props.is_cpu == 1 && props.warp_size == 32, "its properties: %s", props.name);
    return 0;
}
