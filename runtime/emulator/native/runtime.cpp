// metalforge emulator runtime (libmfemu): runs a compiled kernel library's threads with Metal's
// dispatchThreads semantics. Threadgroups are spread over a pool of worker threads; inside a
// group that synchronises, each Metal thread is a fiber (cooperative, ~40 ns switch) so barriers
// and simd exchanges block until every participant has arrived. Invalid memory accesses and
// arithmetic traps are caught with signal handlers and turned into an error, never a crash; in
// checked mode the kernel's own checks (shim/mfemu/checks.h) report before anything faults. A
// kernel that runs too long, or is interrupted by Ctrl-C, stops at its next loop back-edge.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csetjmp>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>
#include <sys/mman.h>
#include <unistd.h>
#if !defined(__x86_64__)
#include <ucontext.h>
#endif
#include "../shim/mfemu/abi.h"

using namespace mfemu;

namespace {
constexpr int kMaxThreads = 1024;
constexpr size_t kStackBytes = 64 << 10;
constexpr size_t kArenaBytes = 64 << 10;  // above any threadgroup memory limit
constexpr size_t kSlotBytes = 64;         // largest value a simd function exchanges
constexpr unsigned char kPoison = 0xFF;   // NaN for floats, -1 for integers

enum FiberState { READY, AT_BARRIER, AT_SIMD, DONE };

struct Fiber {
  void* sp;
#if !defined(__x86_64__)
  ucontext_t uc;
#endif
  int state, site;
  unsigned exchanges;
};

struct Job {
  ThreadFn thread_fn;
  GroupFn group_fn;
  void* const* buffers;
  Launch* launch;
  uint32_t tg[3], count[3];
  long total;
  std::atomic<long> next{0};
  std::atomic<int> failed{0};
  std::mutex report;
};

struct Worker {
  Job* job = nullptr;
  sigjmp_buf escape;
  volatile bool armed = false;
  void* fault_address = nullptr;
  uint64_t fault_size = 0, fault_align = 0;
  uint32_t fault_flags = 0;
  const Ctx* group_ctx = nullptr;  // the thread a barrier-free group loop is running
  // The threadgroup being run.
  int n = 0, current = 0, done = 0, at_barrier = 0;
  bool in_fibers = false;
  uint32_t position[3];
  int simd_alive[32], simd_arrived[32];
  uint32_t simd_mask[2][32];
  Fiber fibers[kMaxThreads];
  Ctx ctx[kMaxThreads];
  alignas(64) unsigned char exchange[2][kMaxThreads][kSlotBytes];
  alignas(64) unsigned char arena[kArenaBytes];
  uint32_t arena_dirty = 0;  // bytes used by the current group, poisoned again after it
  // Fiber stacks, each above a PROT_NONE guard page; allocated once, grown on demand.
  char* stacks = nullptr;
  int stacks_ready = 0;
  void* scheduler_sp = nullptr;
#if !defined(__x86_64__)
  ucontext_t scheduler_uc;
#endif
  char* altstack = nullptr;
};

thread_local Worker* W = nullptr;
size_t page_bytes() { static size_t p = (size_t)sysconf(_SC_PAGESIZE); return p; }
size_t fiber_span() { return kStackBytes + page_bytes(); }

Worker* this_worker() {
  if (!W) {
    void* mem = mmap(nullptr, sizeof(Worker), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) abort();
    W = new (mem) Worker();
    memset(W->arena, kPoison, kArenaBytes);
    W->altstack = (char*)mmap(nullptr, 1 << 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  }
  return W;
}

// ---- reporting -------------------------------------------------------------------------------
void report(Worker* w, int status, const char* message) {
  Job* job = w->job;
  std::lock_guard<std::mutex> lock(job->report);
  if (job->failed.load()) return;  // the first error wins
  job->launch->status = status;
  job->launch->fault_address = (uint64_t)w->fault_address;
  job->launch->fault_size = w->fault_size;
  job->launch->fault_align = w->fault_align;
  job->launch->fault_flags = w->fault_flags;
  snprintf(job->launch->message, sizeof job->launch->message, "%s", message);
  job->failed.store(1);
}
std::string group_name(const Worker* w) {
  char b[96];
  snprintf(b, sizeof b, "threadgroup (%u, %u, %u)", w->position[0], w->position[1], w->position[2]);
  return b;
}
// Sites are line * 1024 + column of the call in the compiled source; Python maps [[line:N]].
std::string site_name(int site) { return "[[line:" + std::to_string(site / 1024) + "]]"; }
// Checked-mode sites are (file << 24) | line: file 0 is the compiled source, others a shim header.
std::string check_site_name(uint32_t site) {
  if (site >> 24) return "[[shim:" + std::to_string(site >> 24) + ":" + std::to_string(site & 0xFFFFFF) + "]]";
  return "[[line:" + std::to_string(site) + "]]";
}
// The running Metal thread, for reports.
std::string thread_name(const Worker* w) {
  const Ctx* c = w->in_fibers ? &w->ctx[w->current] : w->group_ctx;
  if (!c) return group_name(w);
  char b[160];
  snprintf(b, sizeof b, "thread (%u, %u, %u) of the grid (thread %u of threadgroup (%u, %u, %u))",
           c->thread_position_in_grid.x, c->thread_position_in_grid.y, c->thread_position_in_grid.z,
           c->thread_index_in_threadgroup, w->position[0], w->position[1], w->position[2]);
  return b;
}

[[noreturn]] void escape(Worker* w, int status) { siglongjmp(w->escape, status); }

// ---- fibers --------------------------------------------------------------------------------------
#if defined(__x86_64__)
extern "C" void mfemu_switch(void** save_sp, void* load_sp);
asm(".text\n.globl mfemu_switch\n.hidden mfemu_switch\n.type mfemu_switch,@function\nmfemu_switch:\n"
    " pushq %rbp\n pushq %rbx\n pushq %r12\n pushq %r13\n pushq %r14\n pushq %r15\n"
    " movq %rsp,(%rdi)\n movq %rsi,%rsp\n"
    " popq %r15\n popq %r14\n popq %r13\n popq %r12\n popq %rbx\n popq %rbp\n ret\n");
void to_fiber(Worker* w, int i) { mfemu_switch(&w->scheduler_sp, w->fibers[i].sp); }
void to_scheduler(Worker* w) { mfemu_switch(&w->fibers[w->current].sp, w->scheduler_sp); }
#else  // portable fallback (slower: swapcontext saves the signal mask with a syscall)
void to_fiber(Worker* w, int i) { swapcontext(&w->scheduler_uc, &w->fibers[i].uc); }
void to_scheduler(Worker* w) { swapcontext(&w->fibers[w->current].uc, &w->scheduler_uc); }
#endif

void try_release_simd(Worker* w, int s);

[[noreturn]] void fiber_main() {
  Worker* w = W;
  int i = w->current;
  w->job->thread_fn(w->job->buffers, w->ctx[i]);
  w->fibers[i].state = DONE;
  w->done++;
  w->simd_alive[i >> 5]--;
  try_release_simd(w, i >> 5);
  to_scheduler(w);
  __builtin_unreachable();
}

void ensure_stacks(Worker* w, int n) {
  if (n <= w->stacks_ready) return;
  if (!w->stacks) {
    w->stacks = (char*)mmap(nullptr, fiber_span() * kMaxThreads, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (w->stacks == MAP_FAILED) abort();
  }
  for (int i = w->stacks_ready; i < n; i++) mprotect(w->stacks + i * fiber_span(), page_bytes(), PROT_NONE);
  w->stacks_ready = n;
}

void start_fiber(Worker* w, int i) {
  char* top = w->stacks + (i + 1) * fiber_span();
#if defined(__x86_64__)
  void** sp = (void**)(top - 64);  // 6 callee-saved registers, then the return address
  for (int k = 0; k < 6; k++) sp[k] = nullptr;
  sp[6] = (void*)&fiber_main;
  w->fibers[i].sp = sp;
#else
  ucontext_t& uc = w->fibers[i].uc;
  getcontext(&uc);
  uc.uc_stack.ss_sp = top - kStackBytes;
  uc.uc_stack.ss_size = kStackBytes;
  uc.uc_link = nullptr;
  makecontext(&uc, (void (*)())fiber_main, 0);
#endif
  w->fibers[i].state = READY;
  w->fibers[i].exchanges = 0;
}

// ---- barriers and simd exchanges ---------------------------------------------------------------
void release_barrier(Worker* w) {
  int site = -1;
  for (int i = 0; i < w->n; i++) {
    if (w->fibers[i].state != AT_BARRIER) continue;
    if (site >= 0 && w->fibers[i].site != site) {
      std::string m = "divergent threadgroup_barrier in " + group_name(w) + ": threads wait at " +
                      site_name(site) + " and at " + site_name(w->fibers[i].site) +
                      "; every thread of a threadgroup must reach the same barrier";
      report(w, STATUS_BARRIER, m.c_str());
      escape(w, STATUS_BARRIER);
    }
    site = w->fibers[i].site;
  }
  for (int i = 0; i < w->n; i++) if (w->fibers[i].state == AT_BARRIER) w->fibers[i].state = READY;
  w->at_barrier = 0;
}

void try_release_simd(Worker* w, int s) {
  if (w->simd_arrived[s] == 0 || w->simd_arrived[s] != w->simd_alive[s]) return;
  int hi = std::min(w->n, 32 * s + 32), site = -1;
  uint32_t mask = 0;
  unsigned parity = 0;
  for (int i = 32 * s; i < hi; i++) {
    Fiber& f = w->fibers[i];
    if (f.state != AT_SIMD) continue;
    if (site >= 0 && f.site != site) {
      std::string m = "lanes of simdgroup " + std::to_string(s) + " in " + group_name(w) +
                      " called different simd functions (" + site_name(site) + " and " + site_name(f.site) +
                      "); the emulator needs simd functions in simdgroup-uniform control flow";
      report(w, STATUS_SIMD, m.c_str());
      escape(w, STATUS_SIMD);
    }
    site = f.site;
    mask |= 1u << (i & 31);
    parity = (f.exchanges - 1) & 1;
    f.state = READY;
  }
  w->simd_mask[parity][s] = mask;
  w->simd_arrived[s] = 0;
}

[[noreturn]] void report_deadlock(Worker* w) {
  std::string m = "deadlock in " + group_name(w) + ": ";
  int returned = w->done, barrier_site = -1, simd_site = -1, at_simd = 0;
  for (int i = 0; i < w->n; i++) {
    if (w->fibers[i].state == AT_BARRIER) barrier_site = w->fibers[i].site;
    if (w->fibers[i].state == AT_SIMD) { simd_site = w->fibers[i].site; at_simd++; }
  }
  if (barrier_site >= 0)
    m += "threadgroup_barrier at " + site_name(barrier_site) + " was reached by " + std::to_string(w->at_barrier) +
         " of " + std::to_string(w->n) + " threads";
  if (returned) m += "; " + std::to_string(returned) + " threads had returned";
  if (at_simd) m += "; " + std::to_string(at_simd) + " threads wait in a simd function at " + site_name(simd_site);
  m += ". Every thread of a threadgroup must reach each threadgroup_barrier (Metal leaves this undefined).";
  report(w, STATUS_BARRIER, m.c_str());
  escape(w, STATUS_BARRIER);
}

// ---- running one threadgroup --------------------------------------------------------------------
void run_group(Worker* w, long index) {
  Job& job = *w->job;
  uint32_t pos[3] = {uint32_t(index % job.count[0]), uint32_t(index / job.count[0] % job.count[1]),
                     uint32_t(index / job.count[0] / job.count[1])};
  uint32_t size[3];
  for (int d = 0; d < 3; d++) {
    size[d] = std::min(job.tg[d], job.launch->grid[d] - pos[d] * job.tg[d]);  // edge groups are partial
    w->position[d] = pos[d];
  }
  Group g;
  g.position = metal::uint3{pos[0], pos[1], pos[2]};
  g.size = metal::uint3{size[0], size[1], size[2]};
  g.dispatch_size = metal::uint3{job.tg[0], job.tg[1], job.tg[2]};
  g.count = metal::uint3{job.count[0], job.count[1], job.count[2]};
  g.grid = metal::uint3{job.launch->grid[0], job.launch->grid[1], job.launch->grid[2]};
  if (!job.launch->use_fibers) {
    w->in_fibers = false;
    job.group_fn(job.buffers, g);
  } else {
    int n = int(size[0] * size[1] * size[2]);
    w->n = n; w->done = 0; w->at_barrier = 0; w->in_fibers = true;
    ensure_stacks(w, n);
    for (int s = 0; s < 32; s++) { w->simd_arrived[s] = 0; w->simd_alive[s] = std::max(0, std::min(32, n - 32 * s)); }
    for (int i = 0; i < n; i++) {
      Ctx& c = w->ctx[i];
      c.thread_position_in_threadgroup = metal::uint3{i % size[0], i / size[0] % size[1], i / size[0] / size[1]};
      c.threadgroup_position_in_grid = g.position;
      c.threads_per_threadgroup = g.size;
      c.dispatch_threads_per_threadgroup = g.dispatch_size;
      c.threadgroups_per_grid = g.count;
      c.threads_per_grid = g.grid;
      c.thread_position_in_grid = g.position * g.dispatch_size + c.thread_position_in_threadgroup;
      c.thread_index_in_threadgroup = i;
      start_fiber(w, i);
    }
    bool reverse = job.launch->reverse_schedule != 0;
    while (w->done < n) {
      bool ran = false;
      for (int k = 0; k < n; k++) {
        int i = reverse ? n - 1 - k : k;
        if (w->fibers[i].state != READY) continue;
        w->current = i;
        to_fiber(w, i);
        ran = true;
      }
      if (!ran) report_deadlock(w);
    }
    w->in_fibers = false;
  }
  if (job.launch->take_counts) job.launch->take_counts(job.launch->counts + index * kCounters);
  memset(w->arena, kPoison, w->arena_dirty);
  w->arena_dirty = 0;
}

// ---- invalid memory accesses --------------------------------------------------------------------
constexpr int kFaultSignals[] = {SIGSEGV, SIGBUS, SIGFPE};
struct sigaction previous_handlers[3];
std::mutex handler_mutex;

void on_fault(int sig, siginfo_t* info, void* uc) {
  Worker* w = W;
  if (w && w->armed) {
    w->fault_address = info->si_addr;
    escape(w, sig == SIGFPE ? STATUS_TRAP : STATUS_FAULT);
  }
  struct sigaction& prev = previous_handlers[sig == SIGSEGV ? 0 : sig == SIGBUS ? 1 : 2];
  if (prev.sa_flags & SA_SIGINFO) {
    prev.sa_sigaction(sig, info, uc);
  } else if (prev.sa_handler == SIG_DFL || prev.sa_handler == SIG_IGN) {
    signal(sig, SIG_DFL);  // returning re-executes the access and takes the default action
  } else {
    prev.sa_handler(sig);
  }
}

void install_fault_handler() {
  std::lock_guard<std::mutex> lock(handler_mutex);
  for (int k = 0; k < 3; k++) {
    int sig = kFaultSignals[k];
    struct sigaction current;
    sigaction(sig, nullptr, &current);
    if ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == on_fault) continue;
    struct sigaction act;
    memset(&act, 0, sizeof act);
    act.sa_sigaction = on_fault;
    act.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&act.sa_mask);
    sigaction(sig, &act, &previous_handlers[k]);
  }
}

std::string describe_fault(Worker* w) {
  char* a = (char*)w->fault_address;
  if (w->stacks && a >= w->stacks && a < w->stacks + fiber_span() * kMaxThreads) {
    long i = (a - w->stacks) / (long)fiber_span();
    return "stack overflow in thread " + std::to_string(i) + " of " + group_name(w) +
           " (each thread has 64 KiB of stack in the emulator; large thread arrays or deep calls exceed it)";
  }
  char b[160];
  snprintf(b, sizeof b, "invalid memory access at address %p in %s", (void*)a, group_name(w).c_str());
  return b;
}

// ---- the watchdog and Ctrl-C ---------------------------------------------------------------------
// Both only raise mfemu_stop: kernel code reads it at every loop back-edge (instrument.py) and the
// pool between threadgroups, so a kernel stops where escaping is safe, never inside libc or a lock.
void request_stop(Status why) { __sync_bool_compare_and_swap(&mfemu_stop, 0, why); }  // the first reason wins

struct Watchdog {
  std::mutex m;
  std::condition_variable changed;
  bool armed = false;
  std::chrono::steady_clock::time_point deadline;

