/*
 * kernrt.hpp - a small C++ (C++17) layer over <kernrt.h>: RAII owners for
 * device arrays, streams, events, pinned buffers and deferred-cleanup
 * sections, and numba's stream.auto_synchronize() as a scope.
 *
 * It adds no behaviour of its own: every member calls the C API, and a
 * failing call throws krt::error, which carries the status (krt_status_name)
 * and the detailed message (krt_last_error) of the failure.  Destructors
 * never throw: they release what they own and ignore the status, as the C
 * API's release calls cannot fail on a live handle; the one exception is
 * auto_synchronize, whose synchronisation is the point of the scope: its
 * destructor throws when the synchronize fails and no other exception is
 * already unwinding the stack (then the failure is dropped).
 *
 * A krt::array converts to krt_array, so it is passed straight to the
 * launchers kernc generates (NAME.kern.h) and to the ufunc and reduce host
 * functions:
 *
 *     krt::stream s;
 *     auto dx = krt::array::to_device(x.data(), {n}, &s);
 *     {
 *         auto sync = s.auto_synchronize();
 *         KRT_TRY_THROW(saxpy(krt::launch(grid, block, s), dx, dy, 2.5f));
 *         dy.copy_to_host(y.data(), &s);
 *     }                                  // s synchronised here
 */
#ifndef KERNRT_HPP
#define KERNRT_HPP

#include <cstddef>
#include <cstdint>
#include <exception>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernrt.h"

