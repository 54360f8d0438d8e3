// metalforge emulator: Metal's synchronisation and cooperative functions — threadgroup memory,
// barriers, simdgroup (32-lane) functions, simdgroup matrices and atomics — served by the runtime.
// Call sites are identified by __builtin_LINE/COLUMN so diverged control flow is reported.
#pragma once
#include <atomic>
#include <cstdio>
#include <cstring>
#include "abi.h"
#include "checks.h"
#include "counts.h"

#define MFEMU_SITE int mfemu_site = __builtin_LINE() * 1024 + __builtin_COLUMN()

namespace mfemu {
// ---- threadgroup memory: each `threadgroup T x[N];` declaration gets a fixed arena offset ----
inline std::atomic<uint32_t> threadgroup_bytes{0};  // per kernel library
inline uint32_t reserve_threadgroup(uint32_t size, uint32_t align) {
  uint32_t cur = threadgroup_bytes.load(), start;
  do { start = (cur + align - 1) / align * align; } while (!threadgroup_bytes.compare_exchange_weak(cur, start + size));
  return start;
}
template <class T, int Site> inline void* threadgroup_slot() {
  static const uint32_t offset = reserve_threadgroup(sizeof(T), alignof(T) < 16 ? 16 : alignof(T));
  return mfemu_threadgroup_slot(offset, sizeof(T));
}

// ---- simdgroup exchange: every active lane posts a value and reads all lanes' values ------
template <class T> struct Lanes {
  T v[32];
  uint32_t active;  // bit l set when lane l took part
  bool has(int l) const { return l >= 0 && l < 32 && (active >> l & 1); }
};
// `event`: what counting mode counts the exchange as (kEvents: nothing).
template <class T> inline Lanes<T> exchange(const T& x, int site, Event event = kEvents) {
  static_assert(sizeof(T) <= 64, "simd functions take values of at most 64 bytes");
  Lanes<T> r;
  r.active = mfemu_simd_exchange(&x, sizeof(T), r.v, site);
  if (event != kEvents) count_simd(event, r.active);
  return r;
}
template <class T> inline T vmax(T a, T b) {
  if constexpr (metal::is_vector_v<T>) { for (int i = 0; i < metal::vec_size_v<T>; i++) a[i] = b[i] > a[i] ? b[i] : a[i]; return a; }
  else return b > a ? b : a;
}
template <class T> inline T vmin(T a, T b) {
  if constexpr (metal::is_vector_v<T>) { for (int i = 0; i < metal::vec_size_v<T>; i++) a[i] = b[i] < a[i] ? b[i] : a[i]; return a; }
  else return b < a ? b : a;
}
}  // namespace mfemu

