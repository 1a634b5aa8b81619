/*
 * bf16.c - bfloat16 in the translator: numba-cuda 0.30's typing of the
 * bfloat16 operators, of the math functions bf16.py overloads and of the
 * numba.cuda.bf16 functions (bindings numbast generated from cuda_bf16.h:
 * one signature each).  The operators are __nv_bfloat16's C++ operators,
 * a ConcreteTemplate of (bfloat16, bfloat16) cases: + - * / and the
 * comparisons are bfloat16 operations when both operands are bfloat16, or
 * one is and the other converts to it safely (int8, uint8: Bfloat16's
 * can_convert_from); anything else goes through float32, to which
 * bfloat16 converts safely (bfloat16 + float32 is float32, bfloat16 +
 * int64 float64, abs() and math.log2 are float32).  The conversions are
 * Bfloat16's can_convert_from/to (types.c), the casts kernrt_bf16.h's
 * helpers (emit_expr.c spells every bfloat16 operation with them).
 */
#include "kernc.h"

#include <string.h>

Type *bf16_operator(Op op, const Type *a, const Type *b)
{
    switch (op) {
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV:
    case OP_EQ: case OP_NE: case OP_LT: case OP_LE: case OP_GT: case OP_GE:
        break;
    default:
        return NULL;
    }
    if (a == ty_bfloat16 && ty_converts_safely(b, a))
        return ty_bfloat16;
    if (b == ty_bfloat16 && ty_converts_safely(a, b))
        return ty_bfloat16;
    return NULL;
}

/* bf16.py: math.X(bfloat16) -> the bfloat16 function; the name of
 * kernrt_bf16.h's helper (krt_<name>_bf16).  (No log2, fabs: those go
 * through float32.) */
const char *bf16_math_name(int api_id)
{
    switch (api_id) {
    case API_M_TRUNC: return "trunc";
    case API_M_CEIL: return "ceil";
    case API_M_FLOOR: return "floor";
    case API_M_SQRT: return "sqrt";
    case API_M_LOG: return "log";
    case API_M_LOG10: return "log10";
    case API_M_COS: return "cos";
    case API_M_SIN: return "sin";
    case API_M_TANH: return "tanh";
    case API_M_EXP: return "exp";
    case API_M_EXP2: return "exp2";
    default: return NULL;
    }
}

/* The one signature of each numba.cuda.bf16 function: its result and the
 * type of every parameter (all the same).  False for other rows. */