namespace krt {

/* A failed call: status() is the KRT_E* code, what() the message. */
class error : public std::runtime_error {
public:
    explicit error(int status)
        : std::runtime_error(std::string(krt_status_name(status)) + ": " +
                             krt_last_error()),
          status_(status)
    {
    }
    int status() const noexcept { return status_; }

private:
    int status_;
};

/* Throw krt::error unless status is KRT_OK. */
inline void check(int status)
{
    if (status != KRT_OK)
        throw error(status);
}

/* The dtype of a C++ element type. */
template <class T> struct dtype_of;
template <> struct dtype_of<bool> { static constexpr krt_dtype value = KRT_BOOL; };
template <> struct dtype_of<int8_t> { static constexpr krt_dtype value = KRT_INT8; };
template <> struct dtype_of<int16_t> { static constexpr krt_dtype value = KRT_INT16; };
template <> struct dtype_of<int32_t> { static constexpr krt_dtype value = KRT_INT32; };
template <> struct dtype_of<int64_t> { static constexpr krt_dtype value = KRT_INT64; };
template <> struct dtype_of<uint8_t> { static constexpr krt_dtype value = KRT_UINT8; };
template <> struct dtype_of<uint16_t> { static constexpr krt_dtype value = KRT_UINT16; };
template <> struct dtype_of<uint32_t> { static constexpr krt_dtype value = KRT_UINT32; };
template <> struct dtype_of<uint64_t> { static constexpr krt_dtype value = KRT_UINT64; };
template <> struct dtype_of<float> { static constexpr krt_dtype value = KRT_FLOAT32; };
template <> struct dtype_of<double> { static constexpr krt_dtype value = KRT_FLOAT64; };
template <> struct dtype_of<krt_xoroshiro128p_state> {
    static constexpr krt_dtype value = KRT_XOROSHIRO128P;
};

/* A shape as a braced list, {n} or {rows, cols}. */
using shape = std::initializer_list<int64_t>;

class event;

/* ---- streams ------------------------------------------------------- */

class stream {
public:
    /* A new stream on the current device. */
    stream() { check(krt_stream_create(&s_)); }
    ~stream()
    {
        if (s_ != nullptr)
            krt_stream_destroy(s_);
    }
    stream(const stream &) = delete;
    stream &operator=(const stream &) = delete;
    stream(stream &&o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
    stream &operator=(stream &&o) noexcept
    {
        if (this != &o) {
            if (s_ != nullptr)
                krt_stream_destroy(s_);
            s_ = std::exchange(o.s_, nullptr);
        }
        return *this;
    }

    krt_stream *get() const noexcept { return s_; }
    operator krt_stream *() const noexcept { return s_; }

    void synchronize() const { check(krt_stream_synchronize(s_)); }
    /* True when all its work is done. */
    bool done() const
    {
        int st = krt_stream_query(s_);
        if (st == KRT_ENOTREADY)
            return false;
        check(st);
        return true;
    }
    inline void wait(const event &e) const;
    int device() const
    {
        int d = 0;
        check(krt_stream_device(&d, s_));
        return d;
    }

    /* numba's `with stream.auto_synchronize():` the stream is
     * synchronised when the returned object goes out of scope. */
    class auto_synchronize_scope {
    public:
        explicit auto_synchronize_scope(krt_stream *s) noexcept
            : s_(s), uncaught_(std::uncaught_exceptions())
        {
        }
        auto_synchronize_scope(const auto_synchronize_scope &) = delete;
        auto_synchronize_scope &operator=(const auto_synchronize_scope &) = delete;
        auto_synchronize_scope(auto_synchronize_scope &&o) noexcept
            : s_(std::exchange(o.s_, nullptr)), uncaught_(o.uncaught_), active_(o.active_)
        {
            o.active_ = false;
        }
        ~auto_synchronize_scope() noexcept(false)
        {
            if (!active_)
                return;
            int st = krt_stream_synchronize(s_);
            /* Throw only when no other exception is on its way out. */
            if (st != KRT_OK && std::uncaught_exceptions() == uncaught_)
                throw error(st);
        }

    private:
        krt_stream *s_;
        int uncaught_;
        bool active_ = true;
    };
    auto_synchronize_scope auto_synchronize() const noexcept
    {
        return auto_synchronize_scope(s_);
    }

private:
    krt_stream *s_ = nullptr;
};

/* ---- events -------------------------------------------------------- */

class event {
public:
    event() { check(krt_event_create(&e_)); }
    ~event()
    {
        if (e_ != nullptr)
            krt_event_destroy(e_);
    }
    event(const event &) = delete;
    event &operator=(const event &) = delete;
    event(event &&o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
    event &operator=(event &&o) noexcept
    {
        if (this != &o) {
            if (e_ != nullptr)
                krt_event_destroy(e_);
            e_ = std::exchange(o.e_, nullptr);
        }
        return *this;
    }

    krt_event *get() const noexcept { return e_; }
    operator krt_event *() const noexcept { return e_; }

    /* Record on s (nullptr: the default stream). */
    void record(krt_stream *s = nullptr) const { check(krt_event_record(e_, s)); }
    void synchronize() const { check(krt_event_synchronize(e_)); }
    bool done() const
    {
        int st = krt_event_query(e_);
        if (st == KRT_ENOTREADY)
            return false;
        check(st);
        return true;
    }
    /* Milliseconds from start's record to this one's. */
    float elapsed_ms_since(const event &start) const
    {
        float ms = 0;
        check(krt_event_elapsed_ms(&ms, start.e_, e_));
        return ms;
    }

private:
    krt_event *e_ = nullptr;
};

inline void stream::wait(const event &e) const
{
    check(krt_stream_wait_event(s_, e.get()));
}

/* ---- launch configurations ------------------------------------------- */

inline krt_launch_cfg launch(unsigned grid, unsigned block,
                             krt_stream *s = nullptr, size_t shared_bytes = 0)
{
    krt_launch_cfg c = krt_grid1(grid, block);
    c.stream = s;
    c.shared_bytes = shared_bytes;
    return c;
}

inline krt_launch_cfg launch(krt_dim3 grid, krt_dim3 block,
                             krt_stream *s = nullptr, size_t shared_bytes = 0)
{
    krt_launch_cfg c = krt_grid3(grid.x, grid.y, grid.z, block.x, block.y, block.z);
    c.stream = s;
    c.shared_bytes = shared_bytes;
    return c;
}

/* ---- device arrays ---------------------------------------------------- */

/* Owns a krt_array (or holds a view, which owns nothing); move-only. */
class array {
public:
    array() noexcept = default;
    /* Take over a krt_array made by the C API. */
    explicit array(const krt_array &a) noexcept : a_(a) {}
    ~array() { krt_free(a_); }
    array(const array &) = delete;
    array &operator=(const array &) = delete;
    array(array &&o) noexcept : a_(o.release()) {}
    array &operator=(array &&o) noexcept
    {
        if (this != &o) {
            krt_free(a_);
            a_ = o.release();
        }
        return *this;
    }

    /* Uninitialised, C-contiguous, on the current device. */
    static array empty(krt_dtype dtype, shape s)
    {
        krt_array a;
        check(krt_alloc(&a, dtype, static_cast<int>(s.size()), s.begin()));
        return array(a);
    }
    template <class T> static array empty(shape s)
    {
        return empty(dtype_of<T>::value, s);
    }
    /* A copy of C-contiguous host data of that shape. */
    template <class T>
    static array to_device(const T *host, shape s, krt_stream *st = nullptr)
    {
        krt_array a;
        check(krt_to_device(&a, host, dtype_of<T>::value,
                            static_cast<int>(s.size()), s.begin(), st));
        return array(a);
    }
    template <class T>
    static array to_device(const std::vector<T> &host, krt_stream *st = nullptr)
    {
        return to_device(host.data(), {static_cast<int64_t>(host.size())}, st);
    }
    /* Mapped host memory (numba's mapped_array); *host gets its host side. */
    template <class T> static array mapped(shape s, T **host)
    {
        krt_array a;
        void *h = nullptr;
        check(krt_mapped_array(&a, &h, dtype_of<T>::value,
                               static_cast<int>(s.size()), s.begin()));
        *host = static_cast<T *>(h);
        return array(a);
    }
    /* A new array of the same dtype and shape. */
    array empty_like() const
    {
        krt_array a;
        check(krt_device_array_like(&a, a_));
        return array(a);
    }

