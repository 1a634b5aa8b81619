/*
 * kernrt_cmath.h - the device helpers of complex64 and complex128 that
 * generated code calls: construction and conversion, numba's complex
 * arithmetic (numba/cuda/cpython/numbers.py), its `**` (mathimpl.py's
 * cpow_implement) and its cmath (cpython/cmathimpl.py), each written as
 * numba-cuda types and computes it: the same formulas, the same special
 * cases, and the same float type for each operation (a float64 constant
 * in numba's code makes that operation float64, as it does there).
 * kernrt_device.h includes this file; it uses KRT_FN from there.
 *
 * Suffixes: _c64 (krt_c64, float parts), _c128 (krt_c128, double parts).
 */
#ifndef KERNRT_CMATH_H
#define KERNRT_CMATH_H

#include <math.h>
#include <kernrt_complex.h>

KRT_FN krt_c64 krt_cmake_c64(float re, float im) { krt_c64 z; z.re = re; z.im = im; return z; }
KRT_FN krt_c128 krt_cmake_c128(double re, double im) { krt_c128 z; z.re = re; z.im = im; return z; }
KRT_FN krt_c64 krt_c64_of_c128(krt_c128 z) { return krt_cmake_c64((float)z.re, (float)z.im); }
KRT_FN krt_c128 krt_c128_of_c64(krt_c64 z) { return krt_cmake_c128(z.re, z.im); }

