/*
 * kernrt_complex.h - the C types of numba's complex64 and complex128.
 *
 * A complex value is a pair of floats, the real part first: the layout of
 * NumPy's complex64/complex128 elements, of C99's float _Complex / double
 * _Complex and of C++'s std::complex<float> / std::complex<double>, so an
 * array of them is passed as it is.  The types are plain structs, usable
 * from C, C++ and CUDA alike (kernel parameters, array elements, launcher
 * arguments); the operations that generated code spells (numba's
 * arithmetic and its cmath) are the device helpers of kernrt_cmath.h.
 * kernrt.h includes this file.
 */
#ifndef KERNRT_COMPLEX_H
#define KERNRT_COMPLEX_H

typedef struct krt_c64 {
    float re, im;
} krt_c64;

typedef struct krt_c128 {
    double re, im;
} krt_c128;

#endif /* KERNRT_COMPLEX_H */
