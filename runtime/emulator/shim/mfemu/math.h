// metalforge emulator: Metal's math, common, geometric, relational and integer functions,
// numeric_limits and the math constants.
//
// Argument rules follow Metal's generic "T" signatures: every argument has the same type, except
// that a scalar of a vector's element type is broadcast (max(float4, float) is fine, max(float, int)
// is rejected as Metal rejects it). half and bfloat are computed in float and rounded (to nearest
// even) to the type. fast:: and precise:: name the same implementations: the emulator has one
// precision, close to correctly rounded.
//
// We deliberately do not include <cmath>/<math.h>: they declare ::exp(double), ::fmax(double,
// double)... in the global namespace, and those would silently accept calls Metal rejects (for
// example fmax(1.0f, 2) or exp(1)) after `using namespace metal;`. Clang's __builtin_* functions
// give us libm without the declarations. Included before lang.h, so std:: and double are usable.
#pragma once
#include <cfloat>
#include <climits>
#include <limits>
#include "types.h"

// ---- constants (Metal's metal_math; guarded in case some other header pulled in <math.h>) -----
#ifndef INFINITY
#define INFINITY (__builtin_inff())
#endif
#ifndef NAN
#define NAN (__builtin_nanf(""))
#endif
#ifndef HUGE_VALF
#define HUGE_VALF (__builtin_huge_valf())
#endif
#ifndef MAXFLOAT
#define MAXFLOAT 0x1.fffffep+127f
#endif
#define HUGE_VALH ((metal::half)__builtin_inff())
#define MAXHALF 0x1.ffcp15f16
#define HALF_DIG 3
#define HALF_MANT_DIG 11
#define HALF_MAX_10_EXP 4
#define HALF_MAX_EXP 16
#define HALF_MIN_10_EXP (-4)
#define HALF_MIN_EXP (-13)
#define HALF_RADIX 2
#define HALF_MAX 0x1.ffcp15f16
#define HALF_MIN 0x1p-14f16
#define HALF_EPSILON 0x1p-10f16
#define MFEMU_MATH_CONST(name, v) \
  constexpr float name##_F = v##f; \
  constexpr metal::half name##_H = v##f16;
// Constants are constexpr variables at global scope (Metal spells them as macros; same use).
MFEMU_MATH_CONST(M_E, 2.71828182845904523536028747135266250)
MFEMU_MATH_CONST(M_LOG2E, 1.44269504088896340735992468100189214)
MFEMU_MATH_CONST(M_LOG10E, 0.434294481903251827651128918916605082)
MFEMU_MATH_CONST(M_LN2, 0.693147180559945309417232121458176568)
MFEMU_MATH_CONST(M_LN10, 2.30258509299404568401799145468436421)
MFEMU_MATH_CONST(M_PI, 3.14159265358979323846264338327950288)
MFEMU_MATH_CONST(M_PI_2, 1.57079632679489661923132169163975144)
MFEMU_MATH_CONST(M_PI_4, 0.785398163397448309615660845819875721)
MFEMU_MATH_CONST(M_1_PI, 0.318309886183790671537767526745028724)
MFEMU_MATH_CONST(M_2_PI, 0.636619772367581343075535053490057448)
MFEMU_MATH_CONST(M_2_SQRTPI, 1.12837916709551257389615890312154517)
MFEMU_MATH_CONST(M_SQRT2, 1.41421356237309504880168872420969808)
MFEMU_MATH_CONST(M_SQRT1_2, 0.707106781186547524400844362104849039)
#undef MFEMU_MATH_CONST