/* Per type: (suffix, complex type, float type, <math.h> suffix) */
#define KRT_CMATH_OPS_(s, C, F, m)                                     \
    KRT_FN C krt_cadd_##s(C a, C b) { return krt_cmake_##s(a.re + b.re, a.im + b.im); } \
    KRT_FN C krt_csub_##s(C a, C b) { return krt_cmake_##s(a.re - b.re, a.im - b.im); } \
    KRT_FN C krt_cmul_##s(C a, C b)                                          \
    {                                                                        \
        F ac = a.re * b.re, bd = a.im * b.im, ad = a.re * b.im, bc = a.im * b.re; \
        return krt_cmake_##s(ac - bd, ad + bc);                              \
    }                                                                        \
    /* CPython's _Py_c_quot, as complex_div_impl; a zero divisor, for     \
     * which numba raises ZeroDivisionError, is krt_cdivz's (below). */     \
    KRT_FN C krt_cdiv_##s(C a, C b)                                          \
    {                                                                        \
        F ratio, denom;                                                      \
        if (fabs##m(b.re) >= fabs##m(b.im)) {                                \
            if (b.re == 0)                                                   \
                return krt_cmake_##s((F)NAN, (F)NAN);                        \
            ratio = b.im / b.re;                                             \
            denom = b.re + b.im * ratio;                                     \
            return krt_cmake_##s((a.re + a.im * ratio) / denom, (a.im - a.re * ratio) / denom); \
        }                                                                    \
        if (b.im == 0)                                                       \
            return krt_cmake_##s((F)NAN, (F)NAN);                            \
        ratio = b.re / b.im;                                                 \
        denom = b.re * ratio + b.im;                                         \
        return krt_cmake_##s((a.re * ratio + a.im) / denom, (a.im * ratio - a.re) / denom); \
    }                                                                        \
    KRT_FN C krt_cneg_##s(C a) { return krt_cmake_##s(-a.re, -a.im); }     \
    KRT_FN C krt_cconj_##s(C a) { return krt_cmake_##s(a.re, -a.im); }     \
    KRT_FN bool krt_ceq_##s(C a, C b) { return a.re == b.re && a.im == b.im; } \
    KRT_FN bool krt_cne_##s(C a, C b) { return a.re != b.re || a.im != b.im; } \
    KRT_FN bool krt_ctrue_##s(C a) { return a.re != 0 || a.im != 0; }      \
    KRT_FN F krt_cabs_##s(C a) { return hypot##m(a.re, a.im); }            \
    /* mathimpl.py's cpow_internal (CPython's _Py_c_pow) */                 \
    KRT_FN C krt_cpow_##s(C a, C b)                                          \
    {                                                                        \
        F vabs, len, at, phase, c, sn;                                       \
        if (b.re == 0 && b.im == 0)                                          \
            return krt_cmake_##s(1, 0);                                      \
        if (a.re == 0 && b.re == 0)                                          \
            return krt_cmake_##s(0, 0);                                      \
        vabs = hypot##m(a.re, a.im);                                         \
        len = pow##m(vabs, b.re);                                            \
        at = atan2##m(a.im, a.re);                                           \
        phase = at * b.re;                                                   \
        if (b.im != 0) {                                                     \
            len /= exp##m(at * b.im);                                        \
            phase += b.im * log##m(vabs);                                    \
        }                                                                    \
        /* len * (cos(phase) + sin(phase) * 1j), as complex products */     \
        c = cos##m(phase);                                                   \
        sn = sin##m(phase);                                                  \
        return krt_cmul_##s(krt_cmake_##s(len, 0),                           \
                            krt_cadd_##s(krt_cmake_##s(c, 0),                \
                                         krt_cmul_##s(krt_cmake_##s(sn, 0), krt_cmake_##s(0, 1)))); \
    }                                                                        \
    KRT_FN bool krt_cisnan_##s(C z) { return z.re != z.re || z.im != z.im; } \
    KRT_FN bool krt_cisinf_##s(C z) { return isinf(z.re) || isinf(z.im); } \
    KRT_FN bool krt_cisfinite_##s(C z) { return isfinite(z.re) && isfinite(z.im); } \
    KRT_FN F krt_cphase_##s(C z) { return atan2##m(z.im, z.re); }          \
    /* exp_impl */                                                           \
    KRT_FN C krt_cexp_##s(C z)                                               \
    {                                                                        \
        F x = z.re, y = z.im, r, c, sn;                                      \
        if (isfinite(x)) {                                                   \
            if (isfinite(y)) {                                               \
                c = cos##m(y);                                               \
                sn = sin##m(y);                                              \
                r = exp##m(x);                                               \
                return krt_cmake_##s(r * c, r * sn);                         \
            }                                                                \
            return krt_cmake_##s((F)NAN, (F)NAN);                            \
        }                                                                    \
        if (x != x)                                                          \
            return y != 0 ? krt_cmake_##s(x, x) : krt_cmake_##s(x, y);       \
        if (x > 0) {                                                         \
            if (isfinite(y)) {                                               \
                c = cos##m(y);                                               \
                sn = sin##m(y);                                              \
                if (c != 0)                                                  \
                    c *= x;                                                  \
                if (sn != 0)                                                 \
                    sn *= x;                                                 \
                return krt_cmake_##s(c, sn);                                 \
            }                                                                \
            return krt_cmake_##s(x, (F)NAN);                                 \
        }                                                                    \
        if (isfinite(y)) {                                                   \
            r = exp##m(x);                                                   \
            c = cos##m(y);                                                   \
            sn = sin##m(y);                                                  \
            return krt_cmake_##s(r * c, r * sn);                             \
        }                                                                    \
        return krt_cmake_##s(0, 0);                                          \
    }                                                                        \
    /* log_impl */                                                           \
    KRT_FN C krt_clog_##s(C z)                                               \
    {                                                                        \
        return krt_cmake_##s(log##m(hypot##m(z.re, z.im)), atan2##m(z.im, z.re)); \
    }                                                                        \
    /* impl_cmath_cosh */                                                    \
    KRT_FN C krt_ccosh_##s(C z)                                              \
    {                                                                        \
        F x = z.re, y = z.im, re, im;                                        \
        if (isinf(x)) {                                                      \
            if (y != y || y == 0) {                                          \
                re = fabs##m(x);                                             \
                im = y;                                                      \
            } else {                                                         \
                re = copysign##m(x, cos##m(y));                              \
                im = copysign##m(x, sin##m(y));                              \
            }                                                                \
            if (x < 0)                                                       \
                im = -im;                                                    \
            return krt_cmake_##s(re, im);                                    \
        }                                                                    \
        return krt_cmake_##s(cos##m(y) * cosh##m(x), sin##m(y) * sinh##m(x)); \
    }                                                                        \
    /* impl_cmath_sinh */                                                    \
    KRT_FN C krt_csinh_##s(C z)                                              \
    {                                                                        \
        F x = z.re, y = z.im, re, im;                                        \
        if (isinf(x)) {                                                      \
            if (y != y)                                                      \
                return krt_cmake_##s(x, y);                                  \
            re = cos##m(y);                                                  \
            im = sin##m(y);                                                  \
            if (re != 0)                                                     \
                re *= x;                                                     \
            if (im != 0)                                                     \
                im *= fabs##m(x);                                            \
            return krt_cmake_##s(re, im);                                    \
        }                                                                    \
        return krt_cmake_##s(cos##m(y) * sinh##m(x), sin##m(y) * cosh##m(x)); \
    }                                                                        \
    /* cos_impl, sin_impl: through cosh and sinh of z j */                  \
    KRT_FN C krt_ccos_##s(C z) { return krt_ccosh_##s(krt_cmake_##s(-z.im, z.re)); } \
    KRT_FN C krt_csin_##s(C z)                                               \
    {                                                                        \
        C r = krt_csinh_##s(krt_cmake_##s(-z.im, z.re));                     \
        return krt_cmake_##s(r.im, -r.re);                                   \
    }

