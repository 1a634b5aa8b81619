/*
 * kernrt_types.h - the scalar types of kernc: one row each, the only copy.
 *
 * Every per-type table of the runtime and of the translator is generated
 * from KRT_SCALAR_TYPES: the krt_dtype enum and its names and sizes
 * (kernrt.h, krt.c), .npy descriptors (src/npy.c), the device helpers of
 * each type (kernrt_device.h), the translator's TypeKind and type facts
 * (src/kernc.h, src/types.c), the spellings the emitter prints, numba's
 * names and aliases of each type (src/resolve.c, src/api.def), kernc run's
 * argument parsing and printing (src/run.c).  The runtime owns the table
 * because the runtime must not include the translator's sources.
 *
 * What code asks of a type is in its columns, never in its row's position:
 * the order is only the one in which kernc lists the types (cuda.reduce
 * makes a kernel per numeric type in this order), so a new row can go
 * anywhere.  Adding a type is one row here plus its semantics: a new class
 * is an SC_ value in src/kernc.h and an M_<class> of each
 * KRT_SCALAR_BY_CLASS user in kernrt_device.h (the compiler reports the
 * missing ones); then numba's casting rules (src/types.c), typing rules
 * (src/type.c) and the emitter's operations for it.
 *
 * X(ENUM, code, numba, numpy, aliases, letters, descr, sfx, ctype, stype,
 *   size, class, rank, fsfx, digits, pfmt, parg)
 *   ENUM     KRT_<ENUM> (krt_dtype), TY_<ENUM> (the translator's TypeKind)
 *   code     the krt_dtype value: the ABI of kernel descriptors, never
 *            renumbered; the codes of all dtypes are 0..KRT_DTYPE_COUNT-1
 *   numba    numba's name: types, diagnostics, signatures ("float32[:]")
 *   numpy    NumPy's name (krt_dtype_name)
 *   aliases  numba's and NumPy's other spellings of the type, as accepted in
 *            a .kern file (np.<alias>, numba.<alias>, types.<alias>, in
 *            signature strings), separated by spaces
 *   letters  numba's letter code: specialisation and ufunc names (_f4)
 *   descr    the .npy descriptor NumPy writes
 *   sfx      the suffix of the device helpers (krt_add_i32) and of tuple
 *            struct names; a token
 *   ctype    the C type of a value in generated code and device helpers
 *   stype    the C type it is stored as in arrays and passed as to the
 *            launchers (bool travels as uint8_t)
 *   size     bytes
 *   class    BOOL, SINT (signed integer), UINT (unsigned integer), FLOAT,
 *            HALF (a 16-bit float, kernrt_fp16.h: no C arithmetic on it);
 *            BF16 (bfloat16, kernrt_bf16.h: no C arithmetic on it either);
 *            COMPLEX (a pair of floats, kernrt_complex.h);
 *            code that depends on the kind of number dispatches on it
 *   rank     NumPy's order of the types for np.promote_types: the result
 *            is the first type, by rank, that both cast to safely
 *   fsfx     C's suffix for this floating type, on literals (1.5f) and on
 *            <math.h> functions (sqrtf); a token, empty for double and for
 *            non-floats
 *   digits   significant decimal digits that read a float back exactly
 *            (literals are printed with %.<digits>g); 0 for non-floats
 *   pfmt, parg  print() in a kernel: the printf conversion and the
 *            argument (%s stands for the value), as numba's CUDA print
 */
#ifndef KERNRT_TYPES_H
#define KERNRT_TYPES_H

