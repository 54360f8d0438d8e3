// metalforge emulator: MetalPerformancePrimitives' mpp::tensor_ops::matmul2d (Metal 4), run on the
// CPU. Each thread of the op's execution scope computes the destination elements it owns, straight
// from the operand tensors, with products accumulated in float; no thread waits for another, so a
// kernel that misses a threadgroup_barrier before or after run() reads stale memory here too.
// run() checks what Metal leaves undefined: every lane of the simdgroup calls it, and an
// execution_simdgroups<N> op (N > 1) runs in a threadgroup of exactly 32 * N threads.
//
// Cooperative destination tensors: thread t of the scope (t = lane for execution_simdgroup,
// thread_index_in_threadgroup for execution_simdgroups<N>) holds, in slot i, element
// e = i * (32 * N) + t of the m x n tile in row-major order: row e / n, column e % n; slots with
// e >= m * n are not valid elements. (Apple's layout is implementation-defined and differs.)
#pragma once

namespace mfemu {
// What an op needs to know of the thread: its index in the op's execution scope, after checking
// the threadgroup fits the scope (no synchronisation).
inline uint32_t scope_thread(uint32_t simdgroups, const char* what, int site) {
  if (simdgroups == 1) {
    mfemu_thread_index();  // fails clearly in a kernel launched without fibers
    return mfemu_lane();
  }
  uint32_t n = mfemu_threads_per_threadgroup();
  if (n != 32 * simdgroups) {
    char msg[400];
    snprintf(msg, sizeof msg, "%s at [[line:%d]]: the op runs on execution_simdgroups<%u>, which needs a threadgroup of "
             "exactly %u threads (%u simdgroups of 32), but this threadgroup has %u (Metal leaves this undefined): "
             "launch with %u threads per threadgroup, or change the scope", what, site / 1024, simdgroups,
             32 * simdgroups, simdgroups, n, 32 * simdgroups);
    mfemu_fail(STATUS_CONFIG, msg);
  }
  return mfemu_thread_index();
}
// Descriptors are class-type template arguments in Metal (C++20); C++17 clang takes integral
// ones, so a descriptor converts to this code, and matmul2d decodes it.
enum class matmul2d_code : unsigned long long {};
// Not constexpr: calling it in a descriptor conversion makes the template argument ill-formed.
inline int matmul2d_descriptor_m_and_n_must_be_in_1_to_1048575_and_k_in_1_to_1048574_or_dynamic() { return 0; }

template <class T> constexpr int matmul_type_id =
    __is_same(T, half) ? 1 : __is_same(T, bfloat) ? 2 : __is_same(T, float) ? 3 : 0;
// Apple's table of floating-point combinations (left, right -> destination); integer and packed
// formats are not emulated.
template <class L, class R, class D> constexpr bool matmul_types_ok() {
  constexpr int l = matmul_type_id<L>, r = matmul_type_id<R>, d = matmul_type_id<D>;
  constexpr int H = 1, B = 2, F = 3;
  if (l == 0 || r == 0 || d == 0) return false;
  if (d == F) return true;  // every pair of half, bfloat, float accumulates into float
  if (l == H && r == H) return d == H;
  if (l == B && r == B) return d == B;
  if ((l == H && r == B) || (l == B && r == H)) return d == H || d == B;
  return false;  // a float operand needs a float destination
}
}  // namespace mfemu

namespace mpp {
namespace tensor_ops {

template <class T> struct dynamic_length {
  static_assert(__is_integral(T), "dynamic_length: an integer type");
  static constexpr T value = metal::numeric_limits<T>::max();
};
template <class T> constexpr T dynamic_length_v = dynamic_length<T>::value;

enum class reduction_operation { sum, max, min };

struct matmul2d_descriptor {
  enum class mode { multiply, multiply_accumulate };
  int m, n, k;
  bool transpose_left, transpose_right;
  bool relaxed_precision;
  mode matmul_mode;

  constexpr matmul2d_descriptor(int m_, int n_, int k_ = int(metal::dynamic_extent), bool transpose_left_ = false,
                                bool transpose_right_ = false, bool relaxed_precision_ = false,
                                mode matmul_mode_ = mode::multiply)
      : m(m_), n(n_), k(k_), transpose_left(transpose_left_), transpose_right(transpose_right_),
        relaxed_precision(relaxed_precision_), matmul_mode(matmul_mode_) {}