namespace metal {

// ---- numeric_limits: std's for float and the integers; half and bfloat from bit patterns -------
template <class T> struct numeric_limits : std::numeric_limits<T> {};

namespace detail {
template <class T, unsigned short kmin, unsigned short kmax, unsigned short keps, unsigned short khalf,
          unsigned short kinf, unsigned short kqnan, unsigned short ksnan, int dig, int dig10,
          int maxdig10, int minexp, int minexp10, int maxexp, int maxexp10>
struct fp16_limits {
  static constexpr bool is_specialized = true, is_signed = true, is_integer = false, is_exact = false,
                        has_infinity = true, has_quiet_NaN = true, has_signaling_NaN = true,
                        is_iec559 = true, is_bounded = true, is_modulo = false;
  static constexpr int digits = dig, digits10 = dig10, max_digits10 = maxdig10, radix = 2,
                       min_exponent = minexp, min_exponent10 = minexp10,
                       max_exponent = maxexp, max_exponent10 = maxexp10;
  static constexpr T bits(unsigned short b) { return __builtin_bit_cast(T, b); }
  static constexpr T min() { return bits(kmin); }  // smallest positive normal
  static constexpr T max() { return bits(kmax); }
  static constexpr T lowest() { return bits(kmax | 0x8000); }
  static constexpr T epsilon() { return bits(keps); }
  static constexpr T round_error() { return bits(khalf); }
  static constexpr T infinity() { return bits(kinf); }
  static constexpr T quiet_NaN() { return bits(kqnan); }
  static constexpr T signaling_NaN() { return bits(ksnan); }
  static constexpr T denorm_min() { return bits(1); }
};
}  // namespace detail
template <> struct numeric_limits<half>
    : detail::fp16_limits<half, 0x0400, 0x7bff, 0x1400, 0x3800, 0x7c00, 0x7e00, 0x7d00,
                          11, 3, 5, -13, -4, 16, 4> {};
template <> struct numeric_limits<bfloat>
    : detail::fp16_limits<bfloat, 0x0080, 0x7f7f, 0x3c00, 0x3f00, 0x7f80, 0x7fc0, 0x7fa0,
                          8, 2, 4, -125, -37, 128, 38> {};

// ---- machinery --------------------------------------------------------------------------------
namespace detail {
template <class T> constexpr bool is_fp_v =
    std::is_same_v<T, float> || std::is_same_v<T, half> || std::is_same_v<T, bfloat>;
template <class T> constexpr bool is_int_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// Common type of Metal "T" arguments: identical, or a vector and scalars of its element type.
template <class A, class B, bool = std::is_same_v<A, B>, bool = is_vector_v<A>, bool = is_vector_v<B>>
struct common2 {};
template <class A, class B, bool VA, bool VB> struct common2<A, B, true, VA, VB> { using type = A; };
template <class A, class B> struct common2<A, B, false, true, false>
    : std::enable_if<std::is_same_v<vec_elem_t<A>, B>, A> {};
template <class A, class B> struct common2<A, B, false, false, true>
    : std::enable_if<std::is_same_v<vec_elem_t<B>, A>, B> {};
template <class P, class C, class = void> struct common_chain {};
template <class P, class C> struct common_chain<P, C, std::void_t<typename P::type>> : common2<typename P::type, C> {};
template <class... A> struct common {};
template <class A> struct common<A> { using type = A; };
template <class A, class B> struct common<A, B> : common2<A, B> {};
template <class A, class B, class C> struct common<A, B, C> : common_chain<common2<A, B>, C> {};
template <class... A> using common_t = typename common<A...>::type;

// SFINAE helpers on the (common) argument type's element kind.
template <class T> using if_fp = std::enable_if_t<is_fp_v<vec_elem_t<T>>, int>;
template <class T> using if_int = std::enable_if_t<is_int_v<vec_elem_t<T>>, int>;
template <class T> using if_num = std::enable_if_t<is_fp_v<vec_elem_t<T>> || is_int_v<vec_elem_t<T>>, int>;
template <class T> using if_fvec = std::enable_if_t<is_vector_v<T> && is_fp_v<vec_elem_t<T>>, int>;

template <class T> constexpr auto lane(T x, int i) {
  if constexpr (is_vector_v<T>) return x[i]; else return x;
}
// Apply the scalar function f lane by lane; R (a scalar or vector type) gives the lane count.
// The result's element type is f's result type (bool gives a boolvec).
template <class R, class F, class... A> inline auto map(F f, A... a) {
  if constexpr (is_vector_v<R>) {
    vec_or_bool<decltype(f(lane(a, 0)...)), vec_size_v<R>> r{};
    for (int i = 0; i < vec_size_v<R>; i++) r[i] = f(lane(a, i)...);
    return r;
  } else {
    return f(a...);
  }
}
template <class S> using uint_of = std::make_unsigned_t<std::conditional_t<std::is_same_v<S, bool>, char, S>>;
// Wide enough for any sum/product of two S (plus an S): mulhi, madsat...
template <class S> using wide_of = std::conditional_t<std::is_signed_v<S>, __int128, unsigned __int128>;
template <class S, class W> constexpr S saturate_to(W v) {
  return v < W(std::numeric_limits<S>::lowest()) ? std::numeric_limits<S>::lowest()
       : v > W(std::numeric_limits<S>::max()) ? std::numeric_limits<S>::max() : S(v);
}
template <class S> constexpr S next_after(S x, S y) {  // in S's own precision
  using U = std::conditional_t<sizeof(S) == 2, unsigned short, unsigned>;
  if (x != x || y != y) return S(float(x) + float(y));
  if (x == y) return y;
  if (x == S(0)) return S(__builtin_copysignf(float(numeric_limits<S>::denorm_min()), float(y)));
  U b = __builtin_bit_cast(U, x);
  b = ((x < y) == (x > S(0))) ? U(b + 1) : U(b - 1);
  return __builtin_bit_cast(S, b);
}
inline float sinpi(double x) {  // reduce exactly so that sinpi(n) == 0 and sinpi(n + 0.5) == +-1
  double r = __builtin_remainder(x, 2.0);  // [-1, 1]
  r = r > 0.5 ? 1.0 - r : r < -0.5 ? -1.0 - r : r;
  return float(__builtin_sin(3.14159265358979323846 * r));
}
}  // namespace detail

// Float function families. BODY is a float expression in x (y, z); RET is the lane result type:
// S (the argument's element type) or bool.
#define MFEMU_F1(name, RET, BODY)                                                          \
  template <class T, detail::if_fp<T> = 0> inline auto name(T t) {                         \
    return detail::map<T>([](auto s) { using S = decltype(s); float x = float(s);          \
                                       (void)sizeof(S); return RET(BODY); }, t);           \
  }
#define MFEMU_F2(name, RET, BODY)                                                          \
  template <class A, class B, class R = detail::common_t<A, B>, detail::if_fp<R> = 0>      \
  inline auto name(A a, B b) {                                                             \
    return detail::map<R>([](auto s, auto q) { using S = decltype(s);                      \
      float x = float(s), y = float(q); (void)sizeof(S); return RET(BODY); }, a, b);       \
  }
#define MFEMU_F3(name, BODY)                                                               \
  template <class A, class B, class C, class R = detail::common_t<A, B, C>, detail::if_fp<R> = 0> \
  inline R name(A a, B b, C c) {                                                           \
    return detail::map<R>([](auto s, auto q, auto r) { using S = decltype(s);              \
      float x = float(s), y = float(q), z = float(r); return S(BODY); }, a, b, c);         \
  }

MFEMU_F1(exp, S, __builtin_expf(x))
MFEMU_F1(exp2, S, __builtin_exp2f(x))
MFEMU_F1(exp10, S, __builtin_exp10f(x))
MFEMU_F1(log, S, __builtin_logf(x))
MFEMU_F1(log2, S, __builtin_log2f(x))
MFEMU_F1(log10, S, __builtin_log10f(x))
MFEMU_F1(sqrt, S, __builtin_sqrtf(x))
MFEMU_F1(rsqrt, S, float(1.0 / __builtin_sqrt(double(x))))
MFEMU_F1(sin, S, __builtin_sinf(x))
MFEMU_F1(cos, S, __builtin_cosf(x))
MFEMU_F1(tan, S, __builtin_tanf(x))
MFEMU_F1(asin, S, __builtin_asinf(x))
MFEMU_F1(acos, S, __builtin_acosf(x))
MFEMU_F1(atan, S, __builtin_atanf(x))
MFEMU_F1(sinh, S, __builtin_sinhf(x))
MFEMU_F1(cosh, S, __builtin_coshf(x))
MFEMU_F1(tanh, S, __builtin_tanhf(x))
MFEMU_F1(asinh, S, __builtin_asinhf(x))
MFEMU_F1(acosh, S, __builtin_acoshf(x))
MFEMU_F1(atanh, S, __builtin_atanhf(x))
MFEMU_F1(sinpi, S, detail::sinpi(x))
MFEMU_F1(cospi, S, detail::sinpi(double(x) + 0.5))  // exact in double
MFEMU_F1(tanpi, S, detail::sinpi(x) / detail::sinpi(double(x) + 0.5))
MFEMU_F1(floor, S, __builtin_floorf(x))
MFEMU_F1(ceil, S, __builtin_ceilf(x))
MFEMU_F1(round, S, __builtin_roundf(x))  // halfway cases away from zero
MFEMU_F1(rint, S, __builtin_rintf(x))    // halfway cases to even
MFEMU_F1(trunc, S, __builtin_truncf(x))
MFEMU_F1(fabs, S, __builtin_fabsf(x))
// Metal: sign(x) is 1 for x > 0, -1 for x < 0, keeps the sign of a zero, and is 0 for NaN.
MFEMU_F1(sign, S, x > 0 ? 1.0f : x < 0 ? -1.0f : x == 0 ? x : 0.0f)
// saturate = clamp(x, 0, 1) with fmin/fmax semantics, so NaN gives 0.
MFEMU_F1(saturate, S, __builtin_fminf(__builtin_fmaxf(x, 0.0f), 1.0f))
MFEMU_F1(isnan, bool, __builtin_isnan(x))
MFEMU_F1(isinf, bool, __builtin_isinf(x))
MFEMU_F1(isfinite, bool, __builtin_isfinite(x))
MFEMU_F1(isnormal, bool, __builtin_isfinite(x) && __builtin_fabsf(x) >= float(numeric_limits<S>::min()))
MFEMU_F1(signbit, bool, __builtin_signbit(x))

MFEMU_F2(atan2, S, __builtin_atan2f(x, y))
MFEMU_F2(pow, S, __builtin_powf(x, y))
MFEMU_F2(powr, S, x < 0 ? __builtin_nanf("") : __builtin_powf(x, y))  // powr is defined for x >= 0 only
MFEMU_F2(fmod, S, __builtin_fmodf(x, y))                                 // x - y * trunc(x / y)
MFEMU_F2(copysign, S, __builtin_copysignf(x, y))
MFEMU_F2(fdim, S, __builtin_fdimf(x, y))
MFEMU_F2(fmin, S, __builtin_fminf(x, y))  // a NaN argument yields the other argument
MFEMU_F2(fmax, S, __builtin_fmaxf(x, y))
MFEMU_F2(step, S, y < x ? 0.0f : 1.0f)   // step(edge, x)
MFEMU_F2(divide, S, x / y)
MFEMU_F2(nextafter, S, float(detail::next_after(S(x), S(y))))
MFEMU_F2(isordered, bool, x == x && y == y)
MFEMU_F2(isunordered, bool, x != x || y != y)
MFEMU_F3(fma, __builtin_fmaf(x, y, z))
MFEMU_F3(mad, __builtin_fmaf(x, y, z))
MFEMU_F3(mix, x + (y - x) * z)
MFEMU_F3(smoothstep, (z = __builtin_fminf(__builtin_fmaxf((z - x) / (y - x), 0.0f), 1.0f), z * z * (3.0f - 2.0f * z)))
MFEMU_F3(fmin3, __builtin_fminf(__builtin_fminf(x, y), z))
MFEMU_F3(fmax3, __builtin_fmaxf(__builtin_fmaxf(x, y), z))
MFEMU_F3(fmedian3, __builtin_fmaxf(__builtin_fminf(x, y), __builtin_fminf(__builtin_fmaxf(x, y), z)))

// fract(x) = fmin(x - floor(x), largest value below 1) per the Metal spec, so the result stays < 1
// after rounding to half/bfloat (fract(-1e-4h) is 0x1.ffcp-1h, not 1) and NaN/inf give that value.
template <class T, detail::if_fp<T> = 0> inline T fract(T t) {
  return detail::map<T>([](auto s) {
    using S = decltype(s);
    S r = S(float(s) - __builtin_floorf(float(s)));
    S below1 = S(1) - numeric_limits<S>::epsilon() / S(2);
    return r < S(1) ? r : below1;
  }, t);
}
template <class T, detail::if_fp<T> = 0> inline T sincos(T x, T& cosval) {
  cosval = cos(x);
  return sin(x);
}
template <class T, detail::if_fp<T> = 0> inline T modf(T x, T& intval) {
  intval = trunc(x);
  return detail::map<T>([](auto s, auto i) { return __builtin_isinf(float(s)) ? decltype(s)(0) : decltype(s)(s - i); }, x, intval);
}
// ldexp(x, k) and frexp(x, exp): k/exp is int (scalar x) or an int vector of x's size.
namespace detail {
template <class T, bool = is_vector_v<T>> struct int_like { using type = int; };
template <class T> struct int_like<T, true> { using type = vec<int, vec_size_v<T>>; };
template <class T> using int_like_t = typename int_like<T>::type;
}  // namespace detail
template <class T, class K, detail::if_fp<T> = 0,
          std::enable_if_t<std::is_same_v<K, detail::int_like_t<T>>, int> = 0>
inline T ldexp(T x, K k) {
  return detail::map<T>([](auto s, int e) { return decltype(s)(__builtin_ldexpf(float(s), e)); }, x, k);
}
template <class T, class K, detail::if_fp<T> = 0,
          std::enable_if_t<std::is_same_v<K, detail::int_like_t<T>>, int> = 0>
inline T frexp(T x, K& e) {
  K ek{};
  T r = detail::map<T>([](auto s, int) { int q; return decltype(s)(__builtin_frexpf(float(s), &q)); }, x, ek);
  for (int i = 0; i < (is_vector_v<T> ? vec_size_v<T> : 1); i++) {
    int q;
    __builtin_frexpf(float(detail::lane(x, i)), &q);
    if constexpr (is_vector_v<T>) ek[i] = q; else ek = q;
  }
  e = ek;
  return r;
}

// ---- integer or float: abs, min, max, clamp and the 3-argument forms --------------------------
template <class T, detail::if_num<T> = 0> inline T abs(T t) {
  return detail::map<T>([](auto s) {
    using S = decltype(s);
    if constexpr (detail::is_fp_v<S>) return S(__builtin_fabsf(float(s)));
    else return S(s < 0 ? detail::uint_of<S>(0) - detail::uint_of<S>(s) : s);  // no UB at MIN
  }, t);
}
namespace detail {
template <class S> constexpr S min1(S x, S y) {
  if constexpr (is_fp_v<S>) return S(__builtin_fminf(float(x), float(y))); else return y < x ? y : x;
}
template <class S> constexpr S max1(S x, S y) {
  if constexpr (is_fp_v<S>) return S(__builtin_fmaxf(float(x), float(y))); else return x < y ? y : x;
}
}  // namespace detail
// For floats Metal's min/max behave as fmin/fmax (a NaN argument yields the other one).
#define MFEMU_N(name, ARGS, BODY)                                                           \
  template <class A, class B, class... C, class R = detail::common_t<A, B, C...>,           \
            detail::if_num<R> = 0, std::enable_if_t<sizeof...(C) == ARGS - 2, int> = 0>      \
  inline R name(A a, B b, C... c) {                                                         \
    return detail::map<R>([](auto x, auto y, auto... zs) {                                  \
      using S = decltype(x); using detail::min1; using detail::max1;                        \
      S z[] = {zs..., S()}; (void)z; return S(BODY); }, a, b, c...);                        \
  }
MFEMU_N(min, 2, min1<S>(x, y))
MFEMU_N(max, 2, max1<S>(x, y))
// clamp(x, lo, hi) = min(max(x, lo), hi): Metal leaves lo > hi undefined; we return hi then.
MFEMU_N(clamp, 3, min1<S>(max1<S>(x, y), z[0]))
MFEMU_N(min3, 3, min1<S>(min1<S>(x, y), z[0]))
MFEMU_N(max3, 3, max1<S>(max1<S>(x, y), z[0]))
MFEMU_N(median3, 3, max1<S>(min1<S>(x, y), min1<S>(max1<S>(x, y), z[0])))
#undef MFEMU_N

// ---- geometric (float vectors; accumulated in float) -----------------------------------------
template <class V, detail::if_fvec<V> = 0> inline vec_elem_t<V> dot(V a, V b) {
  float s = 0;
  for (int i = 0; i < vec_size_v<V>; i++) s += float(a[i]) * float(b[i]);
  return vec_elem_t<V>(s);
}
template <class V, detail::if_fvec<V> = 0> inline vec_elem_t<V> length_squared(V a) { return dot(a, a); }
template <class V, detail::if_fvec<V> = 0> inline vec_elem_t<V> length(V a) {
  float s = 0;
  for (int i = 0; i < vec_size_v<V>; i++) s += float(a[i]) * float(a[i]);
  return vec_elem_t<V>(__builtin_sqrtf(s));
}
template <class V, detail::if_fvec<V> = 0> inline vec_elem_t<V> distance(V a, V b) { return length(a - b); }
template <class V, detail::if_fvec<V> = 0> inline vec_elem_t<V> distance_squared(V a, V b) { return dot(a - b, a - b); }
template <class V, detail::if_fvec<V> = 0> inline V normalize(V a) {
  float s = 0;
  for (int i = 0; i < vec_size_v<V>; i++) s += float(a[i]) * float(a[i]);
  float inv = float(1.0 / __builtin_sqrt(double(s)));
  for (int i = 0; i < vec_size_v<V>; i++) a[i] = vec_elem_t<V>(float(a[i]) * inv);
  return a;
}
template <class V, detail::if_fvec<V> = 0, std::enable_if_t<vec_size_v<V> == 3, int> = 0>
inline V cross(V a, V b) {
  return a.yzx * b.zxy - a.zxy * b.yzx;
}
template <class V, detail::if_fvec<V> = 0> inline V reflect(V i, V n) { return i - vec_elem_t<V>(2) * dot(n, i) * n; }
template <class V, detail::if_fvec<V> = 0> inline V faceforward(V n, V i, V nref) { return dot(nref, i) < 0 ? n : -n; }

// ---- relational ------------------------------------------------------------------------------
// Vector comparisons yield integer vectors in clang (-1 = true) and boolvec in Metal: accept both.
template <class V, std::enable_if_t<is_vector_v<V> && (detail::is_int_v<vec_elem_t<V>> ||
                                                       std::is_same_v<vec_elem_t<V>, bool>), int> = 0>
inline bool all(V v) {
  for (int i = 0; i < vec_size_v<V>; i++) if (!v[i]) return false;
  return true;
}
template <class V, std::enable_if_t<is_vector_v<V> && (detail::is_int_v<vec_elem_t<V>> ||
                                                       std::is_same_v<vec_elem_t<V>, bool>), int> = 0>
inline bool any(V v) {
  for (int i = 0; i < vec_size_v<V>; i++) if (v[i]) return true;
  return false;
}
inline bool all(bool b) { return b; }
inline bool any(bool b) { return b; }
// select(a, b, c) = c ? b : a, per lane when c is a vector (boolvec or a comparison result).
template <class T, class C, std::enable_if_t<std::is_same_v<C, bool> ||
                                             (is_vector_v<C> && vec_size_v<C> == vec_size_v<T>), int> = 0>
inline T select(T a, T b, C c) {
  if constexpr (is_vector_v<C>) {
    for (int i = 0; i < vec_size_v<T>; i++) if (c[i]) a[i] = b[i];
    return a;
  } else {
    return c ? b : a;
  }
}

// ---- integer functions ------------------------------------------------------------------------
#define MFEMU_I(name, N, BODY)                                                              \
  template <class A, class... B, class R = detail::common_t<A, B...>, detail::if_int<R> = 0, \
            std::enable_if_t<sizeof...(B) == N - 1, int> = 0>                              \
  inline R name(A a, B... b) {                                                              \
    return detail::map<R>([](auto x, auto... yz) {                                          \
      using S = decltype(x); using U = detail::uint_of<S>; using W = detail::wide_of<S>;    \
      constexpr int bits = sizeof(S) * 8; S y[] = {yz..., S()};                             \
      (void)bits; (void)y; (void)sizeof(U); (void)sizeof(W); return S(BODY); }, a, b...);   \
  }
MFEMU_I(absdiff, 2, x > y[0] ? U(U(x) - U(y[0])) : U(U(y[0]) - U(x)))
MFEMU_I(addsat, 2, detail::saturate_to<S>(__int128(x) + __int128(y[0])))
MFEMU_I(subsat, 2, detail::saturate_to<S>(__int128(x) - __int128(y[0])))
MFEMU_I(hadd, 2, (W(x) + W(y[0])) >> 1)      // (x + y) >> 1 without overflow
MFEMU_I(rhadd, 2, (W(x) + W(y[0]) + 1) >> 1)  // (x + y + 1) >> 1 without overflow
MFEMU_I(mulhi, 2, (W(x) * W(y[0])) >> bits)
MFEMU_I(mul24, 2, W(x) * W(y[0]))
MFEMU_I(mad24, 3, W(x) * W(y[0]) + W(y[1]))
MFEMU_I(madhi, 3, ((W(x) * W(y[0])) >> bits) + W(y[1]))
MFEMU_I(madsat, 3, detail::saturate_to<S>(W(x) * W(y[0]) + W(y[1])))
MFEMU_I(popcount, 1, __builtin_popcountll((unsigned long long)U(x)))
MFEMU_I(clz, 1, x == 0 ? bits : __builtin_clzll((unsigned long long)U(x)) - (64 - bits))
MFEMU_I(ctz, 1, x == 0 ? bits : __builtin_ctzll((unsigned long long)U(x)))
// rotate(v, i): rotate left by i modulo the bit width.
MFEMU_I(rotate, 2, (unsigned long long)(U(y[0]) % bits) == 0 ? U(x)
        : U((unsigned long long)U(x) << (U(y[0]) % bits) | (unsigned long long)U(x) >> (bits - U(y[0]) % bits)))
#undef MFEMU_I
template <class T, detail::if_int<T> = 0> inline T reverse_bits(T t) {
  return detail::map<T>([](auto x) {
    using S = decltype(x); using U = detail::uint_of<S>;
    if constexpr (sizeof(S) == 1) return S(__builtin_bitreverse8(U(x)));
    else if constexpr (sizeof(S) == 2) return S(__builtin_bitreverse16(U(x)));
    else if constexpr (sizeof(S) == 4) return S(__builtin_bitreverse32(U(x)));
    else return S(__builtin_bitreverse64(U(x)));
  }, t);
}
// extract_bits: bits [offset, offset + bits) of x, sign-extended for signed types; 0 when bits == 0.
template <class T, detail::if_int<T> = 0> inline T extract_bits(T t, uint offset, uint bits) {
  return detail::map<T>([](auto x, uint o, uint n) {
    using S = decltype(x);
    if (n == 0) return S(0);
    unsigned long long u = (unsigned long long)detail::uint_of<S>(x) << (64 - o - n);
    if constexpr (std::is_signed_v<S>) return S((long long)u >> (64 - n));
    else return S(u >> (64 - n));
  }, t, offset, bits);
}
// insert_bits: base with bits [offset, offset + bits) replaced by the low bits of insert.
template <class A, class B, class R = detail::common_t<A, B>, detail::if_int<R> = 0>
inline R insert_bits(A base, B insert, uint offset, uint bits) {
  return detail::map<R>([](auto x, auto y, uint o, uint n) {
    using S = decltype(x);
    unsigned long long mask = (n >= 64 ? ~0ull : (1ull << n) - 1) << o;
    unsigned long long u = (unsigned long long)detail::uint_of<S>(x), v = (unsigned long long)detail::uint_of<S>(y);
    return S((u & ~mask) | ((v << o) & mask));
  }, base, insert, offset, bits);
}

// ---- bit casts --------------------------------------------------------------------------------
template <class To, class From> inline To as_type(From x) {
  static_assert(sizeof(To) == sizeof(From), "as_type: source and destination sizes differ");
  return __builtin_bit_cast(To, x);
}

// ---- fast:: and precise:: ---------------------------------------------------------------------
// The emulator has one implementation of each function: both namespaces declare metal's float
// functions (metal::fast::exp is metal::exp). They are namespaces, not aliases, because MLX's
// bf16_math.h adds bfloat overloads to them; using-declarations keep the float overloads visible.
#define MFEMU_FLOAT_FUNCTIONS \
  using ::metal::exp; using ::metal::exp2; using ::metal::exp10; using ::metal::log; using ::metal::log2; \
  using ::metal::log10; using ::metal::sqrt; using ::metal::rsqrt; using ::metal::sin; using ::metal::cos; \
  using ::metal::tan; using ::metal::asin; using ::metal::acos; using ::metal::atan; using ::metal::sinh; \
  using ::metal::cosh; using ::metal::tanh; using ::metal::asinh; using ::metal::acosh; using ::metal::atanh; \
  using ::metal::sinpi; using ::metal::cospi; using ::metal::tanpi; using ::metal::floor; \
  using ::metal::ceil; using ::metal::round; using ::metal::rint; using ::metal::trunc; using ::metal::fabs; \
  using ::metal::sign; using ::metal::saturate; using ::metal::isnan; using ::metal::isinf; \
  using ::metal::isfinite; using ::metal::isnormal; using ::metal::signbit; using ::metal::atan2; \
  using ::metal::pow; using ::metal::powr; using ::metal::fmod; using ::metal::copysign; using ::metal::fdim; \
  using ::metal::fmin; using ::metal::fmax; using ::metal::step; using ::metal::divide; \
  using ::metal::nextafter; using ::metal::isordered; using ::metal::isunordered; using ::metal::fma; \
  using ::metal::mad; using ::metal::mix; using ::metal::smoothstep; using ::metal::fmin3; \
  using ::metal::fmax3; using ::metal::fmedian3; using ::metal::fract; using ::metal::sincos; \
  using ::metal::modf; using ::metal::ldexp; using ::metal::frexp;
namespace fast {
MFEMU_FLOAT_FUNCTIONS
}  // namespace fast
namespace precise {
MFEMU_FLOAT_FUNCTIONS
}  // namespace precise
#undef MFEMU_FLOAT_FUNCTIONS
}  // namespace metal
