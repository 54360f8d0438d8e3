// metalforge emulator: Metal scalar and vector types on clang/x86-64.
// half and bfloat are clang's _Float16 and __bf16, compiled with excess precision off so every
// operation rounds to the type as Metal does. Vectors are clang ext_vector_type (swizzles work);
// bool vectors are a small class because clang's vector comparisons yield integer vectors.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace metal {
typedef _Float16 half;
typedef __bf16 bfloat;
typedef unsigned int uint;
typedef unsigned short ushort;
typedef unsigned char uchar;
typedef unsigned long ulong;
typedef half float16_t;
typedef bfloat bfloat16_t;
using std::size_t;
using std::ptrdiff_t;
using std::int8_t;
using std::int16_t;
using std::int32_t;
using std::int64_t;
using std::uint8_t;
using std::uint16_t;
using std::uint32_t;
using std::uint64_t;

template <int N> struct boolvec;

// ---- <metal_type_traits>: std's traits, with half and bfloat as floating-point types --------------
using std::integral_constant; using std::bool_constant; using std::true_type; using std::false_type;
using std::is_same; using std::is_same_v; using std::is_convertible; using std::is_convertible_v;
using std::enable_if; using std::enable_if_t; using std::conditional; using std::conditional_t;
using std::is_integral; using std::is_integral_v; using std::is_signed; using std::is_signed_v;
using std::is_unsigned; using std::is_unsigned_v; using std::is_void; using std::is_void_v;
using std::is_const; using std::is_const_v; using std::is_pointer; using std::is_pointer_v;
using std::remove_cv; using std::remove_cv_t;
using std::remove_const; using std::remove_const_t; using std::remove_volatile; using std::remove_volatile_t;
using std::remove_reference; using std::remove_reference_t; using std::remove_pointer; using std::remove_pointer_t;
using std::decay; using std::decay_t; using std::make_signed; using std::make_signed_t;
using std::make_unsigned; using std::make_unsigned_t; using std::add_const; using std::add_const_t;
template <class T> struct is_floating_point
    : bool_constant<std::is_floating_point_v<std::remove_cv_t<T>> || std::is_same_v<std::remove_cv_t<T>, _Float16> ||
                    std::is_same_v<std::remove_cv_t<T>, __bf16>> {};
template <class T> constexpr bool is_floating_point_v = is_floating_point<T>::value;
template <class T> struct is_arithmetic : bool_constant<is_integral_v<T> || is_floating_point_v<T>> {};
template <class T> constexpr bool is_arithmetic_v = is_arithmetic<T>::value;
// remove_addrspace: a type named through a `device`/`threadgroup`/`constant` lvalue, without the space.
template <class T> struct remove_addrspace { using type = T; };
#define MFEMU_REMOVE_ADDRSPACE(n) \
  template <class T> struct remove_addrspace<__attribute__((address_space(n))) T> { using type = T; };
MFEMU_REMOVE_ADDRSPACE(1) MFEMU_REMOVE_ADDRSPACE(2) MFEMU_REMOVE_ADDRSPACE(3)
#undef MFEMU_REMOVE_ADDRSPACE
template <class T> using remove_addrspace_t = typename remove_addrspace<T>::type;

namespace detail {
template <class T, int N> struct vec_of { typedef T type __attribute__((ext_vector_type(N))); };
template <int N> struct vec_of<bool, N> { typedef boolvec<N> type; };
}  // namespace detail
// Metal's vec<T, N>: an alias of the vector type itself, so that function templates deduce T and N
// from it (MLX's Steel fragments, `void f(thread vec<U, 2>& a)`). vec<bool, N> is clang's bool
// vector, not bool2/bool3/bool4 (those are the class below): write boolN.
template <class T, int N> using vec = T __attribute__((ext_vector_type(N)));
// The shim's vector of N T's, with the Metal bool vectors for bool.
template <class T, int N> using vec_or_bool = typename detail::vec_of<T, N>::type;

#define MFEMU_VEC(T, name)               \
  typedef vec_or_bool<T, 2> name##2;     \
  typedef vec_or_bool<T, 3> name##3;     \
  typedef vec_or_bool<T, 4> name##4;
MFEMU_VEC(float, float)
MFEMU_VEC(half, half)
MFEMU_VEC(bfloat, bfloat)
MFEMU_VEC(int, int)
MFEMU_VEC(uint, uint)
MFEMU_VEC(short, short)
MFEMU_VEC(ushort, ushort)
MFEMU_VEC(char, char)
MFEMU_VEC(uchar, uchar)
MFEMU_VEC(long, long)
MFEMU_VEC(ulong, ulong)
MFEMU_VEC(bool, bool)
#undef MFEMU_VEC