  Watchdog() { std::thread([this] { watch(); }).detach(); }
  void watch() {
    std::unique_lock<std::mutex> lock(m);
    for (;;) {
      if (!armed) {
        changed.wait(lock);
      } else if (std::chrono::steady_clock::now() >= deadline) {
        request_stop(STATUS_TIMEOUT);
        armed = false;
      } else {
        changed.wait_until(lock, deadline);
      }
    }
  }
  void arm(uint32_t ms) {
    std::lock_guard<std::mutex> lock(m);
    armed = true;
    deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    changed.notify_one();
  }
  void disarm() {
    std::lock_guard<std::mutex> lock(m);
    armed = false;
    changed.notify_one();
  }
};
Watchdog& watchdog() { static Watchdog* w = new Watchdog(); return *w; }  // never destroyed: its thread outlives exit

struct sigaction interrupt_handler_before;  // Python's, called after raising the stop

void on_interrupt(int sig, siginfo_t* info, void* uc) {
  request_stop(STATUS_INTERRUPT);
  const struct sigaction& prev = interrupt_handler_before;
  if (prev.sa_flags & SA_SIGINFO) prev.sa_sigaction(sig, info, uc);
  else if (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN) prev.sa_handler(sig);
}

void stop_on_interrupt() {
  struct sigaction act;
  memset(&act, 0, sizeof act);
  act.sa_sigaction = on_interrupt;
  act.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&act.sa_mask);
  sigaction(SIGINT, &act, &interrupt_handler_before);
}