namespace metal {
enum class mem_flags { mem_none = 0, mem_device = 1, mem_threadgroup = 2, mem_texture = 4, mem_threadgroup_imageblock = 8 };
constexpr mem_flags operator|(mem_flags a, mem_flags b) { return mem_flags(int(a) | int(b)); }

inline void threadgroup_barrier(mem_flags, MFEMU_SITE) {
  mfemu_threadgroup_barrier(mfemu_site);
  mfemu::count_barrier();
}
inline void simdgroup_barrier(mem_flags, MFEMU_SITE) { mfemu::exchange(0, mfemu_site, mfemu::EVENT_SIMDGROUP_BARRIER); }

// Reductions and scans over the active lanes (lanes that returned, or past a partial
// simdgroup's end, take no part), in lane order.
#define MFEMU_SIMD_FOLD(name, init, combine)                                        \
  template <class T> inline T name(T x, MFEMU_SITE) {                               \
    auto L = mfemu::exchange(x, mfemu_site, mfemu::EVENT_SIMD_REDUCTION);                                        \
    T r = init;                                                                     \
    for (int l = 0; l < 32; l++) if (L.has(l)) r = combine;                         \
    return r;                                                                       \
  }
MFEMU_SIMD_FOLD(simd_sum, T(0), r + L.v[l])
MFEMU_SIMD_FOLD(simd_product, T(1), r * L.v[l])
MFEMU_SIMD_FOLD(simd_max, x, mfemu::vmax(r, L.v[l]))
MFEMU_SIMD_FOLD(simd_min, x, mfemu::vmin(r, L.v[l]))
MFEMU_SIMD_FOLD(simd_and, T(~T(0)), r & L.v[l])
MFEMU_SIMD_FOLD(simd_or, T(0), r | L.v[l])
MFEMU_SIMD_FOLD(simd_xor, T(0), r ^ L.v[l])
#undef MFEMU_SIMD_FOLD
#define MFEMU_SIMD_SCAN(name, init, op, inclusive)                                  \
  template <class T> inline T name(T x, MFEMU_SITE) {                               \
    auto L = mfemu::exchange(x, mfemu_site, mfemu::EVENT_SIMD_REDUCTION);                                        \
    int me = (int)mfemu_lane();                                                     \
    T r = init;                                                                     \
    for (int l = 0; l < me + (inclusive); l++) if (L.has(l)) r = r op L.v[l];       \
    return r;                                                                       \
  }
MFEMU_SIMD_SCAN(simd_prefix_exclusive_sum, T(0), +, 0)
MFEMU_SIMD_SCAN(simd_prefix_inclusive_sum, T(0), +, 1)
MFEMU_SIMD_SCAN(simd_prefix_exclusive_product, T(1), *, 0)
MFEMU_SIMD_SCAN(simd_prefix_inclusive_product, T(1), *, 1)
#undef MFEMU_SIMD_SCAN

// Lane permutations: a lane whose source lane is outside the simdgroup or inactive keeps its
// own value (Metal: "unchanged" for shuffle_up/down edges, undefined for inactive sources).
#define MFEMU_SIMD_PERMUTE(name, IndexT, source)                                    \
  template <class T> inline T name(T x, IndexT k, MFEMU_SITE) {                     \
    auto L = mfemu::exchange(x, mfemu_site, mfemu::EVENT_SIMD_SHUFFLE);                                        \
    int me = (int)mfemu_lane(); (void)me;                                           \
    int src = (source);                                                             \
    return L.has(src) ? L.v[src] : x;                                               \
  }
MFEMU_SIMD_PERMUTE(simd_shuffle, ushort, (int)k)
MFEMU_SIMD_PERMUTE(simd_broadcast, ushort, (int)k)
MFEMU_SIMD_PERMUTE(simd_shuffle_down, ushort, me + (int)k)
MFEMU_SIMD_PERMUTE(simd_shuffle_up, ushort, me - (int)k)
MFEMU_SIMD_PERMUTE(simd_shuffle_xor, ushort, me ^ (int)k)
MFEMU_SIMD_PERMUTE(simd_shuffle_rotate_down, ushort, (me + (int)k) & 31)
MFEMU_SIMD_PERMUTE(simd_shuffle_rotate_up, ushort, (me - (int)k) & 31)
MFEMU_SIMD_PERMUTE(quad_shuffle, ushort, (me & ~3) | ((int)k & 3))
MFEMU_SIMD_PERMUTE(quad_broadcast, ushort, (me & ~3) | ((int)k & 3))
MFEMU_SIMD_PERMUTE(quad_shuffle_xor, ushort, (me & ~3) | ((me ^ (int)k) & 3))
MFEMU_SIMD_PERMUTE(quad_shuffle_down, ushort, (me & 3) + (int)k < 4 ? me + (int)k : -1)
MFEMU_SIMD_PERMUTE(quad_shuffle_up, ushort, (me & 3) - (int)k >= 0 ? me - (int)k : -1)
#undef MFEMU_SIMD_PERMUTE
// Shifts that fill the vacated lanes from `filling` of the lanes at the other end, within segments
// of `modulo` lanes (Metal: a power of two up to 32; anything else fails).
namespace detail {
inline void check_modulo(ushort modulo) {
  if (modulo == 0 || modulo > 32 || (modulo & (modulo - 1))) {
    char msg[160];
    snprintf(msg, sizeof msg, "simd_shuffle_and_fill: modulo %u is not a power of two from 1 to 32", (unsigned)modulo);
    mfemu_fail(mfemu::STATUS_SIMD, msg);
  }
}
}  // namespace detail
template <class T> inline T simd_shuffle_and_fill_down(T data, T filling, ushort delta, ushort modulo = 32, MFEMU_SITE) {
  detail::check_modulo(modulo);
  struct Pair { T data, filling; };
  auto L = mfemu::exchange(Pair{data, filling}, mfemu_site, mfemu::EVENT_SIMD_SHUFFLE);
  int me = (int)mfemu_lane(), base = me - me % modulo, j = me % modulo + (int)delta;
  int src = base + (j < modulo ? j : j - modulo);
  return L.has(src) ? (j < modulo ? L.v[src].data : L.v[src].filling) : data;
}
template <class T> inline T simd_shuffle_and_fill_up(T data, T filling, ushort delta, ushort modulo = 32, MFEMU_SITE) {
  detail::check_modulo(modulo);
  struct Pair { T data, filling; };
  auto L = mfemu::exchange(Pair{data, filling}, mfemu_site, mfemu::EVENT_SIMD_SHUFFLE);
  int me = (int)mfemu_lane(), base = me - me % modulo, j = me % modulo - (int)delta;
  int src = base + (j >= 0 ? j : j + modulo);
  return L.has(src) ? (j >= 0 ? L.v[src].data : L.v[src].filling) : data;
}
template <class T> inline T simd_broadcast_first(T x, MFEMU_SITE) {
  auto L = mfemu::exchange(x, mfemu_site, mfemu::EVENT_SIMD_SHUFFLE);
  return L.v[__builtin_ctz(L.active)];
}
#define MFEMU_QUAD_FOLD(name, combine)                                             \
  template <class T> inline T name(T x, MFEMU_SITE) {                               \
    auto L = mfemu::exchange(x, mfemu_site, mfemu::EVENT_SIMD_REDUCTION);                                        \
    int base = (int)mfemu_lane() & ~3;                                              \
    T r = x; bool first = true;                                                     \
    for (int l = base; l < base + 4; l++) if (L.has(l)) { r = first ? L.v[l] : combine; first = false; } \
    return r;                                                                       \
  }
MFEMU_QUAD_FOLD(quad_sum, r + L.v[l])
MFEMU_QUAD_FOLD(quad_max, mfemu::vmax(r, L.v[l]))
MFEMU_QUAD_FOLD(quad_min, mfemu::vmin(r, L.v[l]))
#undef MFEMU_QUAD_FOLD

// Votes: simd_vote wraps the 64-bit lane mask (bits 32..63 are always 0 with 32 lanes).
struct simd_vote {
  typedef uint64_t vote_t;
  vote_t bits;
  explicit constexpr simd_vote(vote_t v = 0) : bits(v) {}
  explicit constexpr operator vote_t() const { return bits; }
  constexpr bool all() const { return bits == 0xFFFFFFFFull; }
  constexpr bool any() const { return bits != 0; }
};
inline simd_vote simd_ballot(bool pred, MFEMU_SITE) {
  auto L = mfemu::exchange(pred, mfemu_site, mfemu::EVENT_SIMD_REDUCTION);
  uint64_t m = 0;
  for (int l = 0; l < 32; l++) if (L.has(l) && L.v[l]) m |= 1ull << l;
  return simd_vote(m);
}
inline simd_vote simd_active_threads_mask(MFEMU_SITE) { return simd_vote(mfemu::exchange(true, mfemu_site, mfemu::EVENT_SIMD_REDUCTION).active); }
inline bool simd_all(bool pred, MFEMU_SITE) {
  auto L = mfemu::exchange(pred, mfemu_site, mfemu::EVENT_SIMD_REDUCTION);
  for (int l = 0; l < 32; l++) if (L.has(l) && !L.v[l]) return false;
  return true;
}
inline bool simd_any(bool pred, MFEMU_SITE) {
  auto L = mfemu::exchange(pred, mfemu_site, mfemu::EVENT_SIMD_REDUCTION);
  for (int l = 0; l < 32; l++) if (L.has(l) && L.v[l]) return true;
  return false;
}
inline bool simd_is_first(MFEMU_SITE) {
  auto L = mfemu::exchange(true, mfemu_site, mfemu::EVENT_SIMD_REDUCTION);
  return (int)mfemu_lane() == __builtin_ctz(L.active);
}

// ---- simdgroup_matrix: 8x8 distributed over the 32 lanes, two elements per lane ----------
// Lane l holds row fm, columns fn and fn+1 (the fragment layout MLX's Steel kernels rely on).
namespace detail {
inline void fragment_coord(int lane, int& row, int& col) {
  int q = lane / 4;
  row = (q & 4) + (lane / 2) % 4;
  col = (q & 2) * 2 + (lane % 2) * 2;
}
inline void require_full_simdgroup(uint32_t active, const char* what) {
  if (active != 0xFFFFFFFFu) {
    char msg[256];
    snprintf(msg, sizeof msg, "%s needs all 32 lanes of the simdgroup (active mask 0x%08x): make the threadgroup a "
             "multiple of 32 threads and call it from simdgroup-uniform control flow", what, active);
    mfemu_fail(mfemu::STATUS_SIMD, msg);
  }
}
}  // namespace detail

template <class T, int Rows, int Cols> struct simdgroup_matrix {
  static_assert(Rows == 8 && Cols == 8, "Metal's simdgroup_matrix is 8x8");
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, half> || std::is_same_v<T, bfloat>,
                "simdgroup_matrix holds float, half or bfloat");
  vec<T, 2> elements;
  simdgroup_matrix() = default;
  explicit simdgroup_matrix(T diagonal) {  // diagonal matrix
    int r, c; detail::fragment_coord((int)mfemu_lane(), r, c);
    elements = vec<T, 2>{r == c ? diagonal : T(0), r == c + 1 ? diagonal : T(0)};
  }
  vec<T, 2>& thread_elements() { return elements; }
  const vec<T, 2>& thread_elements() const { return elements; }
};
typedef simdgroup_matrix<float, 8, 8> simdgroup_float8x8;
typedef simdgroup_matrix<half, 8, 8> simdgroup_half8x8;
typedef simdgroup_matrix<bfloat, 8, 8> simdgroup_bfloat8x8;

