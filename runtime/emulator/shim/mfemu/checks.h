// metalforge emulator, checked mode (compiled with -DMFEMU_CHECKED=1): the functions the
// instrumentation pass (runtime/emulator/instrument.py) calls before every device or constant
// memory access and every integer division whose divisor is not a safe constant. They are inlined;
// a failed check calls into the runtime, which reports the buffer, the index, the thread and the line.
#pragma once
#include "abi.h"

#if MFEMU_CHECKED
extern "C" {
// `site` is (file << 24) | line of the access; `align` is the alignment the compiler assumed.
__attribute__((always_inline, used)) static inline void mfemu_check_access(uint64_t addr, uint64_t size,
                                                                           uint64_t align, uint32_t site,
                                                                           uint32_t flags) {
  uint64_t slot = (addr - mfemu_arena.base) >> mfemu::kSlotShift;
  if (__builtin_expect(slot < (uint64_t)mfemu::kSlots, 1)) {
    const mfemu::Slot& s = mfemu_arena.slots[slot];
    bool ok = addr >= s.begin && addr + size <= s.end && !(addr & (align - 1)) &&
              (s.writable || !(flags & mfemu::ACCESS_WRITE));
    if (__builtin_expect(ok, 1)) return;
  } else if (flags & mfemu::ACCESS_CONSTANT) {
    return;  // a program-scope `constant` variable: not a buffer
  }
  mfemu_bad_access(addr, size, align, site, flags);
}

__attribute__((always_inline, used)) static inline void mfemu_check_division(bool by_zero, bool overflow,
                                                                             uint32_t site) {
  if (__builtin_expect(by_zero || overflow, 0)) mfemu_bad_division(site, by_zero);
}
}

namespace mfemu {
// Atomics reach memory through a generic pointer the pass cannot see as device memory: check the
// cell here, at the line of the atomic call.
// (Spelled with clang's attributes: the `device` keywords are defined later, in lang.h.)
template <class T> inline void check_atomic_cell(const __attribute__((address_space(1))) T* cell, int line,
                                                 uint32_t flags) {
  mfemu_check_access((uint64_t)cell, sizeof(T), alignof(T), (uint32_t)line, flags);
}
template <class T> inline void check_atomic_cell(const __attribute__((address_space(3))) T*, int, uint32_t) {}
}  // namespace mfemu
#define MFEMU_CHECK_ATOMIC(obj, line, flags) ::mfemu::check_atomic_cell(&(obj)->value, line, flags)
#else
#define MFEMU_CHECK_ATOMIC(obj, line, flags) ((void)0)
#endif