// ---- the pool ------------------------------------------------------------------------------------
void run_job(Job* job) {
  Worker* w = this_worker();
  w->job = job;
  w->fault_address = nullptr; w->fault_size = w->fault_align = 0; w->fault_flags = 0;
  stack_t alt, old_alt;
  alt.ss_sp = w->altstack; alt.ss_size = 1 << 16; alt.ss_flags = 0;
  sigaltstack(&alt, &old_alt);
  if (job->launch->take_counts) {  // drop what a launch of this library that failed mid-group left counted
    static thread_local uint64_t stale[kCounters];
    job->launch->take_counts(stale);
  }
  int status = sigsetjmp(w->escape, 1);
  if (status == 0) {
    w->armed = true;
    for (long b; !job->failed.load(std::memory_order_relaxed) && (b = job->next++) < job->total;) {
      if (mfemu_stop) {  // a kernel without loops: stopped between threadgroups
        std::string m = "between threadgroups (" + std::to_string(b) + " of " + std::to_string(job->total) +
                        " started)";
        report(w, mfemu_stop, m.c_str());
        break;
      }
      run_group(w, b);
    }
  } else if (status == STATUS_FAULT) {
    report(w, STATUS_FAULT, describe_fault(w).c_str());
  } else if (status == STATUS_TRAP) {  // a division the instrumentation did not see (never expected)
    report(w, STATUS_TRAP, ("arithmetic trap (integer division by zero or overflow) in " + thread_name(w)).c_str());
  }
  w->armed = false;
  w->in_fibers = false;
  w->group_ctx = nullptr;
  if (status != 0) { memset(w->arena, kPoison, kArenaBytes); w->arena_dirty = 0; }
  if (!(old_alt.ss_flags & SS_DISABLE)) sigaltstack(&old_alt, nullptr);
  else { stack_t off; memset(&off, 0, sizeof off); off.ss_flags = SS_DISABLE; sigaltstack(&off, nullptr); }
  w->job = nullptr;
}

