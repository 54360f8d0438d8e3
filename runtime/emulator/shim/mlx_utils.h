// metalforge emulator: the helpers MLX (0.32.1) prepends to every mx.fast.metal_kernel source,
// i.e. what mlx/backend/metal/kernels/utils.h makes visible (with bf16.h, bf16_math.h,
// complex.h, defines.h, logging.h). Same names, signatures and semantics, our own code.
// Text prepended to user kernels after <metal_stdlib> and `using namespace metal;`, so it is
// written in MSL spelling (no std::, no double, address spaces as device/constant/threadgroup).
// bfloat16_t is the native bfloat and math.h already has the bfloat math overloads that
// bf16_math.h adds; its simd overloads come from the simd shim's templates.
#pragma once

typedef half float16_t;

// ---- defines.h / logging.h -------------------------------------------------------------------
static constant constexpr int MAX_REDUCE_SPECIALIZED_DIMS = 4;
static constant constexpr int REDUCE_N_READS = 4;
static constant constexpr int REDUCE_N_WRITES = 4;
static constant constexpr int SOFTMAX_N_READS = 4;
static constant constexpr int RMS_N_READS = 4;
static constant constexpr int RMS_LOOPED_LIMIT = 4096;

namespace mlx {
struct os_log {  // Metal's os_log: logging is dropped in the emulator
  constexpr os_log(const char*, const char*) {}
  template <typename... Args> void log_debug(const char*, Args...) const {}
};
}  // namespace mlx

// ---- bf16.h ----------------------------------------------------------------------------------
inline uint16_t bfloat16_to_uint16(const bfloat16_t x) { return as_type<uint16_t>(x); }
inline bfloat16_t uint16_to_bfloat16(const uint16_t x) { return as_type<bfloat16_t>(x); }

#include "mlx_complex.h"

// ---- utils.h: type limits --------------------------------------------------------------------
// Integers: numeric_limits' range. Floats: max/min are +-inf, finite_max/finite_min +-max().
template <typename U>
struct Limits {
  static constexpr constant U max = metal::numeric_limits<U>::max();
  static constexpr constant U min = metal::numeric_limits<U>::min();
  static constexpr constant U finite_max = metal::numeric_limits<U>::max();
  static constexpr constant U finite_min = metal::numeric_limits<U>::min();
};
#define MFEMU_FLOAT_LIMITS(T)                                                            \
  template <> struct Limits<T> {                                                         \
    static constexpr constant T max = metal::numeric_limits<T>::infinity();              \
    static constexpr constant T min = -metal::numeric_limits<T>::infinity();             \
    static constexpr constant T finite_max = metal::numeric_limits<T>::max();            \
    static constexpr constant T finite_min = -metal::numeric_limits<T>::max();           \
  };
MFEMU_FLOAT_LIMITS(half)
MFEMU_FLOAT_LIMITS(float)
MFEMU_FLOAT_LIMITS(bfloat16_t)
#undef MFEMU_FLOAT_LIMITS
template <> struct Limits<bool> {
  static constexpr constant bool max = true;
  static constexpr constant bool min = false;
};
template <typename T> struct Limits<complex_t<T>> {
  inline static constexpr constant complex_t<T> max =
      complex_t<T>(metal::numeric_limits<T>::infinity(), metal::numeric_limits<T>::infinity());
  inline static constexpr constant complex_t<T> min =
      complex_t<T>(-metal::numeric_limits<T>::infinity(), -metal::numeric_limits<T>::infinity());
};

// Elements per thread for kernels that process 8 bytes per thread.
template <typename U>
struct WorkPerThread {
  static_assert(sizeof(U) <= 8, "Type too large");
  static constexpr int constant n = 8 / sizeof(U);
};

// ---- utils.h: indexing -----------------------------------------------------------------------
// Shapes are int, strides int64_t (in elements), both in the constant address space. The
// flat-index overload computes in the type of `elem` (int64_t unless given a narrower type).
#define MLX_MTL_PRAGMA_UNROLL _Pragma("clang loop unroll(full)")

