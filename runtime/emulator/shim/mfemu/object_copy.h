// metalforge emulator: assigning an object between address spaces, `*(threadgroup V*)dst =
// *(const device V*)src` with V a struct (MLX's Steel loaders copy a ReadVector this way). Clang's
// C++ has no copy assignment for objects outside the default address space, so MLX's sources are
// compiled with that statement spelled `::mfemu::copy_object(lhs, rhs)` (runtime/emulator/
// mlx_kernels.py): one access of the object's size and alignment, in both address spaces, as a
// single vector load and store (checked like any device access).
#pragma once
#include "types.h"

namespace mfemu {
// U in the address space of T.
template <class T, class U> struct same_space { using type = U; };
#define MFEMU_SAME_SPACE(n)                                                                     \
  template <class T, class U> struct same_space<__attribute__((address_space(n))) T, U> {       \
    using type = __attribute__((address_space(n))) U;                                           \
  };
MFEMU_SAME_SPACE(1) MFEMU_SAME_SPACE(2) MFEMU_SAME_SPACE(3)
#undef MFEMU_SAME_SPACE
template <class T, class U> using same_space_t = typename same_space<T, U>::type;

// N bytes as one vector member of a packed struct of alignment A: a load or store of it is one access of
// N bytes that needs A-byte alignment (a vector type of its own would need N-byte alignment).
template <int N, int A> struct alignas(A) __attribute__((packed)) bytes {
  typedef unsigned char vector __attribute__((ext_vector_type(N)));
  vector v;
};

template <class D, class S> inline void copy_object(D& dst, S& src) {
  static_assert(sizeof(D) == sizeof(S), "copy_object: the objects differ in size");
  static_assert((sizeof(D) & (sizeof(D) - 1)) == 0 && sizeof(D) <= 64,
                "copy_object: objects of a power-of-two size up to 64 bytes (one vector access)");
  using Bytes = bytes<sizeof(D), alignof(D)>;
  ((same_space_t<D, Bytes>*)&dst)->v = ((same_space_t<S, const Bytes>*)&src)->v;
}
}  // namespace mfemu