struct Pool {
  std::mutex m;
  std::condition_variable wake, finished;
  Job* job = nullptr;
  int wanted = 0;  // helpers that should join the current job
  int busy = 0;
  unsigned generation = 0;
  std::vector<std::thread> threads;

  void grow(int helpers) {
    while ((int)threads.size() < helpers) {
      int index = (int)threads.size();
      threads.emplace_back([this, index] {
        unsigned seen = 0;
        for (;;) {
          Job* j;
          {
            std::unique_lock<std::mutex> lock(m);
            wake.wait(lock, [&] { return generation != seen; });
            seen = generation;
            if (index >= wanted) continue;
            j = job;
          }
          run_job(j);
          std::lock_guard<std::mutex> lock(m);
          if (--busy == 0) finished.notify_all();
        }
      });
      threads.back().detach();
    }
  }
  void run(Job* j, int workers) {
    int helpers = workers - 1;
    {
      std::lock_guard<std::mutex> lock(m);
      grow(helpers);
      job = j; wanted = helpers; busy = helpers; generation++;
    }
    wake.notify_all();
    run_job(j);  // the calling thread works too
    std::unique_lock<std::mutex> lock(m);
    finished.wait(lock, [&] { return busy == 0; });
  }
};
Pool& pool() { static Pool* p = new Pool(); return *p; }  // never destroyed: threads outlive exit
std::mutex launch_mutex;  // one launch at a time: the pool serves a single job
}  // namespace