template <typename IdxT = int64_t>
inline IdxT elem_to_loc(IdxT elem, constant const int* shape, constant const int64_t* strides, int ndim) {
  IdxT loc = 0;
  for (int i = ndim - 1; i >= 0 && elem > 0; --i) {
    loc += (elem % shape[i]) * IdxT(strides[i]);
    elem /= shape[i];
  }
  return loc;
}
// Grid position: x indexes the last dim, y the second to last, z the flattened leading dims.
template <typename IdxT = int64_t>
inline IdxT elem_to_loc(uint3 elem, constant const int* shape, constant const int64_t* strides, int ndim) {
  IdxT loc = elem.x * IdxT(strides[ndim - 1]) + elem.y * IdxT(strides[ndim - 2]);
  for (int d = ndim - 3; d >= 0; --d) {
    loc += (elem.z % shape[d]) * IdxT(strides[d]);
    elem.z /= shape[d];
  }
  return loc;
}
template <typename IdxT = int64_t>
inline IdxT elem_to_loc_1(uint elem, constant const int64_t& stride) {
  return elem * IdxT(stride);
}
// (MLX declares the strides as arrays `constant const int64_t strides[2]`; clang rejects address
// spaces on array parameters, the pointer is the same thing.)
template <typename IdxT = int64_t>
inline IdxT elem_to_loc_2(uint2 elem, constant const int64_t* strides) {
  return elem.x * IdxT(strides[1]) + elem.y * IdxT(strides[0]);
}
template <typename IdxT = int64_t>
inline IdxT elem_to_loc_3(uint3 elem, constant const int64_t* strides) {
  return elem.x * IdxT(strides[2]) + elem.y * IdxT(strides[1]) + elem.z * IdxT(strides[0]);
}
// Same position in two / three arrays sharing a shape.
template <typename IdxT = int64_t>
inline vec<IdxT, 2> elem_to_loc_2_nd(uint3 elem, constant const int* shape, constant const int64_t* a_strides,
                                     constant const int64_t* b_strides, int ndim) {
  vec<IdxT, 2> loc = {IdxT(elem.x * IdxT(a_strides[ndim - 1]) + IdxT(elem.y) * IdxT(a_strides[ndim - 2])),
                      IdxT(elem.x * IdxT(b_strides[ndim - 1]) + elem.y * IdxT(b_strides[ndim - 2]))};
  for (int d = ndim - 3; d >= 0; --d) {
    uint l = elem.z % shape[d];
    loc.x += l * IdxT(a_strides[d]);
    loc.y += l * IdxT(b_strides[d]);
    elem.z /= shape[d];
  }
  return loc;
}
template <typename IdxT = int64_t>
inline vec<IdxT, 3> elem_to_loc_3_nd(uint3 elem, constant const int* shape, constant const int64_t* a_strides,
                                     constant const int64_t* b_strides, constant const int64_t* c_strides, int ndim) {
  vec<IdxT, 3> loc = {IdxT(elem.x * IdxT(a_strides[ndim - 1])) + IdxT(elem.y * IdxT(a_strides[ndim - 2])),
                      IdxT(elem.x * IdxT(b_strides[ndim - 1])) + IdxT(elem.y * IdxT(b_strides[ndim - 2])),
                      IdxT(elem.x * IdxT(c_strides[ndim - 1])) + IdxT(elem.y * IdxT(c_strides[ndim - 2]))};
  for (int d = ndim - 3; d >= 0; --d) {
    uint l = elem.z % shape[d];
    loc.x += l * IdxT(a_strides[d]);
    loc.y += l * IdxT(b_strides[d]);
    loc.z += l * IdxT(c_strides[d]);
    elem.z /= shape[d];
  }
  return loc;
}

// Walks the offsets of consecutive elements of a strided array. DIM levels are unrolled; the
// last level (DIM == 1) recomputes from the flat index when General, else just adds strides[0].
template <int DIM, typename OffsetT = size_t, bool General = true>
struct LoopedElemToLoc {
  int dim;
  LoopedElemToLoc<DIM - 1, OffsetT, General> inner_looper;
  OffsetT offset{0};
  int index{0};

  LoopedElemToLoc(int d) : dim(d), inner_looper(d - 1) {}

  void next(const constant int* shape, const constant int64_t* strides) {
    if (dim == 0) return;
    index++;
    offset += OffsetT(strides[dim - 1]);
    if (index >= shape[dim - 1]) {
      index = 0;
      inner_looper.next(shape, strides);
      offset = inner_looper.offset;
    }
  }
  void next(int n, const constant int* shape, const constant int64_t* strides) {
    if (dim == 0) return;
    index += n;
    offset += n * OffsetT(strides[dim - 1]);
    if (index >= shape[dim - 1]) {
      int extra = index - shape[dim - 1];
      if (extra >= shape[dim - 1]) {
        inner_looper.next(1 + extra / shape[dim - 1], shape, strides);
        extra = extra % shape[dim - 1];
      } else {
        inner_looper.next(shape, strides);
      }
      index = 0;
      offset = inner_looper.offset;
      if (extra > 0) next(extra, shape, strides);
    }
  }
  OffsetT location() { return offset; }
};
template <typename OffsetT>
struct LoopedElemToLoc<1, OffsetT, true> {
  int dim;
  OffsetT offset{0};
  uint index{0};

  LoopedElemToLoc(int d) : dim(d) {}

  void next(const constant int* shape, const constant int64_t* strides) {
    index++;
    offset = dim > 1 ? elem_to_loc<OffsetT>(index, shape, strides, dim) : offset + OffsetT(strides[0]);
  }
  void next(int n, const constant int* shape, const constant int64_t* strides) {
    index += n;
    offset = dim > 1 ? elem_to_loc<OffsetT>(index, shape, strides, dim) : index * OffsetT(strides[0]);
  }
  OffsetT location() { return offset; }
};
template <typename OffsetT>
struct LoopedElemToLoc<1, OffsetT, false> {
  OffsetT offset{0};