  constexpr bool mfemu_dynamic_k() const { return k == int(metal::dynamic_extent) || k == dynamic_length_v<int>; }
  // The template-argument form (see mfemu::matmul2d_code).
  constexpr operator mfemu::matmul2d_code() const {
    constexpr unsigned long long L = 1ull << 20;
    if (m < 1 || (unsigned long long)m >= L || n < 1 || (unsigned long long)n >= L ||
        (!mfemu_dynamic_k() && (k < 1 || (unsigned long long)k >= L - 1)))
      mfemu::matmul2d_descriptor_m_and_n_must_be_in_1_to_1048575_and_k_in_1_to_1048574_or_dynamic();
    unsigned long long kk = mfemu_dynamic_k() ? L - 1 : (unsigned long long)k;
    return mfemu::matmul2d_code((unsigned long long)m | (unsigned long long)n << 20 | kk << 40 |
                                (unsigned long long)transpose_left << 60 | (unsigned long long)transpose_right << 61 |
                                (unsigned long long)relaxed_precision << 62 |
                                (unsigned long long)(matmul_mode == mode::multiply_accumulate) << 63);
  }
  static constexpr matmul2d_descriptor mfemu_decode(mfemu::matmul2d_code code) {
    unsigned long long c = (unsigned long long)code, M = (1ull << 20) - 1;
    int kk = int(c >> 40 & M);
    return matmul2d_descriptor(int(c & M), int(c >> 20 & M), kk == int(M) ? int(metal::dynamic_extent) : kk,
                               (c >> 60 & 1) != 0, (c >> 61 & 1) != 0, (c >> 62 & 1) != 0,
                               (c >> 63 & 1) ? mode::multiply_accumulate : mode::multiply);
  }
};

}  // namespace tensor_ops
}  // namespace mpp

namespace mfemu {
// Layout of a matmul2d destination cooperative tensor (see the top of this file).
template <matmul2d_code Code, unsigned S> struct matmul2d_destination_layout {
  static constexpr mpp::tensor_ops::matmul2d_descriptor desc = mpp::tensor_ops::matmul2d_descriptor::mfemu_decode(Code);
  static constexpr int threads = 32 * int(S);
  static constexpr int elements = desc.m * desc.n;
  static constexpr int capacity() { return (elements + threads - 1) / threads; }
  static bool valid(uint t, int slot) { return slot >= 0 && slot < capacity() && slot * threads + int(t) < elements; }
  static void index(uint t, int slot, int* idx) {  // {column, row}
    int e = slot * threads + int(t);
    idx[0] = e % desc.n;
    idx[1] = e / desc.n;
  }
};
template <class T> struct matmul2d_dest_info { static constexpr bool is_dest = false; };
template <class E, class X, matmul2d_code Code, unsigned S>
struct matmul2d_dest_info<metal::cooperative_tensor<E, X, matmul2d_destination_layout<Code, S>>> {
  static constexpr bool is_dest = true;
  static constexpr matmul2d_code code = Code;
  static constexpr unsigned simdgroups = S;
};

// Element (row, col) of the matrix a rank-2 tensor holds ((col, row) in its extents), or 0 outside.
template <class T> inline float matrix_at(const T& t, int row, int col) {
  if (col >= t.get_extent(0) || row >= t.get_extent(1)) return 0.0f;
  return float(t.mfemu_data[long(col) * t.get_stride(0) + long(row) * t.get_stride(1)]);
}
}  // namespace mfemu