// ---- services for kernel code -------------------------------------------------------------------
extern "C" void mfemu_fail(int32_t status, const char* message) {
  Worker* w = W;
  if (!w || !w->armed) { fprintf(stderr, "metalforge emulator: %s\n", message); abort(); }
  report(w, status, message);
  escape(w, status);
}

mfemu::Arena mfemu_arena;
volatile int32_t mfemu_stop = 0;

extern "C" void mfemu_stopped(uint32_t site) {
  std::string where = site ? "in the loop at " + check_site_name(site) : std::string("in a loop");
  mfemu_fail(mfemu_stop, (where + " by " + thread_name(W)).c_str());
}

extern "C" void mfemu_enter_group(const Ctx* ctx) { W->group_ctx = ctx; }

extern "C" void mfemu_bad_access(uint64_t addr, uint64_t size, uint64_t align, uint32_t site, uint32_t flags) {
  Worker* w = W;
  w->fault_address = (void*)addr;
  w->fault_size = size;
  w->fault_align = align;
  w->fault_flags = flags;
  std::string m = std::string(flags & ACCESS_WRITE ? "write" : "read") + " of " + std::to_string(size) +
                  " bytes at " + check_site_name(site) + " by " + thread_name(w);
  mfemu_fail(STATUS_FAULT, m.c_str());
}