KRT_CMATH_OPS_(c64, krt_c64, float, f)
KRT_CMATH_OPS_(c128, krt_c128, double, )

/* z / w where w may be 0: numba's complex_div raises ZeroDivisionError.
 * Without debug the exception ends the thread (a kernel returns, a device
 * function's error status makes its callers return): PTX exit on the GPU
 * (krt_cdivz_dev).  With debug the launch reports the message
 * (krt_cdivz_dbg: printed, then a trap).  On the CPU a helper cannot end
 * the calling thread inside an expression, so the launch fails with
 * KRT_EKERNEL and the message in both cases (krt_cdivz_cpu): loudly,
 * never a silent difference from CUDA. */
#define KRT_CDIVZ_(s, C)                                                     \
    KRT_CPU_FN C krt_cdivz_cpu_##s(C a, C b, const krt_cpu_block *blk, const char *msg) \
    {                                                                        \
        if (b.re == 0 && b.im == 0)                                          \
            krt_cpu_fail(blk, KRT_EKERNEL, msg);                             \
        return krt_cdiv_##s(a, b);                                           \
    }
KRT_CDIVZ_(c64, krt_c64)
KRT_CDIVZ_(c128, krt_c128)
#if defined(__CUDACC__)
#define KRT_CDIVZ_DEV_(s, C)                                                 \
    static __device__ inline C krt_cdivz_dev_##s(C a, C b)                   \
    {                                                                        \
        if (b.re == 0 && b.im == 0)                                          \
            krt_exit_thread_dev();                                           \
        return krt_cdiv_##s(a, b);                                           \
    }                                                                        \
    static __device__ inline C krt_cdivz_dbg_##s(C a, C b, const char *msg)  \
    {                                                                        \
        if (b.re == 0 && b.im == 0)                                          \
            krt_assert_fail_dev(msg);                                        \
        return krt_cdiv_##s(a, b);                                           \
    }
KRT_CDIVZ_DEV_(c64, krt_c64)
KRT_CDIVZ_DEV_(c128, krt_c128)
#endif

/* The functions whose numba code mixes float64 constants (and variables
 * that they widen) into the computation: numba computes them in float64
 * for complex64 too, and either returns complex128 (log10, tanh, acosh:
 * @overload infers it) or rounds the result to complex64 (sqrt, tan, the
 * inverse functions: @lower keeps the signature).  Each is written once
 * in double, with the thresholds of the argument's float type. */
#define KRT_FLT_MAX_D 3.4028234663852886e+38
#define KRT_FLT_MIN_D 1.1754943508222875e-38
#define KRT_DBL_MAX_D 1.7976931348623157e+308
#define KRT_LN_4 1.3862943611198906

/* sqrt_impl (NumPy's npy_csqrt; Algorithm 312, CACM vol 10, Oct 1967) */
KRT_FN krt_c128 krt_csqrt_d_(double a, double b, double max)
{
    double thres = max / (1.0 + 1.414213562373095048801688724209698079e0), t, re, im;
    int scale;
    if (a == 0.0 && b == 0.0)
        return krt_cmake_c128(fabs(b), b);
    if (isinf(b))
        return krt_cmake_c128(fabs(b), b);
    if (a != a)
        return krt_cmake_c128(a, a);
    if (isinf(a)) {
        if (a < 0.0)
            return krt_cmake_c128(fabs(b - b), copysign(a, b));
        return krt_cmake_c128(a, copysign(b - b, b));
    }
    scale = fabs(a) >= thres || fabs(b) >= thres;
    if (scale) {
        a *= 0.25;
        b *= 0.25;
    }
    if (a >= 0) {
        t = sqrt((a + hypot(a, b)) * 0.5);
        re = t;
        im = b / (2 * t);
    } else {
        t = sqrt((-a + hypot(a, b)) * 0.5);
        re = fabs(b) / (2 * t);
        im = copysign(t, b);
    }
    return scale ? krt_cmake_c128(re * 2, im) : krt_cmake_c128(re, im);
}

