// metalforge emulator: binding a launch's buffers and thread attributes to a kernel whose parameter
// types the harness does not spell (templates: `const device T*` with T chosen by the instantiation).
// Used by the harness of MLX's production kernels (runtime/emulator/mlx_kernels.py).
#pragma once
#include <cstdio>
#include "abi.h"

namespace mfemu {
// A buffer: converts to the parameter's pointer type (any address space), or to a reference to its
// first element (`constant int& n [[buffer(2)]]`).
struct BufferArgument {
  void* address;
  template <class P> operator P*() const { return (P*)address; }
  template <class R> operator R&() const { return *(R*)address; }
};
// A thread attribute: converts to the declared type, scalar (the x component) or a vector of up to
// three components (uint2 pos [[thread_position_in_grid]] takes x and y), in any integer type.
struct AttributeArgument {
  metal::uint3 value;
  template <class V, metal::enable_if_t<metal::is_integral_v<V> || metal::is_vector_v<V>, int> = 0> operator V() const {
    if constexpr (metal::is_vector_v<V>) {
      static_assert(metal::vec_size_v<V> <= 3, "a thread attribute has at most three components");
      V v{};
      for (int i = 0; i < metal::vec_size_v<V>; i++) v[i] = metal::vec_elem_t<V>(value[i]);
      return v;
    } else {
      return V(value.x);
    }
  }
};
inline AttributeArgument attribute(metal::uint3 v) { return {v}; }
inline AttributeArgument attribute(metal::uint v) { return {metal::uint3{v, 0, 0}}; }
}  // namespace mfemu

namespace mfemu {
// A function constant the launch does not set (Metal leaves its value undefined): reading it stops
// the kernel with an error naming it; code that never reads it runs.
template <class T> struct UnsetFunctionConstant {
  const char* name;
  int index;
  operator T() const {
    char msg[200];
    snprintf(msg, sizeof msg, "the kernel read function constant %s (index %d), which the launch does not set",
             name, index);
    mfemu_fail(STATUS_CONFIG, msg);
  }
};
}  // namespace mfemu