    /* Views (they own nothing and must not outlive this array). */
    array slice(int64_t start, int64_t stop, int64_t step = 1, int dim = 0) const
    {
        krt_array v;
        check(krt_array_slice(&v, a_, dim, start, stop, step));
        return array(v);
    }
    array operator[](int64_t index) const
    {
        krt_array v;
        check(krt_array_index(&v, a_, index));
        return array(v);
    }

    template <class T> void copy_to_host(T *host, krt_stream *st = nullptr) const
    {
        check(krt_copy_to_host(host, a_, st));
    }
    /* The whole array, in C order, copied on the default stream. */
    template <class T> std::vector<T> to_host() const
    {
        std::vector<T> v(static_cast<size_t>(size()));
        check(krt_copy_to_host(v.data(), a_, nullptr));
        return v;
    }
    template <class T> void copy_to_device(const T *host, krt_stream *st = nullptr) const
    {
        check(krt_copy_to_device(a_, host, st));
    }
    void copy_from(const array &src, krt_stream *st = nullptr) const
    {
        check(krt_copy_device(a_, src.a_, st));
    }

    /* Free now (waits as krt_free) or once s's queued work is done. */
    void reset() noexcept { krt_free(release()); }
    void free_async(krt_stream *s)
    {
        krt_array a = a_;
        check(krt_free_async(a, s));
        a_ = krt_array();
    }
    /* Give up ownership: the caller frees the returned handle. */
    krt_array release() noexcept { return std::exchange(a_, krt_array()); }

    const krt_array &get() const noexcept { return a_; }
    operator krt_array() const noexcept { return a_; }

    krt_dtype dtype() const noexcept { return a_.dtype; }
    int ndim() const noexcept { return a_.ndim; }
    int64_t extent(int d) const noexcept { return a_.shape[d]; }
    int64_t size() const noexcept { return krt_array_size(&a_); }
    size_t nbytes() const noexcept { return krt_array_nbytes(&a_); }
    int device() const noexcept { return a_.device; }
    bool is_view() const noexcept { return a_.data != nullptr && !(a_.flags & KRT_ARRAY_OWNED); }
    void *device_ptr() const noexcept { return a_.data; }

private:
    krt_array a_{};
};

/* ---- pinned host memory, deferred cleanup, devices --------------------- */

/* n elements of page-locked host memory (krt_host_alloc). */
template <class T> class pinned_buffer {
public:
    explicit pinned_buffer(size_t n) : n_(n)
    {
        void *p = nullptr;
        check(krt_host_alloc(&p, n * sizeof(T)));
        p_ = static_cast<T *>(p);
    }
    ~pinned_buffer()
    {
        if (p_ != nullptr)
            krt_host_free(p_);
    }
    pinned_buffer(const pinned_buffer &) = delete;
    pinned_buffer &operator=(const pinned_buffer &) = delete;
    pinned_buffer(pinned_buffer &&o) noexcept
        : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0))
    {
    }

    T *data() const noexcept { return p_; }
    size_t size() const noexcept { return n_; }
    T &operator[](size_t i) const noexcept { return p_[i]; }

private:
    T *p_ = nullptr;
    size_t n_ = 0;
};

/* numba's `with cuda.defer_cleanup():` as a scope. */
class defer_cleanup {
public:
    defer_cleanup() { check(krt_defer_begin()); }
    ~defer_cleanup() { krt_defer_end(); }
    defer_cleanup(const defer_cleanup &) = delete;
    defer_cleanup &operator=(const defer_cleanup &) = delete;
};

inline bool is_available() noexcept { return krt_is_available() != 0; }

inline int device_count()
{
    int n = 0;
    check(krt_device_count(&n));
    return n;
}

inline int current_device()
{
    int d = 0;
    check(krt_get_device(&d));
    return d;
}

inline void select_device(int dev) { check(krt_set_device(dev)); }

inline krt_device_props device_props(int dev)
{
    krt_device_props p;
    check(krt_get_device_props(&p, dev));
    return p;
}

inline void synchronize() { check(krt_synchronize()); }

} // namespace krt

/* For a launcher's status inside C++ code that uses exceptions. */
#define KRT_TRY_THROW(expr) ::krt::check(expr)

#endif /* KERNRT_HPP */
