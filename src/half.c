/*
 * half.c - float16 in the translator: numba-cuda 0.30's typing of the
 * float16 operators (cuda_fp16.py's _fp16_binary_operator: + - * / and the
 * comparisons are float16 operations when both operands are float16, or
 * one is and the other converts to float16 exactly, by promotion or
 * safely: bool, int8) and the math functions fp16.py binds to cuda_fp16.h
 * intrinsics for a float16 argument (math.sin -> hsin, ...).  Everything
 * else about float16 follows from its row in kernrt_types.h (class HALF),
 * the casting rules in types.c and kernrt_fp16.h's helpers, which
 * emit_expr.c spells every float16 operation with.
 */
#include "kernc.h"

bool half_operator(Op op, const Type *a, const Type *b)
{
    switch (op) {
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV:
    case OP_EQ: case OP_NE: case OP_LT: case OP_LE: case OP_GT: case OP_GE:
        break;
    default:
        return false;
    }
    if (a == ty_float16)
        return ty_converts_safely(b, a);
    if (b == ty_float16)
        return ty_converts_safely(a, b);
    return false;
}

/* fp16.py: math.X(float16) -> the float16 intrinsic; the name of
 * kernrt_fp16.h's helper (krt_<name>_f16). */
const char *half_math_name(int api_id)
{
    switch (api_id) {
    case API_M_SIN: return "sin";
    case API_M_COS: return "cos";
    case API_M_TANH: return "tanh";
    case API_M_CEIL: return "ceil";
    case API_M_FLOOR: return "floor";
    case API_M_TRUNC: return "trunc";
    case API_M_SQRT: return "sqrt";
    case API_M_LOG: return "log";
    case API_M_LOG2: return "log2";
    case API_M_LOG10: return "log10";
    case API_M_EXP: return "exp";
    case API_M_FABS: return "abs";
    default: return NULL;
    }
}
