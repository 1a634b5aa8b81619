/*
 * ufunc.h - what runtime/ufunc.c and runtime/reduce.c share: the checks
 * of the arrays handed to a @vectorize/@guvectorize/cuda.reduce host
 * function.  Internal (KRT_INTERNAL, krt__ names), like backend.h.
 */
#ifndef KRT_UFUNC_H
#define KRT_UFUNC_H

#include "backend.h"

/* a is a usable device array of the running backend (not a host scalar):
 * non-NULL data, 1..KRT_MAX_NDIM dimensions, a valid dtype, no negative
 * extent.  Messages start with "who: parameter 'param'". */
int krt__ufunc_check_array(const krt_array *a, const char *who,
                           const char *param) KRT_INTERNAL;
/* "(2, 3)" into buf. */
const char *krt__shape_str(char *buf, size_t len, int ndim,
                           const int64_t *shape) KRT_INTERNAL;

#endif /* KRT_UFUNC_H */
