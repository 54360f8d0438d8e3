// metalforge emulator, counting mode (compiled with -DMFEMU_COUNTING=1): what a kernel executes. The
// instrumentation pass (runtime/emulator/instrument.py) calls mfemu_count_access before every load,
// store and memcpy/memset through a device, constant or threadgroup pointer, with its size as
// written (a `device half4*` load is one 8-byte access); the Metal functions of sync.h count
// barriers, simd operations, simdgroup matrices and atomics. Counts live in this worker thread's
// block (the fibers of one threadgroup share a worker) and the runtime takes them after each
// threadgroup (mfemu_take_counts). Without the flag none of this is compiled in.
#pragma once
#include <cstring>
#include "abi.h"

#if MFEMU_COUNTING
static thread_local uint64_t mfemu_counts[mfemu::kCounters];

extern "C" {
// `block` is (space * 2 + store) * kAccessBlock (abi.h); `size` the access's bytes.
__attribute__((always_inline, used)) static inline void mfemu_count_access(uint32_t block, uint64_t size) {
  uint64_t* counts = mfemu_counts + block;
  counts[size < (uint64_t)mfemu::kWidthSlots ? size : 0]++;
  counts[mfemu::kWidthSlots] += size;
}

__attribute__((visibility("default"), used)) void mfemu_take_counts(uint64_t* row) {
  memcpy(row, mfemu_counts, sizeof mfemu_counts);
  memset(mfemu_counts, 0, sizeof mfemu_counts);
}
}

namespace mfemu {
inline void count_event(Event event) { mfemu_counts[kEventBase + event]++; }
// Barriers count once per threadgroup: thread 0 reaches every one (else the runtime reports the kernel).
inline void count_barrier() { if (mfemu_thread_index() == 0) count_event(EVENT_BARRIER); }
// Simdgroup operations count once per simdgroup: on the lowest lane of those that took part.
inline void count_simd(Event event, uint32_t active) {
  if (active && mfemu_lane() == (uint32_t)__builtin_ctz(active)) count_event(event);
}
template <class T> inline void count_atomic(const __attribute__((address_space(1))) T*) { count_event(EVENT_DEVICE_ATOMIC); }
template <class T> inline void count_atomic(const __attribute__((address_space(3))) T*) {
  count_event(EVENT_THREADGROUP_ATOMIC);
}
}  // namespace mfemu
#define MFEMU_COUNT_ATOMIC(obj) ::mfemu::count_atomic(&(obj)->value)
#else
namespace mfemu {
inline void count_barrier() {}
inline void count_simd(Event, uint32_t) {}
}  // namespace mfemu
#define MFEMU_COUNT_ATOMIC(obj) ((void)0)
#endif