template <class T, int R, int C> inline simdgroup_matrix<T, R, C> make_filled_simdgroup_matrix(T value) {
  simdgroup_matrix<T, R, C> m;
  m.elements = vec<T, 2>{value, value};
  return m;
}
// matrix_origin is (column, row); with transpose the source is read as its transpose.
template <class T, int R, int C, class P>
inline void simdgroup_load(simdgroup_matrix<T, R, C>& d, P src, ulong elements_per_row = C,
                           vec<ulong, 2> matrix_origin = 0, bool transpose = false, MFEMU_SITE) {
  detail::require_full_simdgroup(mfemu::exchange(0, mfemu_site, mfemu::EVENT_MATRIX_LOAD).active, "simdgroup_load");
  int r, c; detail::fragment_coord((int)mfemu_lane(), r, c);
  for (int j = 0; j < 2; j++) {
    ulong row = matrix_origin.y + (transpose ? c + j : r), col = matrix_origin.x + (transpose ? r : c + j);
    d.elements[j] = static_cast<T>(src[row * elements_per_row + col]);
  }
}
template <class T, int R, int C, class P>
inline void simdgroup_store(const simdgroup_matrix<T, R, C>& a, P dst, ulong elements_per_row = C,
                            vec<ulong, 2> matrix_origin = 0, bool transpose = false, MFEMU_SITE) {
  detail::require_full_simdgroup(mfemu::exchange(0, mfemu_site, mfemu::EVENT_MATRIX_STORE).active, "simdgroup_store");
  int r, c; detail::fragment_coord((int)mfemu_lane(), r, c);
  for (int j = 0; j < 2; j++) {
    ulong row = matrix_origin.y + (transpose ? c + j : r), col = matrix_origin.x + (transpose ? r : c + j);
    dst[row * elements_per_row + col] = a.elements[j];
  }
}
// d = a * b + c, products accumulated in float.
template <class TD, class TA, class TB, class TC>
inline void simdgroup_multiply_accumulate(simdgroup_matrix<TD, 8, 8>& d, const simdgroup_matrix<TA, 8, 8>& a,
                                          const simdgroup_matrix<TB, 8, 8>& b, const simdgroup_matrix<TC, 8, 8>& c,
                                          MFEMU_SITE) {
  struct Pair { vec<TA, 2> a; vec<TB, 2> b; };
  auto L = mfemu::exchange(Pair{a.elements, b.elements}, mfemu_site, mfemu::EVENT_MATRIX_MMA);
  detail::require_full_simdgroup(L.active, "simdgroup_multiply_accumulate");
  float A[8][8], B[8][8];
  for (int l = 0; l < 32; l++) {
    int r, col; detail::fragment_coord(l, r, col);
    for (int j = 0; j < 2; j++) { A[r][col + j] = float(L.v[l].a[j]); B[r][col + j] = float(L.v[l].b[j]); }
  }
  int r, col; detail::fragment_coord((int)mfemu_lane(), r, col);
  vec<TD, 2> out;
  for (int j = 0; j < 2; j++) {
    float s = float(c.elements[j]);
    for (int k = 0; k < 8; k++) s += A[r][k] * B[k][col + j];
    out[j] = static_cast<TD>(s);
  }
  d.elements = out;
}
template <class TD, class TA, class TB>
inline void simdgroup_multiply(simdgroup_matrix<TD, 8, 8>& d, const simdgroup_matrix<TA, 8, 8>& a,
                               const simdgroup_matrix<TB, 8, 8>& b, MFEMU_SITE) {
  simdgroup_multiply_accumulate(d, a, b, make_filled_simdgroup_matrix<TD, 8, 8>(TD(0)), mfemu_site);
}

