// metalforge emulator: the compiler built-ins (`__metal_*`) that Apple's own headers, and MLX's
// bf16_math.h (bfloat overloads of the math and simd functions), call. Each forwards to the shim's
// function of the same meaning, for the float/uint16 operand types MLX passes; any other type
// fails to compile. The math mode argument is accepted and ignored (the emulator has one
// precision, see math.h). Simd built-ins take the call site of the function that calls them.
#pragma once
#include "math.h"
#include "sync.h"

// Math modes passed as the last argument of the math built-ins.
#define __METAL_MAYBE_FAST_MATH__ 0
#define __METAL_FAST_MATH__ 1
#define __METAL_PRECISE_MATH__ 2

#define MFEMU_BUILTIN1(name, fn) \
  inline float __metal_##name(float x, int) { return ::metal::fn(x); }
#define MFEMU_BUILTIN2(name, fn) \
  inline float __metal_##name(float x, float y, int) { return ::metal::fn(x, y); }
#define MFEMU_BUILTIN3(name, fn) \
  inline float __metal_##name(float x, float y, float z, int) { return ::metal::fn(x, y, z); }
MFEMU_BUILTIN1(fabs, fabs) MFEMU_BUILTIN1(acos, acos) MFEMU_BUILTIN1(acosh, acosh) MFEMU_BUILTIN1(asin, asin)
MFEMU_BUILTIN1(asinh, asinh) MFEMU_BUILTIN1(atan, atan) MFEMU_BUILTIN1(atanh, atanh) MFEMU_BUILTIN1(ceil, ceil)
MFEMU_BUILTIN1(cos, cos) MFEMU_BUILTIN1(cosh, cosh) MFEMU_BUILTIN1(cospi, cospi) MFEMU_BUILTIN1(exp, exp)
MFEMU_BUILTIN1(exp10, exp10) MFEMU_BUILTIN1(exp2, exp2) MFEMU_BUILTIN1(floor, floor) MFEMU_BUILTIN1(fract, fract)
MFEMU_BUILTIN1(log, log) MFEMU_BUILTIN1(log10, log10) MFEMU_BUILTIN1(log2, log2) MFEMU_BUILTIN1(rint, rint)
MFEMU_BUILTIN1(round, round) MFEMU_BUILTIN1(rsqrt, rsqrt) MFEMU_BUILTIN1(sin, sin) MFEMU_BUILTIN1(sinh, sinh)
MFEMU_BUILTIN1(sinpi, sinpi) MFEMU_BUILTIN1(sqrt, sqrt) MFEMU_BUILTIN1(tan, tan) MFEMU_BUILTIN1(tanh, tanh)
MFEMU_BUILTIN1(tanpi, tanpi) MFEMU_BUILTIN1(trunc, trunc)
MFEMU_BUILTIN2(atan2, atan2) MFEMU_BUILTIN2(divide, divide) MFEMU_BUILTIN2(fmax, fmax) MFEMU_BUILTIN2(fmin, fmin)
MFEMU_BUILTIN2(fmod, fmod) MFEMU_BUILTIN2(pow, pow) MFEMU_BUILTIN2(powr, powr)
MFEMU_BUILTIN3(fmax3, fmax3) MFEMU_BUILTIN3(fmin3, fmin3) MFEMU_BUILTIN3(fmedian3, fmedian3)
#undef MFEMU_BUILTIN1
#undef MFEMU_BUILTIN2
#undef MFEMU_BUILTIN3
inline float __metal_fma(float x, float y, float z) { return ::metal::fma(x, y, z); }
inline float __metal_nextafter(float x, float y) { return ::metal::nextafter(x, y); }
inline float __metal_ldexp(float x, int k, int) { return ::metal::ldexp(x, k); }
inline float __metal_frexp(float x, int* e) { return ::metal::frexp(x, *e); }

// Simd built-ins: bfloat travels as its uint16_t bits (permutations) or as float (reductions).
#define MFEMU_SIMD_REDUCE(name) \
  inline float __metal_##name(float x, MFEMU_SITE) { return ::metal::name(x, mfemu_site); }
MFEMU_SIMD_REDUCE(simd_max) MFEMU_SIMD_REDUCE(simd_min) MFEMU_SIMD_REDUCE(simd_sum)
MFEMU_SIMD_REDUCE(simd_product) MFEMU_SIMD_REDUCE(simd_prefix_exclusive_product)
MFEMU_SIMD_REDUCE(simd_prefix_exclusive_sum) MFEMU_SIMD_REDUCE(simd_prefix_inclusive_product)
MFEMU_SIMD_REDUCE(simd_prefix_inclusive_sum)
#undef MFEMU_SIMD_REDUCE
// simd_xor of a float (bf16_math.h's bfloat simd_xor) has no Metal meaning: it fails to compile.
#define MFEMU_SIMD_PERMUTE(name) \
  inline uint16_t __metal_##name(uint16_t x, metal::ushort k, MFEMU_SITE) { return ::metal::name(x, k, mfemu_site); }
MFEMU_SIMD_PERMUTE(simd_broadcast) MFEMU_SIMD_PERMUTE(simd_shuffle) MFEMU_SIMD_PERMUTE(simd_shuffle_down)
MFEMU_SIMD_PERMUTE(simd_shuffle_up) MFEMU_SIMD_PERMUTE(simd_shuffle_xor) MFEMU_SIMD_PERMUTE(simd_shuffle_rotate_down)
MFEMU_SIMD_PERMUTE(simd_shuffle_rotate_up)
#undef MFEMU_SIMD_PERMUTE
inline uint16_t __metal_simd_shuffle_and_fill_down(uint16_t data, uint16_t filling, metal::ushort delta, metal::ushort modulo,
                                                   MFEMU_SITE) {
  return ::metal::simd_shuffle_and_fill_down(data, filling, delta, modulo, mfemu_site);
}
inline uint16_t __metal_simd_shuffle_and_fill_up(uint16_t data, uint16_t filling, metal::ushort delta, metal::ushort modulo,
                                                 MFEMU_SITE) {
  return ::metal::simd_shuffle_and_fill_up(data, filling, delta, modulo, mfemu_site);
}
inline metal::ushort __metal_get_simdgroup_size(metal::ushort) { return 32; }
inline metal::ushort __metal_get_thread_index_in_simdgroup(metal::ushort) { return metal::ushort(mfemu_lane()); }
// bf16_math.h defines simd_xor for bfloat through a float built-in; xor of floats has no meaning in
// Metal's language, so a kernel that calls it stops with an error.
inline float __metal_simd_xor(float, MFEMU_SITE) {
  mfemu_fail(mfemu::STATUS_SIMD, "simd_xor of a bfloat/float value (MLX's bf16_math.h) is not emulated");
}