extern "C" void mfemu_bad_division(uint32_t site, uint32_t by_zero) {
  std::string m = std::string(by_zero ? "integer division or remainder by zero"
                                      : "integer overflow: the most negative integer divided by -1") +
                  " at " + check_site_name(site) + " by " + thread_name(W) +
                  " (the GPU gives no error and an unspecified value; guard the divisor)";
  mfemu_fail(STATUS_TRAP, m.c_str());
}

static Worker* fiber_worker(const char* what) {
  Worker* w = W;
  if (!w || !w->in_fibers) {
    std::string m = std::string(what) + " called in a kernel launched without fibers: the emulator could not see "
                    "that the kernel synchronises (call it from the kernel source or header, not through a macro "
                    "defined elsewhere)";
    mfemu_fail(STATUS_NO_FIBERS, m.c_str());
  }
  return w;
}

extern "C" void mfemu_threadgroup_barrier(int site) {
  Worker* w = fiber_worker("threadgroup_barrier");
  Fiber& f = w->fibers[w->current];
  f.state = AT_BARRIER;
  f.site = site;
  if (++w->at_barrier == w->n) release_barrier(w);
  to_scheduler(w);
}

extern "C" uint32_t mfemu_simd_exchange(const void* value, uint32_t size, void* lanes, int site) {
  Worker* w = fiber_worker("a simd function");
  int i = w->current, s = i >> 5;
  Fiber& f = w->fibers[i];
  unsigned parity = f.exchanges++ & 1;
  memcpy(w->exchange[parity][i], value, size);
  f.state = AT_SIMD;
  f.site = site;
  w->simd_arrived[s]++;
  try_release_simd(w, s);
  to_scheduler(w);
  uint32_t mask = w->simd_mask[parity][s];
  for (int l = 0; l < 32; l++)
    if (mask >> l & 1) memcpy((char*)lanes + l * size, w->exchange[parity][32 * s + l], size);
  return mask;
}

