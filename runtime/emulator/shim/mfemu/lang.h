// metalforge emulator: MSL spellings that need the preprocessor. Included last by <metal_stdlib>,
// after every C++ header, because the keywords below would break the standard library.
#pragma once
#include <utility>

namespace mfemu {
// static_cast between vector types converts each element in MSL; clang's would reinterpret. By const
// reference, which also binds a vector's element at a run-time index (`m.thread_elements()[k % 2]`).
template <class To, class From> constexpr To static_cast_(const From& x) {
  using F = std::remove_cv_t<From>;
  constexpr bool half_bfloat = (std::is_same_v<To, metal::half> && std::is_same_v<F, metal::bfloat>) ||
                               (std::is_same_v<To, metal::bfloat> && std::is_same_v<F, metal::half>);
  if constexpr (metal::is_vector_v<To> && metal::is_vector_v<From>) return metal::make_vec<To>(x);
  else if constexpr (half_bfloat) return static_cast<To>(static_cast<float>(x));  // clang has no direct cast
  else return static_cast<To>(x);
}
}  // namespace mfemu

// Metal's built-in types live at global scope, its functions in namespace metal.
using metal::half; using metal::bfloat; using metal::uint; using metal::ushort; using metal::uchar; using metal::ulong;
using metal::float16_t; using metal::bfloat16_t; using metal::size_t; using metal::ptrdiff_t;
#define MFEMU_GLOBAL_VEC(name) using metal::name##2; using metal::name##3; using metal::name##4;
MFEMU_GLOBAL_VEC(float) MFEMU_GLOBAL_VEC(half) MFEMU_GLOBAL_VEC(bfloat) MFEMU_GLOBAL_VEC(int) MFEMU_GLOBAL_VEC(uint)
MFEMU_GLOBAL_VEC(short) MFEMU_GLOBAL_VEC(ushort) MFEMU_GLOBAL_VEC(char) MFEMU_GLOBAL_VEC(uchar)
MFEMU_GLOBAL_VEC(long) MFEMU_GLOBAL_VEC(ulong) MFEMU_GLOBAL_VEC(bool)
#undef MFEMU_GLOBAL_VEC

// Address spaces are distinct pointer types, so mixing them fails to compile as on Metal.
#define device __attribute__((address_space(1)))
#define constant __attribute__((address_space(2)))
#define threadgroup __attribute__((address_space(3)))
#define thread
#define kernel
#define static_cast ::mfemu::static_cast_