/* impl_cmath_tanh (CPython's c_tanh) */
KRT_FN krt_c128 krt_ctanh_d_(double x, double y)
{
    double tx, ty, cx, txty, denom;
    if (isinf(x))
        return krt_cmake_c128(copysign(1.0, x), isinf(y) ? 0.0 : copysign(0.0, sin(2.0 * y)));
    tx = tanh(x);
    ty = tan(y);
    cx = 1.0 / cosh(x);
    txty = tx * ty;
    denom = 1.0 + txty * txty;
    return krt_cmake_c128(tx * (1.0 + ty * ty) / denom, ((ty / denom) * cx) * cx);
}

/* the same for complex64 parts: tanh, tan and cosh of float32 (tanhf...),
 * the rest in float64 as numba types it */
KRT_FN krt_c128 krt_ctanh_f_(float x, float y)
{
    float tx, ty, txty;
    double cx, denom;
    if (isinf(x))
        return krt_cmake_c128(copysign(1.0, x), isinf(y) ? 0.0 : copysign(0.0, sin(2.0 * y)));
    tx = tanhf(x);
    ty = tanf(y);
    cx = 1.0 / coshf(x);
    txty = tx * ty;
    denom = 1.0 + txty * txty;
    return krt_cmake_c128(tx * (1.0 + ty * ty) / denom, ((ty / denom) * cx) * cx);
}

/* f32: complex64 parts, for which numba computes the operations of two
 * float32 operands in float32 (atan2f, sqrtf, a float32 product) */
#define KRT_ATAN2_(f32, y, x) ((f32) ? (double)atan2f((float)(y), (float)(x)) : atan2(y, x))

/* acos_impl (CPython's c_acos); THRES is FLT_MAX / 4 for both types */
KRT_FN krt_c128 krt_cacos_d_(double x, double y, int f32)
{
    krt_c128 s1, s2;
    if (fabs(x) > KRT_FLT_MAX_D / 4 || fabs(y) > KRT_FLT_MAX_D / 4)
        return krt_cmake_c128(KRT_ATAN2_(f32, fabs(y), x),
                              copysign(log(hypot(x * 0.5, y * 0.5)) + KRT_LN_4, -y));
    s1 = krt_csqrt_d_(1.0 - x, -y, KRT_DBL_MAX_D);
    s2 = krt_csqrt_d_(1.0 + x, y, KRT_DBL_MAX_D);
    return krt_cmake_c128(2.0 * atan2(s1.re, s2.re), asinh(s2.re * s1.im - s2.im * s1.re));
}

/* impl_cmath_acosh (CPython's c_acosh) */
KRT_FN krt_c128 krt_cacosh_d_(double x, double y, int f32)
{
    krt_c128 s1, s2;
    if (fabs(x) > KRT_FLT_MAX_D / 4 || fabs(y) > KRT_FLT_MAX_D / 4)
        return krt_cmake_c128(log(hypot(x * 0.5, y * 0.5)) + KRT_LN_4, KRT_ATAN2_(f32, y, x));
    s1 = krt_csqrt_d_(x - 1.0, y, KRT_DBL_MAX_D);
    s2 = krt_csqrt_d_(x + 1.0, y, KRT_DBL_MAX_D);
    return krt_cmake_c128(asinh(s1.re * s2.re + s1.im * s2.im), 2.0 * atan2(s1.im, s2.re));
}

/* asinh_impl (CPython's c_asinh) */
KRT_FN krt_c128 krt_casinh_d_(double x, double y, int f32)
{
    krt_c128 s1, s2;
    if (fabs(x) > KRT_FLT_MAX_D / 4 || fabs(y) > KRT_FLT_MAX_D / 4)
        return krt_cmake_c128(copysign(log(hypot(x * 0.5, y * 0.5)) + KRT_LN_4, x),
                              KRT_ATAN2_(f32, y, fabs(x)));
    s1 = krt_csqrt_d_(1.0 + y, -x, KRT_DBL_MAX_D);
    s2 = krt_csqrt_d_(1.0 - y, x, KRT_DBL_MAX_D);
    return krt_cmake_c128(asinh(s1.re * s2.im - s2.re * s1.im),
                          atan2(y, s1.re * s2.re - s1.im * s2.im));
}

