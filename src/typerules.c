/*
 * typerules.c - numba's typing templates as candidate signatures: the
 * operators' (builtins.py) and, by typing rule, the API's (cudadecl.py,
 * cudamath.py, mathdecl.py).  api.def names a row's rule; type.c resolves
 * a call against the rule's list with ty_resolve_case (types.c) and
 * writes out the rules that have no list.
 */
#include "kernc.h"

/* One candidate signature (kernc.h: Case), spelled by its kinds. */
#define C1(r, x) {TY_##r, {TY_##x, -1, -1}}
#define C2(r, x, y) {TY_##r, {TY_##x, TY_##y, -1}}
#define C3(r, x, y, z) {TY_##r, {TY_##x, TY_##y, TY_##z}}
#define NCASES(t) ((int)(sizeof t / sizeof t[0]))

/* builtins.py: integer_binop_cases over machine ints, then real_domain. */
#define INT_BINOP_CASES                                                      \
    C2(INT64, INT64, INT64), C2(INT64, INT64, UINT64),                       \
    C2(INT64, UINT64, INT64), C2(UINT64, UINT64, UINT64)
static const Case cases_binop[] = {INT_BINOP_CASES, C2(FLOAT32, FLOAT32, FLOAT32),
                                   C2(FLOAT64, FLOAT64, FLOAT64)};
static const Case cases_truediv[] = {
    C2(FLOAT64, INT64, INT64), C2(FLOAT64, INT64, UINT64),
    C2(FLOAT64, UINT64, INT64), C2(FLOAT64, UINT64, UINT64),
    C2(FLOAT32, FLOAT32, FLOAT32), C2(FLOAT64, FLOAT64, FLOAT64)};
static const Case cases_power[] = {
    INT_BINOP_CASES,
    C2(FLOAT32, FLOAT32, INT32), C2(FLOAT32, FLOAT32, INT64), C2(FLOAT32, FLOAT32, UINT64),
    C2(FLOAT64, FLOAT64, INT32), C2(FLOAT64, FLOAT64, INT64), C2(FLOAT64, FLOAT64, UINT64),
    C2(FLOAT32, FLOAT32, FLOAT32), C2(FLOAT64, FLOAT64, FLOAT64)};
/* BitwiseShiftOperation: the lhs's signedness decides; no unsafe casts. */
static const Case cases_shift[] = {
    C2(INT64, INT8, UINT64), C2(INT64, INT8, INT64),
    C2(INT64, INT16, UINT64), C2(INT64, INT16, INT64),
    C2(INT64, INT32, UINT64), C2(INT64, INT32, INT64),
    C2(INT64, INT64, UINT64), C2(INT64, INT64, INT64),
    C2(UINT64, UINT8, UINT64), C2(UINT64, UINT8, INT64),
    C2(UINT64, UINT16, UINT64), C2(UINT64, UINT16, INT64),
    C2(UINT64, UINT32, UINT64), C2(UINT64, UINT32, INT64),
    C2(UINT64, UINT64, UINT64), C2(UINT64, UINT64, INT64)};
/* BitwiseLogicOperation: no unsafe casts. */
static const Case cases_bitlogic[] = {C2(BOOL, BOOL, BOOL), INT_BINOP_CASES};
/* OrderedCmpOp / UnorderedCmpOp. */
static const Case cases_cmp[] = {
    C2(BOOL, BOOL, BOOL),
    C2(BOOL, INT8, INT8), C2(BOOL, INT16, INT16), C2(BOOL, INT32, INT32), C2(BOOL, INT64, INT64),
    C2(BOOL, UINT8, UINT8), C2(BOOL, UINT16, UINT16), C2(BOOL, UINT32, UINT32),
    C2(BOOL, UINT64, UINT64), C2(BOOL, FLOAT32, FLOAT32), C2(BOOL, FLOAT64, FLOAT64)};
static const Case cases_abs[] = {
    C1(INT8, INT8), C1(INT16, INT16), C1(INT32, INT32), C1(INT64, INT64),
    C1(UINT8, UINT8), C1(UINT16, UINT16), C1(UINT32, UINT32), C1(UINT64, UINT64),
    C1(FLOAT32, FLOAT32), C1(FLOAT64, FLOAT64)};
static const Case cases_round1[] = {C1(INT64, FLOAT32), C1(INT64, FLOAT64)};
static const Case cases_round2[] = {C2(FLOAT32, FLOAT32, INT64), C2(FLOAT64, FLOAT64, INT64)};
/* cudamath.py */
static const Case cases_math_unary[] = {C1(FLOAT64, INT64), C1(FLOAT64, UINT64),
                                        C1(FLOAT32, FLOAT32), C1(FLOAT64, FLOAT64)};
static const Case cases_math_atan2[] = {C2(FLOAT64, INT64, INT64), C2(FLOAT64, UINT64, UINT64),
                                        C2(FLOAT32, FLOAT32, FLOAT32),
                                        C2(FLOAT64, FLOAT64, FLOAT64)};