// Vector constructors: `float4(...)` converts and concatenates like MSL; the bare type name
// (declarations, casts) is untouched because these are function-like macros.
#define MFEMU_CTOR(V) ::metal::make_vec<::metal::V>
#define packed_float2(...) MFEMU_CTOR(packed_float2)(__VA_ARGS__)
#define packed_float4(...) MFEMU_CTOR(packed_float4)(__VA_ARGS__)
#define packed_half2(...) MFEMU_CTOR(packed_half2)(__VA_ARGS__)
#define packed_half4(...) MFEMU_CTOR(packed_half4)(__VA_ARGS__)
#define packed_int2(...) MFEMU_CTOR(packed_int2)(__VA_ARGS__)
#define packed_int4(...) MFEMU_CTOR(packed_int4)(__VA_ARGS__)
#define packed_uint2(...) MFEMU_CTOR(packed_uint2)(__VA_ARGS__)
#define packed_uint4(...) MFEMU_CTOR(packed_uint4)(__VA_ARGS__)
#define packed_short2(...) MFEMU_CTOR(packed_short2)(__VA_ARGS__)
#define packed_short4(...) MFEMU_CTOR(packed_short4)(__VA_ARGS__)
#define packed_ushort2(...) MFEMU_CTOR(packed_ushort2)(__VA_ARGS__)
#define packed_ushort4(...) MFEMU_CTOR(packed_ushort4)(__VA_ARGS__)
#define packed_char2(...) MFEMU_CTOR(packed_char2)(__VA_ARGS__)
#define packed_char4(...) MFEMU_CTOR(packed_char4)(__VA_ARGS__)
#define packed_uchar2(...) MFEMU_CTOR(packed_uchar2)(__VA_ARGS__)
#define packed_uchar4(...) MFEMU_CTOR(packed_uchar4)(__VA_ARGS__)
#define float2(...) MFEMU_CTOR(float2)(__VA_ARGS__)
#define float3(...) MFEMU_CTOR(float3)(__VA_ARGS__)
#define float4(...) MFEMU_CTOR(float4)(__VA_ARGS__)
#define half2(...) MFEMU_CTOR(half2)(__VA_ARGS__)
#define half3(...) MFEMU_CTOR(half3)(__VA_ARGS__)
#define half4(...) MFEMU_CTOR(half4)(__VA_ARGS__)
#define bfloat2(...) MFEMU_CTOR(bfloat2)(__VA_ARGS__)
#define bfloat3(...) MFEMU_CTOR(bfloat3)(__VA_ARGS__)
#define bfloat4(...) MFEMU_CTOR(bfloat4)(__VA_ARGS__)
#define int2(...) MFEMU_CTOR(int2)(__VA_ARGS__)
#define int3(...) MFEMU_CTOR(int3)(__VA_ARGS__)
#define int4(...) MFEMU_CTOR(int4)(__VA_ARGS__)
#define uint2(...) MFEMU_CTOR(uint2)(__VA_ARGS__)
#define uint3(...) MFEMU_CTOR(uint3)(__VA_ARGS__)
#define uint4(...) MFEMU_CTOR(uint4)(__VA_ARGS__)
#define short2(...) MFEMU_CTOR(short2)(__VA_ARGS__)
#define short3(...) MFEMU_CTOR(short3)(__VA_ARGS__)
#define short4(...) MFEMU_CTOR(short4)(__VA_ARGS__)
#define ushort2(...) MFEMU_CTOR(ushort2)(__VA_ARGS__)
#define ushort3(...) MFEMU_CTOR(ushort3)(__VA_ARGS__)
#define ushort4(...) MFEMU_CTOR(ushort4)(__VA_ARGS__)
#define char2(...) MFEMU_CTOR(char2)(__VA_ARGS__)
#define char3(...) MFEMU_CTOR(char3)(__VA_ARGS__)
#define char4(...) MFEMU_CTOR(char4)(__VA_ARGS__)
#define uchar2(...) MFEMU_CTOR(uchar2)(__VA_ARGS__)
#define uchar3(...) MFEMU_CTOR(uchar3)(__VA_ARGS__)
#define uchar4(...) MFEMU_CTOR(uchar4)(__VA_ARGS__)
#define long2(...) MFEMU_CTOR(long2)(__VA_ARGS__)
#define long3(...) MFEMU_CTOR(long3)(__VA_ARGS__)
#define long4(...) MFEMU_CTOR(long4)(__VA_ARGS__)
#define ulong2(...) MFEMU_CTOR(ulong2)(__VA_ARGS__)
#define ulong3(...) MFEMU_CTOR(ulong3)(__VA_ARGS__)
#define ulong4(...) MFEMU_CTOR(ulong4)(__VA_ARGS__)
#define bool2(...) MFEMU_CTOR(bool2)(__VA_ARGS__)
#define bool3(...) MFEMU_CTOR(bool3)(__VA_ARGS__)
#define bool4(...) MFEMU_CTOR(bool4)(__VA_ARGS__)

constexpr half operator""h(long double x) { return (half)x; }
constexpr half operator""h(unsigned long long x) { return (half)x; }

// What Metal's language rejects, rejected here too: no double, no heap, no C/C++ library,
// no virtual dispatch, no thread-local storage, no inline assembly.
#pragma GCC poison double std new delete malloc free printf virtual thread_local asm