/* atanh_impl (CPython's c_atanh) */
KRT_FN krt_c128 krt_catanh_d_(double x, double y, int f32)
{
    const double large = 9.2233717485626802e+18;   /* sqrt(FLT_MAX / 4) */
    const double small = 1.0842021724855044e-19;   /* sqrt(FLT_MIN) */
    double ay, re, im, h, sqay, zr1;
    int negate = x < 0.0;
    if (negate) {
        x = -x;
        y = -y;
    }
    ay = fabs(y);
    if (x != x || x > large || ay > large) {
        if (isinf(y))
            re = copysign(0.0, x);
        else if (isinf(x))
            re = 0.0;
        else {
            h = hypot(x * 0.5, y * 0.5);
            re = x / 4.0 / h / h;
        }
        im = -copysign(3.141592653589793 / 2, -y);
    } else if (x == 1.0 && ay < small) {
        if (ay == 0.0) {
            re = HUGE_VAL;
            im = y;
        } else {
            re = -log((f32 ? (double)sqrtf((float)ay) : sqrt(ay)) / sqrt(hypot(ay, 2.0)));
            im = copysign(atan2(2.0, -ay) / 2, y);
        }
    } else {
        sqay = f32 ? (double)(float)(ay * ay) : ay * ay;
        zr1 = 1 - x;
        re = log1p(4.0 * x / (zr1 * zr1 + sqay)) * 0.25;
        im = -atan2(-2.0 * y, zr1 * (1 + x) - sqay) * 0.5;
    }
    if (y != y)
        im = NAN;
    return negate ? krt_cmake_c128(-re, -im) : krt_cmake_c128(re, im);
}

/* Per type: the public helpers over the double forms above; log10 and
 * (c128: the identity) R rounds a complex128 result to the type */
#define KRT_CMATH_WIDE_(s, C, R, MAXV, TANH, F32)                            \
    KRT_FN C krt_csqrt_##s(C z) { return R(krt_csqrt_d_(z.re, z.im, MAXV)); } \
    KRT_FN krt_c128 krt_ctanh_##s(C z) { return TANH(z.re, z.im); }         \
    KRT_FN C krt_ctan_##s(C z)                                               \
    {   /* tan_impl: -j tanh(z j), the tanh of the type's parts */          \
        krt_c128 r = TANH(-z.im, z.re);                                      \
        return R(krt_cmake_c128(r.im, -r.re));                               \
    }                                                                        \
    KRT_FN C krt_cacos_##s(C z) { return R(krt_cacos_d_(z.re, z.im, F32)); }   \
    KRT_FN krt_c128 krt_cacosh_##s(C z) { return krt_cacosh_d_(z.re, z.im, F32); } \
    KRT_FN C krt_casinh_##s(C z) { return R(krt_casinh_d_(z.re, z.im, F32)); } \
    KRT_FN C krt_casin_##s(C z)                                              \
    {   /* asin_impl: -j asinh(z j) */                                      \
        krt_c128 r = krt_casinh_d_(-z.im, z.re, F32);                             \
        return R(krt_cmake_c128(r.im, -r.re));                               \
    }                                                                        \
    KRT_FN C krt_catanh_##s(C z) { return R(krt_catanh_d_(z.re, z.im, F32)); } \
    KRT_FN C krt_catan_##s(C z)                                              \
    {   /* atan_impl: -j atanh(z j), with its odd case */                   \
        krt_c128 r = krt_catanh_d_(-z.im, z.re, F32);                             \
        if (isinf(z.re) && z.im != z.im)                                     \
            return R(krt_cmake_c128(r.im, r.re));                            \
        return R(krt_cmake_c128(r.im, -r.re));                               \
    }                                                                        \
    KRT_FN krt_c128 krt_clog10_##s(C z)                                      \
    {   /* impl_cmath_log10: log(z), then each part / LN_10 in float64 */   \
        C l = krt_clog_##s(z);                                               \
        return krt_cmake_c128(l.re / 2.302585092994045684, l.im / 2.302585092994045684); \
    }                                                                        \
    /* impl_cmath_rect */                                                    \
    KRT_FN C krt_crect_##s(KRT_CPART_##s r, KRT_CPART_##s phi)               \
    {                                                                        \
        KRT_CPART_##s re, im;                                                \
        if (!isfinite(phi)) {                                                \
            if (r == 0)                                                      \
                return krt_cmake_##s((KRT_CPART_##s)fabs(r), 0); /* abs(-0.0) is 0.0 */ \
            if (isinf(r))                                                    \
                return krt_cmake_##s(r, phi);                                \
        }                                                                    \
        re = KRT_CPART_COS_##s(phi);                                         \
        im = KRT_CPART_SIN_##s(phi);                                         \
        if (re == 0 && isinf(r))                                             \
            re /= r;                                                         \
        else                                                                 \
            re *= r;                                                         \
        if (im == 0 && isinf(r))                                             \
            im /= r;                                                         \
        else                                                                 \
            im *= r;                                                         \
        return krt_cmake_##s(re, im);                                        \
    }