bool bf16_signature(int api_id, Type **ret, Type **param)
{
    Type *bf = ty_bfloat16;
    switch (api_id) {
    case API_BF16_HADD: case API_BF16_HSUB: case API_BF16_HMUL: case API_BF16_HADD_RN:
    case API_BF16_HSUB_RN: case API_BF16_HMUL_RN: case API_BF16_HDIV: case API_BF16_HADD_SAT:
    case API_BF16_HSUB_SAT: case API_BF16_HMUL_SAT: case API_BF16_HMAX: case API_BF16_HMIN:
    case API_BF16_HMAX_NAN: case API_BF16_HMIN_NAN: case API_BF16_HABS: case API_BF16_HNEG:
    case API_BF16_HTRUNC: case API_BF16_HCEIL: case API_BF16_HFLOOR: case API_BF16_HRINT:
    case API_BF16_HSQRT: case API_BF16_HRSQRT: case API_BF16_HRCP: case API_BF16_HLOG:
    case API_BF16_HLOG2: case API_BF16_HLOG10: case API_BF16_HCOS: case API_BF16_HSIN:
    case API_BF16_HEXP: case API_BF16_HEXP2: case API_BF16_HEXP10: case API_BF16_HTANH:
    case API_BF16_HTANH_APPROX: case API_BF16_HFMA: case API_BF16_HFMA_SAT:
    case API_BF16_HFMA_RELU:
        *ret = bf, *param = bf;
        return true;
    case API_BF16_HEQ: case API_BF16_HNE: case API_BF16_HGE: case API_BF16_HGT:
    case API_BF16_HLE: case API_BF16_HLT: case API_BF16_HEQU: case API_BF16_HNEU:
    case API_BF16_HGEU: case API_BF16_HGTU: case API_BF16_HLEU: case API_BF16_HLTU:
    case API_BF16_HISNAN:
        *ret = ty_bool, *param = bf;
        return true;
    case API_BF16_HISINF:
        *ret = ty_scalar[TY_INT32], *param = bf;
        return true;
    case API_BF16_BFLOAT16_TO_FLOAT32:
        *ret = ty_float32, *param = bf;
        return true;
    case API_BF16_FLOAT32_TO_BFLOAT16: case API_BF16_FLOAT32_TO_BFLOAT16_RN:
    case API_BF16_FLOAT32_TO_BFLOAT16_RZ: case API_BF16_FLOAT32_TO_BFLOAT16_RD:
    case API_BF16_FLOAT32_TO_BFLOAT16_RU:
        *ret = bf, *param = ty_float32;
        return true;
    case API_BF16_FLOAT64_TO_BFLOAT16:
        *ret = bf, *param = ty_scalar[TY_FLOAT64];
        return true;
    case API_BF16_BFLOAT16_TO_INT8_RZ:
        *ret = ty_scalar[TY_INT8], *param = bf;
        return true;
    case API_BF16_BFLOAT16_TO_UINT8_RZ:
        *ret = ty_scalar[TY_UINT8], *param = bf;
        return true;
    case API_BF16_BFLOAT16_AS_INT16:
        *ret = ty_scalar[TY_INT16], *param = bf;
        return true;
    case API_BF16_BFLOAT16_AS_UINT16:
        *ret = ty_scalar[TY_UINT16], *param = bf;
        return true;
    case API_BF16_INT16_AS_BFLOAT16:
        *ret = bf, *param = ty_scalar[TY_INT16];
        return true;
    case API_BF16_UINT16_AS_BFLOAT16:
        *ret = bf, *param = ty_scalar[TY_UINT16];
        return true;
    default:
        break;
    }
    /* <int>_to_bfloat16_r? and bfloat16_to_<int>_r? */
    static const struct { int to_bf[4], from_bf[4]; TypeKind k; } ints[] = {
#define R_(t, T, K)                                                          \
    {{API_BF16_##T##_TO_BFLOAT16_RN, API_BF16_##T##_TO_BFLOAT16_RZ,          \
      API_BF16_##T##_TO_BFLOAT16_RD, API_BF16_##T##_TO_BFLOAT16_RU},         \
     {API_BF16_BFLOAT16_TO_##T##_RN, API_BF16_BFLOAT16_TO_##T##_RZ,          \
      API_BF16_BFLOAT16_TO_##T##_RD, API_BF16_BFLOAT16_TO_##T##_RU},         \
     TY_##K},
        R_(int16, INT16, INT16) R_(uint16, UINT16, UINT16) R_(int32, INT32, INT32)
        R_(uint32, UINT32, UINT32) R_(int64, INT64, INT64) R_(uint64, UINT64, UINT64)
#undef R_
    };
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        for (int m = 0; m < 4; m++) {
            if (api_id == ints[i].to_bf[m]) {
                *ret = bf, *param = ty_scalar[ints[i].k];
                return true;
            }
            if (api_id == ints[i].from_bf[m]) {
                *ret = ty_scalar[ints[i].k], *param = bf;
                return true;
            }
        }
    return false;
}

/* The API path of a name imported from numba.cuda.bf16 or from
 * numba.cuda._internal.cuda_bf16: the type (bfloat16, nv_bfloat16), the
 * NumPy-style names and cuda_bf16.h's own (__hadd, __float2bfloat16_rz,
 * __bfloat162int_rn, __short_as_bfloat16, ...), which bf16.py imports as
 * module attributes too (without the underscores).  NULL if none. */
const char *bf16_import_path(const char *name)
{
    static const struct { const char *c, *np; } ctype[] = {
        {"char", "int8"}, {"uchar", "uint8"}, {"short", "int16"}, {"ushort", "uint16"},
        {"int", "int32"}, {"uint", "uint32"}, {"ll", "int64"}, {"ull", "uint64"},
        {"float", "float32"}, {"double", "float64"},
    };
    if (strcmp(name, "bfloat16") == 0 || strcmp(name, "nv_bfloat16") == 0)
        return "bfloat16";
    if (strncmp(name, "__", 2) == 0)
        name += 2;
    const char *p = arena_printf("cuda.bf16.%s", name);
    if (api_lookup(p))
        return p;
    /* <c>2bfloat16[_r?], bfloat162<c>[_r?], <c>_as_bfloat16, bfloat16_as_<c> */
    for (size_t i = 0; i < sizeof ctype / sizeof ctype[0]; i++) {
        size_t n = strlen(ctype[i].c);
        const char *np = ctype[i].np, *q = NULL;
        if (strncmp(name, ctype[i].c, n) == 0 && strncmp(name + n, "2bfloat16", 9) == 0)
            q = arena_printf("cuda.bf16.%s_to_bfloat16%s", np, name + n + 9);
        else if (strncmp(name, "bfloat162", 9) == 0 && strncmp(name + 9, ctype[i].c, n) == 0 &&
                 (name[9 + n] == '\0' || name[9 + n] == '_'))
            q = arena_printf("cuda.bf16.bfloat16_to_%s%s", np, name + 9 + n);
        else if (strncmp(name, ctype[i].c, n) == 0 && strcmp(name + n, "_as_bfloat16") == 0)
            q = arena_printf("cuda.bf16.%s_as_bfloat16", np);
        else if (strncmp(name, "bfloat16_as_", 12) == 0 && strcmp(name + 12, ctype[i].c) == 0)
            q = arena_printf("cuda.bf16.bfloat16_as_%s", np);
        if (q && api_lookup(q))
            return q;
    }
    return NULL;
}