// ---- atomics: device and threadgroup, relaxed order as in Metal --------------------------
enum memory_order { memory_order_relaxed, memory_order_acquire, memory_order_release, memory_order_acq_rel, memory_order_seq_cst };
template <class T> struct atomic {
  static_assert(std::is_same_v<T, int> || std::is_same_v<T, uint> || std::is_same_v<T, float> ||
                std::is_same_v<T, bool> || std::is_same_v<T, ulong> || std::is_same_v<T, long>,
                "Metal has atomic<int>, atomic<uint>, atomic<float>, atomic<bool> (and 64-bit min/max)");
  T value;
};
typedef atomic<int> atomic_int;
typedef atomic<uint> atomic_uint;
typedef atomic<float> atomic_float;
typedef atomic<bool> atomic_bool;

namespace detail {
template <class T, class F> inline T atomic_update(T* cell, F f) {
  T old, desired;
  __atomic_load(cell, &old, __ATOMIC_RELAXED);
  do { desired = f(old); } while (!__atomic_compare_exchange(cell, &old, &desired, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
  return old;
}
}  // namespace detail
// The atomic may live in any address space; all of them are plain memory on the CPU. `line` (the
// caller's) names the call in checked mode's reports.
#define MFEMU_CELL(obj) ((std::remove_cv_t<decltype(obj->value)>*)(&obj->value))
#define MFEMU_LINE int line = __builtin_LINE()
template <class P, class U> inline void atomic_store_explicit(P obj, U v, memory_order, MFEMU_LINE) {
  MFEMU_CHECK_ATOMIC(obj, line, mfemu::ACCESS_WRITE); MFEMU_COUNT_ATOMIC(obj);
  auto* cell = MFEMU_CELL(obj); std::remove_pointer_t<decltype(cell)> x = v; __atomic_store(cell, &x, __ATOMIC_RELAXED);
}
template <class P> inline auto atomic_load_explicit(P obj, memory_order, MFEMU_LINE) {
  MFEMU_CHECK_ATOMIC(obj, line, 0); MFEMU_COUNT_ATOMIC(obj);
  auto* cell = MFEMU_CELL(obj); std::remove_pointer_t<decltype(cell)> x; __atomic_load(cell, &x, __ATOMIC_RELAXED); return x;
}
template <class P, class U> inline auto atomic_exchange_explicit(P obj, U v, memory_order, MFEMU_LINE) {
  MFEMU_CHECK_ATOMIC(obj, line, mfemu::ACCESS_WRITE); MFEMU_COUNT_ATOMIC(obj);
  auto* cell = MFEMU_CELL(obj); std::remove_pointer_t<decltype(cell)> x = v, old; __atomic_exchange(cell, &x, &old, __ATOMIC_RELAXED); return old;
}
template <class P, class E, class U>
inline bool atomic_compare_exchange_weak_explicit(P obj, E expected, U desired, memory_order, memory_order, MFEMU_LINE) {
  MFEMU_CHECK_ATOMIC(obj, line, mfemu::ACCESS_WRITE); MFEMU_COUNT_ATOMIC(obj);
  auto* cell = MFEMU_CELL(obj); std::remove_pointer_t<decltype(cell)> d = desired;
  return __atomic_compare_exchange(cell, (std::remove_pointer_t<decltype(cell)>*)expected, &d, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}
#define MFEMU_ATOMIC_RMW(name, expr)                                                             \
  template <class P, class U> inline auto name(P obj, U v, memory_order, MFEMU_LINE) {           \
    MFEMU_CHECK_ATOMIC(obj, line, mfemu::ACCESS_WRITE);                                          \
    MFEMU_COUNT_ATOMIC(obj);                                                                     \
    auto* cell = MFEMU_CELL(obj);                                                                \
    using T = std::remove_pointer_t<decltype(cell)>;                                             \
    T operand = v;                                                                               \
    return detail::atomic_update(cell, [operand](T old) -> T { return expr; });                  \
  }
MFEMU_ATOMIC_RMW(atomic_fetch_add_explicit, old + operand)
MFEMU_ATOMIC_RMW(atomic_fetch_sub_explicit, old - operand)
MFEMU_ATOMIC_RMW(atomic_fetch_min_explicit, operand < old ? operand : old)
MFEMU_ATOMIC_RMW(atomic_fetch_max_explicit, operand > old ? operand : old)
MFEMU_ATOMIC_RMW(atomic_fetch_and_explicit, old & operand)
MFEMU_ATOMIC_RMW(atomic_fetch_or_explicit, old | operand)
MFEMU_ATOMIC_RMW(atomic_fetch_xor_explicit, old ^ operand)
#undef MFEMU_ATOMIC_RMW
#undef MFEMU_LINE
}  // namespace metal