/* clang-format off */
#define KRT_SCALAR_TABLE(X, A)                                                                         \
    X(A, BOOL,    0,  "boolean", "bool",    "b1",           "b1", "|b1", b,   bool,     uint8_t,  1, BOOL,  0,  , 0,  \
      "%s",   "%s ? \"True\" : \"False\"")                                                                 \
    X(A, INT8,    1,  "int8",    "int8",    "i1",           "i1", "|i1", i8,  int8_t,   int8_t,   1, SINT,  1,  , 0,  \
      "%lld", "(long long)%s")                                                                             \
    X(A, INT16,   2,  "int16",   "int16",   "i2",           "i2", "<i2", i16, int16_t,  int16_t,  2, SINT,  3,  , 0,  \
      "%lld", "(long long)%s")                                                                             \
    X(A, INT32,   3,  "int32",   "int32",   "i4 intc",      "i4", "<i4", i32, int32_t,  int32_t,  4, SINT,  5,  , 0,  \
      "%lld", "(long long)%s")                                                                             \
    X(A, INT64,   4,  "int64",   "int64",   "i8 intp int_", "i8", "<i8", i64, int64_t,  int64_t,  8, SINT,  7,  , 0,  \
      "%lld", "(long long)%s")                                                                             \
    X(A, UINT8,   5,  "uint8",   "uint8",   "u1",           "u1", "|u1", u8,  uint8_t,  uint8_t,  1, UINT,  2,  , 0,  \
      "%llu", "(unsigned long long)%s")                                                                    \
    X(A, UINT16,  6,  "uint16",  "uint16",  "u2",           "u2", "<u2", u16, uint16_t, uint16_t, 2, UINT,  4,  , 0,  \
      "%llu", "(unsigned long long)%s")                                                                    \
    X(A, UINT32,  7,  "uint32",  "uint32",  "u4 uintc",     "u4", "<u4", u32, uint32_t, uint32_t, 4, UINT,  6,  , 0,  \
      "%llu", "(unsigned long long)%s")                                                                    \
    X(A, UINT64,  8,  "uint64",  "uint64",  "u8 uintp",     "u8", "<u8", u64, uint64_t, uint64_t, 8, UINT,  8,  , 0,  \
      "%llu", "(unsigned long long)%s")                                                                    \
    X(A, FLOAT32, 9,  "float32", "float32", "f4 single",    "f4", "<f4", f32, float,    float,    4, FLOAT, 10, f, 9,  \
      "%f",   "(double)%s")                                                                                \
    X(A, FLOAT64, 10, "float64", "float64", "f8 double",    "f8", "<f8", f64, double,   double,   8, FLOAT, 11, , 17, \
      "%f",   "(double)%s")                                                                                \
    /* float16 (kernrt_fp16.h): computed as krt_f16, stored as krt_half; every operation is a helper */   \
    X(A, FLOAT16, 14, "float16", "float16", "f2 half",      "f2", "<f2", f16, krt_f16,  krt_half, 2, HALF,  9,  , 5,  \
      "%f",   "krt_f16_to_f64(%s)")  \
    /* bfloat16 (kernrt_bf16.h, src/bf16.c): computed as krt_bf16, stored as krt_bfloat16; every \
     * operation is a helper; .npy: '<V2', what np.save writes for ml_dtypes.bfloat16 */              \
    X(A, BFLOAT16, 15, "bfloat16", "bfloat16", "",          "bf16", "<V2", bf16, krt_bf16, krt_bfloat16, 2, \
      BF16, 9,  , 4,  "%f",   "krt_bf16_to_f64(%s)")  \
    /* complex (kernrt_complex.h): fsfx and digits are the parts' float; print() refuses them */          \
    X(A, COMPLEX64,  12, "complex64",  "complex64",  "c8 csingle",           "c8",  "<c8",  c64,  krt_c64,  \
      krt_c64,  8,  COMPLEX, 12, f, 9,  "", "")                                                            \
    X(A, COMPLEX128, 13, "complex128", "complex128", "c16 cdouble complex_", "c16", "<c16", c128, krt_c128, \
      krt_c128, 16, COMPLEX, 13, , 17, "", "")
/* clang-format on */

/* KRT_SCALAR_TABLE(X, A) calls X(A, ENUM, code, ...) for each row: A goes
 * through to X, so that an adapter can hand columns on to a macro of its
 * caller's (KRT_DTYPE_MAP, KRT_SCALAR_BY_CLASS), and X sees the columns as
 * written.  KRT_SCALAR_TYPES(X) calls X(ENUM, code, ...) through one more
 * macro, which expands the columns first (bool is _Bool under
 * <stdbool.h>): to stringify or paste a token column, use the table. */
#define KRT_SCALAR_TYPES(X) KRT_SCALAR_TABLE(KRT_SCALAR_CALL_, X)
#define KRT_SCALAR_CALL_(X, ...) X(__VA_ARGS__)

/* M_<class>(sfx, ctype, size, fsfx) for each row (M_BOOL, M_SINT, M_UINT,
 * M_FLOAT): how kernrt_device.h generates the helpers of each kind of
 * number; a new class is a compile error until every M defines it. */
#define KRT_SCALAR_BY_CLASS(M) KRT_SCALAR_TABLE(KRT_SCALAR_CLASS_ROW_, M)
#define KRT_SCALAR_CLASS_ROW_(M, e, code, numba, numpy, aliases, letters, descr, sfx, ctype, \
                              stype, size, class, rank, fsfx, digits, pfmt, parg)             \
    M##_##class(sfx, ctype, size, fsfx)

/* The number of rows. */
#define KRT_SCALAR_ONE_(...) +1
#define KRT_NSCALAR (0 KRT_SCALAR_TYPES(KRT_SCALAR_ONE_))

#endif /* KERNRT_TYPES_H */