#define KRT_CPART_c64 float
#define KRT_CPART_c128 double
#define KRT_CPART_COS_c64 cosf
#define KRT_CPART_SIN_c64 sinf
#define KRT_CPART_COS_c128 cos
#define KRT_CPART_SIN_c128 sin
#define KRT_C128_ID_(z) (z)
KRT_CMATH_WIDE_(c64, krt_c64, krt_c64_of_c128, KRT_FLT_MAX_D, krt_ctanh_f_, 1)
KRT_CMATH_WIDE_(c128, krt_c128, KRT_C128_ID_, KRT_DBL_MAX_D, krt_ctanh_d_, 0)

/* ---- NumPy's complex loops inside kernels (npufunc.c: np.sinh(z),
 * np.maximum(a, b, out), ...), as numba-cuda 0.30's ufuncs.py and
 * np/npyfuncs.py compute them; the loops that are cmath's (np.sin,
 * np.arctan, np.log, ...) call the helpers above.  Per type: (suffix,
 * complex type, float type, <math.h> suffix). ---- */
#define KRT_NPCX_(s, C, F, m)                                                \
    /* ufuncs.py np_complex_sinh_impl, np_complex_cosh_impl */              \
    KRT_FN C krt_npsinh_##s(C z)                                             \
    {                                                                        \
        return krt_cmake_##s(cos##m(z.im) * sinh##m(z.re), sin##m(z.im) * cosh##m(z.re)); \
    }                                                                        \
    KRT_FN C krt_npcosh_##s(C z)                                             \
    {                                                                        \
        return krt_cmake_##s(cos##m(z.im) * cosh##m(z.re), sin##m(z.im) * sinh##m(z.re)); \
    }                                                                        \
    /* ufuncs.py np_complex_tanh_impl */                                     \
    KRT_FN C krt_nptanh_##s(C z)                                             \
    {                                                                        \
        F si = sin##m(z.im), ci = cos##m(z.im), shr = sinh##m(z.re), chr_ = cosh##m(z.re); \
        F rs = ci * shr, is = si * chr_, rc = ci * chr_, ic = si * shr;      \
        F inv_d = (F)1 / (rc * rc + ic * ic);                                \
        return krt_cmake_##s((rs * rc + is * ic) * inv_d, (is * rc - rs * ic) * inv_d); \
    }                                                                        \
    /* npyfuncs.py np_complex_log2_impl, np_complex_log10_impl: log(z),     \
     * each part times log2(e) / log10(e) in the part's type */             \
    KRT_FN C krt_nplog2_##s(C z)                                             \
    {                                                                        \
        C l = krt_clog_##s(z);                                               \
        return krt_cmake_##s((F)1.4426950408889634074 * l.re, (F)1.4426950408889634074 * l.im); \
    }                                                                        \
    KRT_FN C krt_nplog10_##s(C z)                                            \
    {                                                                        \
        C l = krt_clog_##s(z);                                               \
        return krt_cmake_##s((F)0.43429448190325182765 * l.re, (F)0.43429448190325182765 * l.im); \
    }                                                                        \
    /* npyfuncs.py np_complex_acosh_impl: log(z + sqrt(z + 1) sqrt(z - 1)) */ \
    KRT_FN C krt_npacosh_##s(C z)                                            \
    {                                                                        \
        C one = krt_cmake_##s(1, 0);                                         \
        C p = krt_cmul_##s(krt_csqrt_##s(krt_cadd_##s(z, one)), krt_csqrt_##s(krt_csub_##s(z, one))); \
        return krt_clog_##s(krt_cadd_##s(z, p));                             \
    }                                                                        \
    /* npyfuncs.py np_complex_div_impl (Smith's algorithm; a zero divisor   \
     * gives the infinities and NaNs of re / 0 and im / 0) */               \
    KRT_FN C krt_npdiv_##s(C a, C b)                                         \
    {                                                                        \
        F br = fabs##m(b.re), bi = fabs##m(b.im), rat, scl;                  \
        if (br >= bi) {                                                      \
            if (br == 0 && bi == 0)                                          \
                return krt_cmake_##s(a.re / br, a.im / bi);                  \
            rat = b.im / b.re;                                               \
            scl = (F)1 / (b.re + b.im * rat);                                \
            return krt_cmake_##s((a.re + a.im * rat) * scl, (a.im - a.re * rat) * scl); \
        }                                                                    \
        rat = b.re / b.im;                                                   \
        scl = (F)1 / (b.im + b.re * rat);                                    \
        return krt_cmake_##s((a.re * rat + a.im) * scl, (a.im * rat - a.re) * scl); \
    }                                                                        \
    /* NumPy's lexicographic order (npyfuncs.py np_complex_gt_impl, ...:   \
     * loops.c.src's CGT CGE CLT CLE) */                                     \
    KRT_FN bool krt_npgt_##s(C x, C y)                                       \
    {                                                                        \
        return (x.re > y.re && x.im == x.im && y.im == y.im) || (x.re == y.re && x.im > y.im); \
    }                                                                        \
    KRT_FN bool krt_npge_##s(C x, C y)                                       \
    {                                                                        \
        return (x.re > y.re && x.im == x.im && y.im == y.im) || (x.re == y.re && x.im >= y.im); \
    }                                                                        \
    KRT_FN bool krt_nplt_##s(C x, C y)                                       \
    {                                                                        \
        return (x.re < y.re && x.im == x.im && y.im == y.im) || (x.re == y.re && x.im < y.im); \
    }                                                                        \
    KRT_FN bool krt_nple_##s(C x, C y)                                       \
    {                                                                        \
        return (x.re < y.re && x.im == x.im && y.im == y.im) || (x.re == y.re && x.im <= y.im); \
    }                                                                        \
    /* np_complex_maximum_impl / minimum: a NaN operand wins (a's when both \
     * are); np_complex_fmax_impl / fmin: a number wins (a when both are   \
     * NaN); otherwise a >= b ? a : b (maximum, fmax), a <= b ? a : b */    \
    KRT_FN C krt_npmaximum_##s(C a, C b)                                     \
    {                                                                        \
        bool an = krt_cisnan_##s(a), bn = krt_cisnan_##s(b);                 \
        if (an || bn)                                                        \
            return an ? a : b;                                               \
        return krt_npge_##s(a, b) ? a : b;                                   \
    }                                                                        \
    KRT_FN C krt_npminimum_##s(C a, C b)                                     \
    {                                                                        \
        bool an = krt_cisnan_##s(a), bn = krt_cisnan_##s(b);                 \
        if (an || bn)                                                        \
            return an ? a : b;                                               \
        return krt_nple_##s(a, b) ? a : b;                                   \
    }                                                                        \
    KRT_FN C krt_npfmax_##s(C a, C b)                                        \
    {                                                                        \
        bool an = krt_cisnan_##s(a), bn = krt_cisnan_##s(b);                 \
        if (an || bn)                                                        \
            return bn ? a : b;                                               \
        return krt_npge_##s(a, b) ? a : b;                                   \
    }                                                                        \
    KRT_FN C krt_npfmin_##s(C a, C b)                                        \
    {                                                                        \
        bool an = krt_cisnan_##s(a), bn = krt_cisnan_##s(b);                 \
        if (an || bn)                                                        \
            return bn ? a : b;                                               \
        return krt_nple_##s(a, b) ? a : b;                                   \
    }
KRT_NPCX_(c64, krt_c64, float, f)
KRT_NPCX_(c128, krt_c128, double, )

#endif /* KERNRT_CMATH_H */
