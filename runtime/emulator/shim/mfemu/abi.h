// metalforge emulator: the binary interface between a compiled kernel library and the emulator
// runtime (libmfemu). Kernel libraries export mfemu_thread/mfemu_group; the runtime schedules
// threadgroups over worker threads and threads over fibers, and serves barriers and simd exchanges.
#pragma once
#include <cstdint>
#include "types.h"

namespace mfemu {
// Everything a thread can ask Metal about its position (the [[attribute]] parameters).
struct Ctx {
  metal::uint3 thread_position_in_grid, thread_position_in_threadgroup, threadgroup_position_in_grid;
  metal::uint3 threads_per_threadgroup, dispatch_threads_per_threadgroup, threadgroups_per_grid, threads_per_grid;
  metal::uint thread_index_in_threadgroup;
};
// One threadgroup as the runtime hands it to a kernel library's barrier-free group loop.
struct Group {
  metal::uint3 position, size, dispatch_size, count, grid;
};
typedef void (*ThreadFn)(void* const* buffers, const Ctx& ctx);
typedef void (*GroupFn)(void* const* buffers, const Group& group);

// Result codes of mfemu_launch (mirrored in runtime/emulator/backend.py).
enum Status : int32_t {
  STATUS_OK = 0,
  STATUS_BARRIER = 1,    // threadgroup_barrier not reached by every thread, or at different sites
  STATUS_SIMD = 2,       // simd function called by diverged lanes of a simdgroup
  STATUS_FAULT = 3,      // invalid memory access (out-of-bounds buffer access, stack overflow)
  STATUS_TG_MEMORY = 4,  // threadgroup memory over the limit
  STATUS_CONFIG = 5,     // bad launch configuration
  STATUS_NO_FIBERS = 6,  // a synchronising function in a kernel launched without fibers
  STATUS_TRAP = 7,       // integer division or remainder by zero, or INT_MIN / -1 (checked mode)
  STATUS_TIMEOUT = 8,    // stopped by the watchdog: ran past Launch::timeout_ms
  STATUS_INTERRUPT = 9,  // stopped by SIGINT (Ctrl-C)
};

// Checked mode: every buffer lives in its own slot of one reserved address range, in the middle of
// the slot, so an address says which buffer it belongs to however far it strayed (any 32-bit index
// of a 16-byte element stays inside its slot); every device access is checked against the extent
// of that buffer (mfemu/checks.h). Python fills the table before each launch (buffers.py mirrors it).
constexpr int kSlotShift = 37;
constexpr int kSlots = 64;
struct Slot {
  uint64_t begin, end;  // the buffer's bytes [begin, end); begin == end: slot unused
  uint64_t writable;
};
struct Arena {
  uint64_t base;  // address of slot 0 (0 while no checked launch has run)
  Slot slots[kSlots];
};
// Bits of the `flags` argument of a checked access.
enum AccessFlags : uint32_t { ACCESS_WRITE = 1, ACCESS_CONSTANT = 2 };

// Counting mode (compiled with -DMFEMU_COUNTING=1, shim/mfemu/counts.h): what each threadgroup executed,
// one row of kCounters per threadgroup (runtime/emulator/counters.py mirrors the layout). Memory
// accesses (per thread) come in six blocks, one per (space, direction): block (space * 2 + store) *
// kAccessBlock holds at index w the accesses of w bytes (1..64; 0: any other size) and at index
// kWidthSlots their bytes. Events follow from kEventBase: barriers and simdgroup operations are
// counted once per threadgroup / simdgroup that executes them, atomics per thread.
enum CounterSpace : int { SPACE_DEVICE = 0, SPACE_CONSTANT = 1, SPACE_THREADGROUP = 2 };
constexpr int kWidthSlots = 65;
constexpr int kAccessBlock = kWidthSlots + 1;
enum Event : int {
  EVENT_BARRIER, EVENT_SIMDGROUP_BARRIER, EVENT_SIMD_SHUFFLE, EVENT_SIMD_REDUCTION, EVENT_MATRIX_LOAD,
  EVENT_MATRIX_STORE, EVENT_MATRIX_MMA, EVENT_DEVICE_ATOMIC, EVENT_THREADGROUP_ATOMIC, kEvents
};
constexpr int kEventBase = 6 * kAccessBlock;
constexpr int kCounters = kEventBase + kEvents;
// A counting kernel library's mfemu_take_counts: copies the calling worker's counts into `row` and zeroes them.
typedef void (*TakeCountsFn)(uint64_t* row);

// Launch description, filled in by Python (ctypes mirror) and completed by the runtime.
struct Launch {
  uint32_t grid[3];
  uint32_t threadgroup[3];
  int32_t workers;             // worker threads (<= 0: all cores)
  int32_t use_fibers;          // kernel synchronises: run each thread as a fiber
  int32_t reverse_schedule;    // resume fibers last-to-first (exposes missing barriers)
  uint32_t threadgroup_memory_limit;
  int32_t status;              // out: Status
  uint64_t fault_address;      // out: address of an invalid access
  char message[1024];          // out: what went wrong, for the user
  uint64_t fault_size;         // out: bytes the invalid access covered (checked mode)
  uint64_t fault_align;        // out: alignment it needed
  uint32_t fault_flags;        // out: AccessFlags
  uint32_t timeout_ms;         // the watchdog stops the kernel after this long (0: never)
  int32_t stop_on_interrupt;   // SIGINT stops the kernel (then passed on to the previous handler)
  TakeCountsFn take_counts;    // counting mode: the kernel library's mfemu_take_counts (else null)
  uint64_t* counts;            // counting mode: kCounters per threadgroup, in threadgroup order (x fastest)
};
}  // namespace mfemu

extern "C" {
// Services the runtime gives to kernel code.
void mfemu_threadgroup_barrier(int site);
uint32_t mfemu_simd_exchange(const void* value, uint32_t size, void* lanes, int site);
uint32_t mfemu_lane();
// The calling thread's index in its threadgroup and the threadgroup's actual thread count (for
// tensor ops, whose execution scope depends on them); both need a kernel launched with fibers.
uint32_t mfemu_thread_index();
uint32_t mfemu_threads_per_threadgroup();
unsigned char* mfemu_threadgroup_slot(uint32_t offset, uint32_t size);
[[noreturn]] void mfemu_fail(int32_t status, const char* message);
// Checked mode: the buffer table, what a failed check reports, and the thread a barrier-free group
// loop is running (so reports can name it).
extern mfemu::Arena mfemu_arena;
[[noreturn]] void mfemu_bad_access(uint64_t addr, uint64_t size, uint64_t align, uint32_t site, uint32_t flags);
[[noreturn]] void mfemu_bad_division(uint32_t site, uint32_t by_zero);
void mfemu_enter_group(const mfemu::Ctx* ctx);
// Nonzero (a Status) once the running launch must stop: loop back-edges of kernel code read it
// (instrument.py) and call mfemu_stopped with the loop's site.
extern volatile int32_t mfemu_stop;
[[noreturn]] void mfemu_stopped(uint32_t site);
// Entry point used by Python.
int32_t mfemu_launch(mfemu::ThreadFn thread_fn, mfemu::GroupFn group_fn, void* const* buffers, mfemu::Launch* launch);
}