extern "C" uint32_t mfemu_lane() { Worker* w = W; return w ? uint32_t(w->current & 31) : 0; }

extern "C" uint32_t mfemu_thread_index() {
  return uint32_t(fiber_worker("a tensor operation (matmul2d)")->current);
}

extern "C" uint32_t mfemu_threads_per_threadgroup() {
  return uint32_t(fiber_worker("a tensor operation (matmul2d)")->n);
}

extern "C" unsigned char* mfemu_threadgroup_slot(uint32_t offset, uint32_t size) {
  Worker* w = W;
  uint32_t limit = w->job->launch->threadgroup_memory_limit;
  if (offset + size > limit) {
    char m[200];
    snprintf(m, sizeof m, "threadgroup memory: the kernel declares at least %u bytes, more than the %u bytes "
             "a Metal threadgroup has", offset + size, limit);
    mfemu_fail(STATUS_TG_MEMORY, m);
  }
  w->arena_dirty = std::max(w->arena_dirty, offset + size);
  return w->arena + offset;
}

extern "C" int32_t mfemu_launch(ThreadFn thread_fn, GroupFn group_fn, void* const* buffers, Launch* launch) {
  launch->status = STATUS_OK;
  launch->message[0] = 0;
  launch->fault_address = 0;
  for (int d = 0; d < 3; d++)
    if (launch->grid[d] == 0 || launch->threadgroup[d] == 0) return launch->status = STATUS_OK;  // nothing to run
  Job job;
  job.thread_fn = thread_fn; job.group_fn = group_fn; job.buffers = buffers; job.launch = launch;
  uint64_t threads = 1;  // users meet runtime/kernel.py's launch limits first; this guards the arrays
  for (int d = 0; d < 3; d++) {
    job.tg[d] = std::min(launch->threadgroup[d], launch->grid[d]);
    job.count[d] = (launch->grid[d] + job.tg[d] - 1) / job.tg[d];
    threads *= launch->threadgroup[d];
  }
  if (threads > kMaxThreads) {
    snprintf(launch->message, sizeof launch->message, "threadgroup of %llu threads: Metal allows at most %d",
             (unsigned long long)threads, kMaxThreads);
    return launch->status = STATUS_CONFIG;
  }
  job.total = (long)job.count[0] * job.count[1] * job.count[2];
  int workers = launch->workers > 0 ? launch->workers : (int)std::thread::hardware_concurrency();
  workers = (int)std::max(1L, std::min<long>(workers, job.total));
  install_fault_handler();
  std::lock_guard<std::mutex> lock(launch_mutex);
  mfemu_stop = 0;
  if (launch->stop_on_interrupt) stop_on_interrupt();
  if (launch->timeout_ms) watchdog().arm(launch->timeout_ms);
  pool().run(&job, workers);
  if (launch->timeout_ms) watchdog().disarm();
  if (launch->stop_on_interrupt) sigaction(SIGINT, &interrupt_handler_before, nullptr);
  return launch->status;
}