// Packed vectors: the scalar's alignment, so they load and store at any element boundary (as in
// Metal). Only 2 and 4 components: a packed 3-vector is 3 elements in Metal but 4 in clang.
#define MFEMU_PACKED(T, name)                                                                 \
  typedef T packed_##name##2 __attribute__((ext_vector_type(2), aligned(alignof(T))));     \
  typedef T packed_##name##4 __attribute__((ext_vector_type(4), aligned(alignof(T))));
MFEMU_PACKED(float, float)
MFEMU_PACKED(half, half)
MFEMU_PACKED(int, int)
MFEMU_PACKED(uint, uint)
MFEMU_PACKED(short, short)
MFEMU_PACKED(ushort, ushort)
MFEMU_PACKED(char, char)
MFEMU_PACKED(uchar, uchar)
#undef MFEMU_PACKED

// ---- vector traits -------------------------------------------------------------------------
template <class T> struct vec_traits { static constexpr int n = 0; using elem = T; };
template <class T, int N> struct vec_traits<T __attribute__((ext_vector_type(N)))> {
  static constexpr int n = N; using elem = T;
};
template <int N> struct vec_traits<boolvec<N>> { static constexpr int n = N; using elem = bool; };
template <class T> constexpr bool is_vector_v = vec_traits<std::remove_cv_t<std::remove_reference_t<T>>>::n > 0;
template <class T> constexpr int vec_size_v = vec_traits<std::remove_cv_t<std::remove_reference_t<T>>>::n;
template <class T> using vec_elem_t = typename vec_traits<std::remove_cv_t<std::remove_reference_t<T>>>::elem;

// ---- bool vectors: built from comparisons (clang yields int vectors with -1 for true) -----
// Storage with Metal's sizes: bool2 is 2 bytes, bool3 and bool4 are 4.
template <int N> struct boolvec_storage;
template <> struct boolvec_storage<2> {
  union { bool v[2]; struct { bool x, y; }; struct { bool r, g; }; };
};
template <> struct boolvec_storage<3> {
  union { bool v[4]; struct { bool x, y, z; }; struct { bool r, g, b; }; };
};
template <> struct boolvec_storage<4> {
  union { bool v[4]; struct { bool x, y, z, w; }; struct { bool r, g, b, a; }; };
};
template <int N> struct boolvec : boolvec_storage<N> {
  boolvec() { for (int i = 0; i < N; i++) this->v[i] = false; }
  boolvec(bool s) { for (int i = 0; i < N; i++) this->v[i] = s; }
  template <class V, std::enable_if_t<is_vector_v<V> && vec_size_v<V> == N, int> = 0>
  boolvec(const V& c) { for (int i = 0; i < N; i++) this->v[i] = c[i] != 0; }
  bool& operator[](int i) { return this->v[i]; }
  bool operator[](int i) const { return this->v[i]; }
  friend boolvec operator!(boolvec a) { for (int i = 0; i < N; i++) a.v[i] = !a.v[i]; return a; }
#define MFEMU_BOOLOP(op)                                                      \
  friend boolvec operator op(boolvec a, boolvec b) {                          \
    for (int i = 0; i < N; i++) a.v[i] = a.v[i] op b.v[i];                    \
    return a;                                                                 \
  }
  MFEMU_BOOLOP(&&) MFEMU_BOOLOP(||) MFEMU_BOOLOP(&) MFEMU_BOOLOP(|) MFEMU_BOOLOP(^)
  MFEMU_BOOLOP(==) MFEMU_BOOLOP(!=)
#undef MFEMU_BOOLOP
};
static_assert(sizeof(boolvec<2>) == 2 && sizeof(boolvec<3>) == 4 && sizeof(boolvec<4>) == 4, "Metal's bool vector sizes");

// ---- MSL vector constructors: float4(a.xy, 1, 2), float4(s), float4(int4_value) -----------
namespace detail {
template <class E, class A> inline void put(E* out, int& i, const A& a) {
  if constexpr (is_vector_v<A>) {
    for (int k = 0; k < vec_size_v<A>; k++) out[i++] = static_cast<E>(a[k]);
  } else {
    out[i++] = static_cast<E>(a);
  }
}
template <class... A> constexpr int count_elems() { return ((is_vector_v<A> ? vec_size_v<A> : 1) + ... + 0); }
}  // namespace detail

template <class V, class... A> inline V make_vec(const A&... a) {
  using E = vec_elem_t<V>;
  constexpr int N = vec_size_v<V>;
  if constexpr (sizeof...(A) == 0) {
    return V(E(0));
  } else if constexpr (sizeof...(A) == 1 && !(is_vector_v<A> || ...)) {
    return V(static_cast<E>((a, ...)));  // splat
  } else {
    static_assert(detail::count_elems<A...>() == N,
                  "vector constructor: the arguments' components must add up to the vector's size");
    E buf[N] = {};
    int i = 0;
    (detail::put(buf, i, a), ...);
    V out{};
    for (int k = 0; k < N; k++) out[k] = buf[k];
    return out;
  }
}
}  // namespace metal