namespace mpp {
namespace tensor_ops {

template <mfemu::matmul2d_code Descriptor, class Scope, class... Args> class matmul2d {
  static_assert(metal::is_execution_simdgroups_v<Scope> || metal::is_execution_thread_v<Scope>,
                "Scope template argument should be of op_scope type");
  static_assert(!metal::is_execution_thread_v<Scope>,
                "matmul2d: the emulator has execution_simdgroup and execution_simdgroups<N> scopes, not execution_thread");
  static_assert(sizeof...(Args) == 0, "matmul2d: extra template arguments are not emulated");
  static constexpr unsigned S = unsigned(Scope::static_size);

 public:
  static constexpr matmul2d_descriptor descriptor = matmul2d_descriptor::mfemu_decode(Descriptor);
  typedef Scope scope;

  matmul2d() = default;

  template <class LeftOperand, class RightOperand, class ElementType, class CoordType = int>
  using cooperative_tensor_destination_t =
      metal::cooperative_tensor<ElementType, metal::extents<CoordType, size_t(descriptor.n), size_t(descriptor.m)>,
                                mfemu::matmul2d_destination_layout<Descriptor, S>>;

  template <class LeftOperandType, class RightOperandType, class ElementType, class CoordType = int>
  cooperative_tensor_destination_t<LeftOperandType, RightOperandType, ElementType, CoordType>
  get_destination_cooperative_tensor(MFEMU_SITE) const {
    check_operands<LeftOperandType, RightOperandType>();
    static_assert(mfemu::tt::space_v<ElementType> == 0 && !mfemu::tt::is_const_v<ElementType>,
                  "get_destination_cooperative_tensor: the element type is an unqualified type (float, half, bfloat)");
    static_assert(__is_integral(CoordType), "get_destination_cooperative_tensor: CoordType is an integer type");
    check_types<typename mfemu::tt::plain_t<LeftOperandType>::value_type,
                typename mfemu::tt::plain_t<RightOperandType>::value_type, ElementType>();
    uint32_t t = mfemu::scope_thread(S, "matmul2d::get_destination_cooperative_tensor", mfemu_site);
    return cooperative_tensor_destination_t<LeftOperandType, RightOperandType, ElementType, CoordType>(t);
  }

  // destination = left * right (mode::multiply) or left * right + destination (multiply_accumulate).
  template <class L, class R, class D> void run(L& left, R& right, D& destination, MFEMU_SITE) const {
    check_operands<L, R>();
    constexpr bool coop = mfemu::matmul2d_dest_info<D>::is_dest;
    static_assert(metal::is_tensor_v<D> || metal::is_cooperative_tensor_v<D>,
                  "matmul2d::run: the destination is a tensor or a cooperative tensor");
    static_assert(!metal::is_cooperative_tensor_v<D> || coop,
                  "matmul2d::run: a cooperative destination must come from matmul2d::get_destination_cooperative_tensor");
    typedef typename L::value_type LT;
    typedef typename R::value_type RT;
    typedef typename D::value_type DT;
    check_types<LT, RT, DT>();
    if constexpr (coop) {
      constexpr matmul2d_descriptor from = matmul2d_descriptor::mfemu_decode(mfemu::matmul2d_dest_info<D>::code);
      static_assert(from.m == descriptor.m && from.n == descriptor.n && mfemu::matmul2d_dest_info<D>::simdgroups == S,
                    "matmul2d::run: the cooperative destination comes from an op with another tile (m, n) or scope");
    } else {
      static_assert(D::get_rank() == 2, "matmul2d::run: the destination must be a rank-2 tensor");
      static_assert(!mfemu::tt::is_const_v<typename D::element_type>, "matmul2d::run: the destination's elements are const");
    }
    constexpr matmul2d_descriptor d = descriptor;
    constexpr int threads = 32 * int(S);
    constexpr int capacity = (d.m * d.n + threads - 1) / threads;
    const int t = int(mfemu::scope_thread(S, "matmul2d::run", mfemu_site));
    const int K = !d.mfemu_dynamic_k() ? d.k : d.transpose_left ? left.get_extent(1) : left.get_extent(0);
    constexpr bool accumulate = d.matmul_mode == matmul2d_descriptor::mode::multiply_accumulate;

    float result[capacity];
    for (int slot = 0; slot < capacity; slot++) {
      int e = slot * threads + t;
      if (e >= d.m * d.n) break;
      int row = e / d.n, col = e % d.n;
      float acc = 0.0f;
      if constexpr (accumulate) {
        if constexpr (coop) acc = float(destination.mfemu_slots[slot]);
        else acc = mfemu::matrix_at(destination, row, col);
      }
      for (int k = 0; k < K; k++) {
        float a = d.transpose_left ? mfemu::matrix_at(left, k, row) : mfemu::matrix_at(left, row, k);
        float b = d.transpose_right ? mfemu::matrix_at(right, col, k) : mfemu::matrix_at(right, k, col);
        acc += a * b;
      }
      result[slot] = acc;
    }
    // Every lane of the simdgroup must have called run (checked after reading the operands: the
    // op orders nothing between simdgroups, and neither does the emulator).
    detail_require_lanes(mfemu_site);
    for (int slot = 0; slot < capacity; slot++) {
      int e = slot * threads + t;
      if (e >= d.m * d.n) break;
      int row = e / d.n, col = e % d.n;
      if constexpr (coop) {
        destination.mfemu_slots[slot] = DT(result[slot]);
      } else if (col < destination.get_extent(0) && row < destination.get_extent(1)) {
        destination.mfemu_data[long(col) * destination.get_stride(0) + long(row) * destination.get_stride(1)] = DT(result[slot]);
      }
    }
  }

 private:
  template <class L, class R> static constexpr void check_operands() {
    static_assert(metal::is_tensor_v<L> && metal::is_tensor_v<R>,
                  "matmul2d: the emulator takes tensors as left and right operands (cooperative tensor inputs are not emulated)");
    static_assert(mfemu::tt::plain_t<L>::get_rank() == 2 && mfemu::tt::plain_t<R>::get_rank() == 2,
                  "matmul2d: the left and right operands must be rank-2 tensors");
  }
  template <class LT, class RT, class DT> static constexpr void check_types() {
    static_assert(mfemu::matmul_types_ok<LT, RT, DT>(),
                  "matmul2d: unsupported element types; the emulator has Apple's floating-point combinations "
                  "(left, right -> destination): any of half/bfloat/float -> float, half x half -> half, "
                  "bfloat x bfloat -> bfloat, half x bfloat or bfloat x half -> half or bfloat");
  }
  static void detail_require_lanes(int site) {
    auto L = mfemu::exchange(0, site);
    if (L.active != 0xFFFFFFFFu) {
      char msg[400];
      snprintf(msg, sizeof msg, "matmul2d::run at [[line:%d]] needs all 32 lanes of the simdgroup (active mask 0x%08x): "
               "every thread of the op's execution scope must call run, from scope-uniform control flow",
               site / 1024, L.active);
      mfemu_fail(mfemu::STATUS_SIMD, msg);
    }
  }
};

}  // namespace tensor_ops
}  // namespace mpp
