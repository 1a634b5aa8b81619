/*
 * kernrt.h - the public interface of libkernrt, the kernc runtime.
 *
 * A host program moves data to the device, launches kernels through the typed
 * launchers that kernc generates (FILE.kern.h), and copies results back.  Every
 * call returns a status (KRT_OK or a negative KRT_E* code); krt_strerror() and
 * krt_status_name() give static text for a code, krt_last_error() the detailed
 * message of the last failure on this thread.  The library never calls exit()
 * or abort() on user error.
 *
 * Two backends sit behind one interface: "cuda" (the CUDA runtime API, built
 * when configure finds the CUDA toolkit) and "cpu" (always), chosen at run time
 * by KRT_BACKEND=cpu|cuda|auto (auto: cuda if a device is present, else cpu)
 * or krt_set_backend() before the first other call.
 *
 * The second half of this header ("for generated code") is the ABI between
 * kernc's output and the runtime: kernel descriptors, array views passed to
 * kernels, and the block context the CPU backend hands to a kernel.
 *
 * This header is valid C99 and C++ (nvcc compiles the generated .cu as C++).
 */
#ifndef KERNRT_H
#define KERNRT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#define KRT_EXTERN_C extern "C"
extern "C" {
#else
#define KRT_EXTERN_C
#endif

/* ------------------------------------------------------------------ */
/* Status codes                                                        */
/* ------------------------------------------------------------------ */

/* X(NAME, message): KRT_E##NAME = -(position), KRT_OK = 0. */
#define KRT_STATUS_MAP(X)                                                    \
    X(INVAL, "invalid argument")                                             \
    X(NOMEM, "out of memory")                                                \
    X(NULLARRAY, "array is null or was freed")                               \
    X(DTYPE, "array has the wrong dtype")                                    \
    X(NDIM, "array has the wrong number of dimensions")                      \
    X(LAYOUT, "array is not C-contiguous")                                   \
    X(SHAPE, "array shapes do not match")                                    \
    X(LAUNCH, "invalid launch configuration")                                \
    X(BLOCKSIZE, "too many threads per block (at most 1024)")                \
    X(SHARED, "too much shared memory for one block")                        \
    X(NOBACKEND, "backend not available")                                    \
    X(NODEVICE, "no CUDA device")                                            \
    X(NOCODE, "kernel was not compiled for this backend")                    \
    X(CUDA, "CUDA error")                                                    \
    X(KERNEL, "error raised inside a kernel")                                \
    X(IO, "input/output error")                                              \
    X(BACKENDMIX, "array belongs to another backend")                        \
    X(INTERNAL, "internal error")

enum {
    KRT_OK = 0,
#define KRT_STATUS_ENUM_(name, msg) KRT_E##name##_INDEX_,
    KRT_STATUS_MAP(KRT_STATUS_ENUM_)
#undef KRT_STATUS_ENUM_
    KRT_STATUS_COUNT_
};
#define KRT_STATUS_CODE_(name, msg) KRT_E##name = -(int)KRT_E##name##_INDEX_,
enum { KRT_STATUS_MAP(KRT_STATUS_CODE_) KRT_STATUS_LAST_ = 0 };
#undef KRT_STATUS_CODE_

/* Static text for a status ("success", "array has the wrong dtype", ...). */
const char *krt_strerror(int status);
/* The enum spelling ("KRT_OK", "KRT_EDTYPE", ...). */
const char *krt_status_name(int status);
/* The detailed message of the last failing call on this thread (never NULL). */
const char *krt_last_error(void);

/* Return the status of an expression from the enclosing function on failure. */
#define KRT_TRY(expr)                                                        \
    do {                                                                     \
        int krt_try_status_ = (expr);                                        \
        if (krt_try_status_ != KRT_OK)                                       \
            return krt_try_status_;                                          \
    } while (0)

/* ------------------------------------------------------------------ */
/* Data types                                                          */
/* ------------------------------------------------------------------ */

/* X(ENUM, C type, size, NumPy descr) */
#define KRT_DTYPE_MAP(X)                                                     \
    X(BOOL, uint8_t, 1, "|b1")                                               \
    X(INT8, int8_t, 1, "|i1")                                                \
    X(INT16, int16_t, 2, "<i2")                                              \
    X(INT32, int32_t, 4, "<i4")                                              \
    X(INT64, int64_t, 8, "<i8")                                              \
    X(UINT8, uint8_t, 1, "|u1")                                              \
    X(UINT16, uint16_t, 2, "<u2")                                            \
    X(UINT32, uint32_t, 4, "<u4")                                            \
    X(UINT64, uint64_t, 8, "<u8")                                            \
    X(FLOAT32, float, 4, "<f4")                                              \
    X(FLOAT64, double, 8, "<f8")

typedef enum krt_dtype {
#define KRT_DTYPE_ENUM_(e, ct, sz, descr) KRT_##e,
    KRT_DTYPE_MAP(KRT_DTYPE_ENUM_)
#undef KRT_DTYPE_ENUM_
    KRT_DTYPE_COUNT
} krt_dtype;

size_t krt_dtype_size(krt_dtype t);            /* 0 for an invalid dtype */
const char *krt_dtype_name(krt_dtype t);       /* "float32", ... or "?" */

/* ------------------------------------------------------------------ */
/* Backends                                                            */
/* ------------------------------------------------------------------ */

/* Choose "cpu", "cuda" or "auto" before any other call; afterwards only the
 * backend already chosen is accepted.  Without it, KRT_BACKEND decides. */
int krt_set_backend(const char *name);
/* "cpu" or "cuda": initialises the backend if needed. */
const char *krt_backend_name(void);
/* Wait until all work on the device has finished. */
int krt_synchronize(void);

/* ------------------------------------------------------------------ */
/* Device arrays                                                       */
/* ------------------------------------------------------------------ */

#define KRT_MAX_NDIM 4

typedef struct krt_stream krt_stream;     /* opaque; NULL is the default stream */

typedef struct krt_array {
    void *data;                      /* device memory (host memory on cpu) */
    krt_dtype dtype;
    int ndim;
    int64_t shape[KRT_MAX_NDIM];
    int64_t strides[KRT_MAX_NDIM];   /* in bytes, as NumPy */
    unsigned flags;                  /* KRT_ARRAY_* */
    int backend;                     /* internal: which backend owns data */
} krt_array;

#define KRT_ARRAY_OWNED 1u            /* krt_free releases data */

/* Allocate an uninitialised C-contiguous array. */
int krt_alloc(krt_array *out, krt_dtype dtype, int ndim, const int64_t *shape);
/* Allocate and copy ndim/shape elements of C-contiguous host data. */
int krt_to_device(krt_array *out, const void *host, krt_dtype dtype, int ndim,
                  const int64_t *shape, krt_stream *stream);
/* Copy the whole array to host memory of a.nbytes (C order). */
int krt_copy_to_host(void *host, krt_array a, krt_stream *stream);
/* Release memory an array owns; a zeroed or already freed array is ignored. */
int krt_free(krt_array a);
/* Number of elements, and size in bytes of a C-contiguous copy. */
int64_t krt_array_size(const krt_array *a);
size_t krt_array_nbytes(const krt_array *a);
/* 1 if the array is C-contiguous. */
int krt_array_is_contiguous(const krt_array *a);

/* ------------------------------------------------------------------ */
/* Launch configuration                                                */
/* ------------------------------------------------------------------ */

typedef struct krt_dim3 {
    unsigned x, y, z;
} krt_dim3;

typedef struct krt_launch_cfg {
    krt_dim3 grid;
    krt_dim3 block;
    size_t shared_bytes;             /* dynamic shared memory */
    krt_stream *stream;
} krt_launch_cfg;

krt_launch_cfg krt_grid1(unsigned grid, unsigned block);
krt_launch_cfg krt_grid2(unsigned gx, unsigned gy, unsigned bx, unsigned by);
krt_launch_cfg krt_grid3(unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                         unsigned by, unsigned bz);
/* cfg with dynamic shared memory of the given size. */
krt_launch_cfg krt_with_shared(krt_launch_cfg cfg, size_t bytes);

/* ================================================================== */
/* For generated code                                                 */
/* ================================================================== */

/* An array as a kernel sees it: passed by value to CUDA and CPU kernels. */
typedef struct krt_view {
    char *data;
    int64_t shape[KRT_MAX_NDIM];
    int64_t strides[KRT_MAX_NDIM];   /* bytes */
} krt_view;

enum krt_param_kind {
    KRT_PARAM_SCALAR,
    KRT_PARAM_ARRAY
};

typedef struct krt_param {
    const char *name;                /* the .kern parameter name */
    int kind;                        /* krt_param_kind */
    krt_dtype dtype;                 /* scalar type or array element type */
    int ndim;                        /* arrays */
    int contiguous;                  /* arrays: 1 if the signature says [::1] */
} krt_param;

/* The block context the CPU backend hands to a kernel's CPU function, which
 * runs every thread of one block (see kernc's emitter for how barriers are
 * honoured). */
typedef struct krt_cpu_block {
    krt_dim3 block_idx;
    krt_dim3 block_dim;
    krt_dim3 grid_dim;
    char *shared;                    /* kernel->shared_bytes, 64-byte aligned */
    char *dyn_shared;                /* cfg.shared_bytes, 64-byte aligned */
    size_t dyn_shared_bytes;
    char *frame;                     /* kernel->frame_bytes * threads, aligned */
    int *error;                      /* a kernel sets *error = KRT_E... */
} krt_cpu_block;

typedef void (*krt_cpu_fn)(const krt_cpu_block *block, void **args);

typedef struct krt_kernel {
    const char *name;                /* the .kern kernel name */
    const char *file;                /* the .kern file it came from */
    int nparams;
    const krt_param *params;
    krt_cpu_fn cpu;                  /* NULL: not compiled for the CPU */
    const void *cuda;                /* __global__ function; NULL in C output */
    size_t shared_bytes;             /* static shared memory of the CPU code */
    size_t frame_bytes;              /* per-thread state of the CPU code */
} krt_kernel;

/* Every kernel of one .kern file: the symbol krt_module_<base> in the
 * generated code, where <base> is the file's base name with every character
 * that is not [A-Za-z0-9_] replaced by '_'. */
typedef struct krt_module {
    const char *file;
    int nkernels;
    const krt_kernel *const *kernels;
} krt_module;

/* Check one argument against its parameter; fills the view.  The status names
 * the parameter in krt_last_error(). */
int krt_check_array(const krt_kernel *k, int param, const krt_array *a,
                    krt_view *out);
/* Launch: args[i] points to the value of parameter i (a krt_view for arrays,
 * the scalar's C type otherwise).  Checks the configuration first. */
int krt_launch(const krt_kernel *k, krt_launch_cfg cfg, void **args);

/* For a kernel's CPU code: fail the launch with status (a KRT_E* code;
 * anything else counts as KRT_EKERNEL) and a message that krt_last_error()
 * will show after krt_launch returns, with the kernel and the block index in
 * front.  Sets *block->error; the first failing block of a launch wins and no
 * further blocks start.  Returns the status recorded. */
int krt_cpu_fail(const krt_cpu_block *block, int status, const char *message);

#ifdef __cplusplus
}
#endif
#endif /* KERNRT_H */
