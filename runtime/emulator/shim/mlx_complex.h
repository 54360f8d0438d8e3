// metalforge emulator: MLX's complex.h (complex_t<T>, complex32_t, complex64_t), our own code with
// MLX's names and semantics. Used by mlx_utils.h (custom kernels) and in place of MLX's own complex.h
// when MLX's production kernels are compiled (mlx_kernels.py): MLX's declares each constructor once
// per address space (`complex_t() thread`, `... threadgroup`), which clang's C++ cannot express.
// Written in MSL spelling (included after <metal_stdlib>).
#pragma once

// ---- complex.h: complex_t<T>, complex32_t (half), complex64_t (float) ------------------------
template <typename T> struct complex_t;

template <typename T> static constexpr constant bool is_complex_v = false;
template <typename T> static constexpr constant bool is_complex_v<complex_t<T>> = true;

// Metal allows explicit casts to/from bfloat that are not implicit conversions.
template <typename From, typename To>
static constexpr constant bool is_lane_convertible_v =
    __is_convertible_to(From, To) ||
    (__is_same(To, bfloat16_t) && __is_convertible_to(From, float)) ||
    (__is_same(From, bfloat16_t) && __is_convertible_to(float, To));

template <bool B> struct mfemu_enable_if {};
template <> struct mfemu_enable_if<true> { typedef int type; };
#define MFEMU_REQUIRES(...) typename mfemu_enable_if<(__VA_ARGS__)>::type = 0

template <typename T>
struct complex_t {
  using value_type = T;
  T real;
  T imag;

  constexpr complex_t(T re, T im) : real(re), imag(im) {}
  constexpr complex_t() : real(0), imag(0) {}
  template <typename U, MFEMU_REQUIRES(!is_complex_v<U> && is_lane_convertible_v<U, T>)>
  constexpr complex_t(U x) : real(static_cast<T>(x)), imag(static_cast<T>(0)) {}
  template <typename U, MFEMU_REQUIRES(!__is_same(U, T) && is_lane_convertible_v<U, T>)>
  constexpr complex_t(complex_t<U> x) : real(static_cast<T>(x.real)), imag(static_cast<T>(x.imag)) {}
  constexpr complex_t(vec<T, 2> v) : real(v.x), imag(v.y) {}
  // Copies out of other address spaces (clang's implicit copy constructor takes a generic
  // reference, which cannot bind to device/constant/threadgroup objects).
  constexpr complex_t(const device complex_t& o) : real(o.real), imag(o.imag) {}
  constexpr complex_t(const constant complex_t& o) : real(o.real), imag(o.imag) {}
  constexpr complex_t(const threadgroup complex_t& o) : real(o.real), imag(o.imag) {}

  constexpr operator vec<T, 2>() const { return vec<T, 2>{real, imag}; }
  // Converting to a scalar keeps the real part.
  template <typename U, MFEMU_REQUIRES(!is_complex_v<U> && is_lane_convertible_v<T, U>)>
  constexpr operator U() const { return static_cast<U>(real); }
};

using complex32_t = complex_t<half>;
using complex64_t = complex_t<float>;

template <typename T> constexpr complex_t<T> operator-(complex_t<T> x) { return {-x.real, -x.imag}; }
// Ordering is lexicographic: real part first, then imaginary part.
template <typename T> constexpr bool operator>=(complex_t<T> a, complex_t<T> b) {
  return a.real > b.real || (a.real == b.real && a.imag >= b.imag);
}
template <typename T> constexpr bool operator>(complex_t<T> a, complex_t<T> b) {
  return a.real > b.real || (a.real == b.real && a.imag > b.imag);
}
template <typename T> constexpr bool operator<=(complex_t<T> a, complex_t<T> b) { return b >= a; }
template <typename T> constexpr bool operator<(complex_t<T> a, complex_t<T> b) { return b > a; }
template <typename T> constexpr bool operator==(complex_t<T> a, complex_t<T> b) {
  return a.real == b.real && a.imag == b.imag;
}
template <typename T> constexpr complex_t<T> operator+(complex_t<T> a, complex_t<T> b) {
  return {a.real + b.real, a.imag + b.imag};
}
#define MFEMU_COMPLEX_ADD_ASSIGN(AS)                                                     \
  template <typename T> constexpr AS complex_t<T>& operator+=(AS complex_t<T>& a, complex_t<T> b) { \
    a.real += b.real;                                                                    \
    a.imag += b.imag;                                                                    \
    return a;                                                                            \
  }
MFEMU_COMPLEX_ADD_ASSIGN(thread)
MFEMU_COMPLEX_ADD_ASSIGN(threadgroup)
MFEMU_COMPLEX_ADD_ASSIGN(device)
#undef MFEMU_COMPLEX_ADD_ASSIGN
template <typename T, typename U, MFEMU_REQUIRES(!is_complex_v<U> && is_lane_convertible_v<U, T>)>
constexpr complex_t<T> operator+(U a, complex_t<T> b) { return {static_cast<T>(a) + b.real, b.imag}; }
template <typename T, typename U, MFEMU_REQUIRES(!is_complex_v<U> && is_lane_convertible_v<U, T>)>
constexpr complex_t<T> operator+(complex_t<T> a, U b) { return {a.real + static_cast<T>(b), a.imag}; }
template <typename T> constexpr complex_t<T> operator-(complex_t<T> a, complex_t<T> b) {
  return {a.real - b.real, a.imag - b.imag};
}
template <typename T, typename U, MFEMU_REQUIRES(!is_complex_v<U> && is_lane_convertible_v<U, T>)>
constexpr complex_t<T> operator-(U a, complex_t<T> b) { return {static_cast<T>(a) - b.real, -b.imag}; }
template <typename T, typename U, MFEMU_REQUIRES(!is_complex_v<U> && is_lane_convertible_v<U, T>)>
constexpr complex_t<T> operator-(complex_t<T> a, U b) { return {a.real - static_cast<T>(b), a.imag}; }
template <typename T> constexpr complex_t<T> operator*(complex_t<T> a, complex_t<T> b) {
  return {a.real * b.real - a.imag * b.imag, a.real * b.imag + a.imag * b.real};
}
template <typename T> constexpr complex_t<T> operator/(complex_t<T> a, complex_t<T> b) {
  T d = b.real * b.real + b.imag * b.imag;
  return {(a.real * b.real + a.imag * b.imag) / d, (a.imag * b.real - a.real * b.imag) / d};
}
template <typename T, typename U, MFEMU_REQUIRES(!is_complex_v<U> && is_lane_convertible_v<U, T>)>
constexpr complex_t<T> operator/(U a, complex_t<T> b) {
  T s = static_cast<T>(a), d = b.real * b.real + b.imag * b.imag;
  return {s * b.real / d, -s * b.imag / d};
}
// Lane-wise floored modulo (the result takes the divisor's sign), as MLX defines it.
template <typename T> constexpr complex_t<T> operator%(complex_t<T> a, complex_t<T> b) {
  T re = a.real - b.real * static_cast<int64_t>(a.real / b.real);
  T im = a.imag - b.imag * static_cast<int64_t>(a.imag / b.imag);
  if (re != 0 && ((re < 0) != (b.real < 0))) re += b.real;
  if (im != 0 && ((im < 0) != (b.imag < 0))) im += b.imag;
  return {re, im};
}
#undef MFEMU_REQUIRES