  LoopedElemToLoc(int) {}

  void next(const constant int*, const constant int64_t* strides) { offset += OffsetT(strides[0]); }
  void next(int n, const constant int*, const constant int64_t* strides) { offset += n * OffsetT(strides[0]); }
  OffsetT location() { return offset; }
};

// ---- utils.h: calculation --------------------------------------------------------------------
template <typename T, typename U>
inline T ceildiv(T N, U M) {
  return (N + M - 1) / M;
}

// log1p(x) = log(1 + x) with the rounding error of 1 + x compensated (Goldberg's trick).
inline float log1p(float x) {
  float xp1 = 1.0f + x;
  if (xp1 == Limits<float>::max) return Limits<float>::max;
  if (xp1 == 1.0f) return x;
  return x * (metal::log(xp1) / (xp1 - 1.0f));
}
inline bfloat16_t log1p(bfloat16_t x) {
  float xp1 = 1.0f + static_cast<float>(x);
  if (xp1 == Limits<float>::max) return Limits<bfloat16_t>::max;
  if (xp1 == 1.0f) return x;
  return bfloat16_t(x * (metal::log(xp1) / (xp1 - 1.0f)));
}
inline complex64_t log1p(complex64_t in) {
  float x = in.real, y = in.imag;
  float zabs = metal::precise::sqrt(x * x + y * y);
  float theta = metal::atan2(y, x + 1);
  if (zabs < 0.5f) {
    float r = x * (2 + x) + y * y;
    if (r == 0) return {x, theta};  // underflow
    return {0.5f * log1p(r), theta};
  }
  return {metal::log(metal::sqrt((x + 1) * (x + 1) + y * y)), theta};
}

// ---- utils.h: SIMD shuffles for 64-bit, bool and complex64 values ----------------------------
// 64-bit values travel as uint2, bool as uint32_t, complex lane by lane.
#define MFEMU_SHUFFLE(name)                                                                   \
  inline uint64_t name(uint64_t data, uint16_t delta) {                                       \
    return as_type<uint64_t>(metal::name(as_type<uint2>(data), delta));                       \
  }                                                                                           \
  inline int64_t name(int64_t data, uint16_t delta) {                                         \
    return as_type<int64_t>(metal::name(as_type<uint2>(data), delta));                        \
  }
MFEMU_SHUFFLE(simd_shuffle_down)
MFEMU_SHUFFLE(simd_shuffle_up)
MFEMU_SHUFFLE(simd_shuffle)
#undef MFEMU_SHUFFLE
inline bool simd_shuffle_down(bool data, uint16_t delta) { return simd_shuffle_down(static_cast<uint32_t>(data), delta); }
inline bool simd_shuffle_up(bool data, uint16_t delta) { return simd_shuffle_up(static_cast<uint32_t>(data), delta); }
inline bool simd_shuffle(bool data, uint16_t lane) { return simd_shuffle(static_cast<uint32_t>(data), lane); }
inline complex64_t simd_shuffle_down(complex64_t data, uint16_t delta) {
  return complex64_t(simd_shuffle_down(data.real, delta), simd_shuffle_down(data.imag, delta));
}
inline complex64_t simd_shuffle_up(complex64_t data, uint16_t delta) {
  return complex64_t(simd_shuffle_up(data.real, delta), simd_shuffle_up(data.imag, delta));
}
inline complex64_t simd_shuffle(complex64_t data, uint16_t lane) {
  return complex64_t(simd_shuffle(data.real, lane), simd_shuffle(data.imag, lane));
}
inline uint64_t simd_shuffle_and_fill_up(uint64_t data, uint64_t filling, uint16_t delta) {
  return as_type<uint64_t>(metal::simd_shuffle_and_fill_up(as_type<uint2>(data), as_type<uint2>(filling), delta));
}
inline int64_t simd_shuffle_and_fill_up(int64_t data, int64_t filling, uint16_t delta) {
  return as_type<int64_t>(metal::simd_shuffle_and_fill_up(as_type<uint2>(data), as_type<uint2>(filling), delta));
}
inline bool simd_shuffle_and_fill_up(bool data, bool filling, uint16_t delta) {
  return simd_shuffle_and_fill_up(static_cast<uint32_t>(data), static_cast<uint32_t>(filling), delta);
}
inline complex64_t simd_shuffle_and_fill_up(complex64_t data, complex64_t filling, uint16_t delta) {
  return complex64_t(simd_shuffle_and_fill_up(data.real, filling.real, delta),
                     simd_shuffle_and_fill_up(data.imag, filling.imag, delta));
}

// std::conditional stand-in (Metal has no <type_traits> conditional).
template <bool condition, typename T, typename U> struct ConditionalType { using type = U; };
template <typename T, typename U> struct ConditionalType<true, T, U> { using type = T; };