static const Case cases_math_binary[] = {C2(FLOAT32, FLOAT32, FLOAT32),
                                         C2(FLOAT64, FLOAT64, FLOAT64)};
static const Case cases_math_pow[] = {C2(FLOAT32, FLOAT32, FLOAT32), C2(FLOAT64, FLOAT64, FLOAT64),
                                      C2(FLOAT32, FLOAT32, INT32), C2(FLOAT64, FLOAT64, INT32)};
static const Case cases_math_ldexp[] = {C2(FLOAT32, FLOAT32, INT32), C2(FLOAT64, FLOAT64, INT32)};
/* mathdecl.py Math_frexp and cudadecl.py: fma, cbrt; float32 first */
static const Case cases_float1[] = {C1(FLOAT32, FLOAT32), C1(FLOAT64, FLOAT64)};
static const Case cases_fma[] = {C3(FLOAT32, FLOAT32, FLOAT32, FLOAT32),
                                 C3(FLOAT64, FLOAT64, FLOAT64, FLOAT64)};
/* cudadecl.py Cuda_popc / Cuda_clz: same width; Cuda_brev: unsigned 32/64;
 * Cuda_ffs: uint32 of any integer (lowered for 32/64-bit ones only) */
static const Case cases_popc[] = {
    C1(INT8, INT8), C1(INT16, INT16), C1(INT32, INT32), C1(INT64, INT64),
    C1(UINT8, UINT8), C1(UINT16, UINT16), C1(UINT32, UINT32), C1(UINT64, UINT64)};
static const Case cases_brev[] = {C1(UINT32, UINT32), C1(UINT64, UINT64)};
static const Case cases_ffs[] = {
    C1(UINT32, INT8), C1(UINT32, INT16), C1(UINT32, INT32), C1(UINT32, INT64),
    C1(UINT32, UINT8), C1(UINT32, UINT16), C1(UINT32, UINT32), C1(UINT32, UINT64)};
/* the value operand of shfl_sync_intrinsic and match_*_sync */
static const Case cases_warp_value[] = {C1(INT32, INT32), C1(INT64, INT64),
                                        C1(FLOAT32, FLOAT32), C1(FLOAT64, FLOAT64)};
static const Case cases_math_pred[] = {C1(BOOL, INT64), C1(BOOL, UINT64), C1(BOOL, FLOAT32),
                                       C1(BOOL, FLOAT64)};
/* npk: cudamath.py Math_modf (float64 first: int16 -> float64); the result
 * is UniTuple(that float, 2) */
static const Case cases_math_modf[] = {C1(FLOAT64, FLOAT64), C1(FLOAT32, FLOAT32)};
/* builtins.py Range: the range type is the case's result. */
static const Case cases_range[] = {
    C1(INT32, INT32), C2(INT32, INT32, INT32), C3(INT32, INT32, INT32, INT32),
    C1(INT64, INT64), C2(INT64, INT64, INT64), C3(INT64, INT64, INT64, INT64),
    C1(UINT64, UINT64), C2(UINT64, UINT64, UINT64), C3(UINT64, UINT64, UINT64, UINT64)};

#define LIST(t) {t, NCASES(t)}
const CaseList tr_binop = LIST(cases_binop), tr_truediv = LIST(cases_truediv),
               tr_power = LIST(cases_power), tr_shift = LIST(cases_shift),
               tr_bitlogic = LIST(cases_bitlogic), tr_cmp = LIST(cases_cmp),
               tr_round1 = LIST(cases_round1), tr_round2 = LIST(cases_round2),
               tr_range = LIST(cases_range);

const CaseList tr_rule_cases[TR__COUNT] = {
    [TR_WARP_SHFL] = LIST(cases_warp_value),
    [TR_WARP_MATCH_ANY] = LIST(cases_warp_value),
    [TR_WARP_MATCH_ALL] = LIST(cases_warp_value),
    [TR_POPC] = LIST(cases_popc),
    [TR_BREV] = LIST(cases_brev),
    [TR_FFS] = LIST(cases_ffs),
    [TR_FMA] = LIST(cases_fma),
    [TR_FLOAT1] = LIST(cases_float1),
    [TR_MATH_UNARY] = LIST(cases_math_unary),
    [TR_MATH_ATAN2] = LIST(cases_math_atan2),
    [TR_MATH_BINARY] = LIST(cases_math_binary),
    [TR_MATH_POW] = LIST(cases_math_pow),
    [TR_MATH_LDEXP] = LIST(cases_math_ldexp),
    [TR_MATH_PRED] = LIST(cases_math_pred),
    [TR_MATH_FREXP] = LIST(cases_float1),
    [TR_MATH_SCALE] = LIST(cases_math_unary),
    [TR_ABS] = LIST(cases_abs),
    [TR_MATH_MODF] = LIST(cases_math_modf),   /* npk */
};
