//===- Fence.cpp - test buffers that end or start at a PROT_NONE page -----===//
//
// The checks place each caller buffer against a page the process may not
// touch, so that a kernel reading or writing one byte outside what the ABI
// gives it faults instead of passing on bytes it read and discarded
// (weights memory-mapped from a model file often end at a page boundary).
// A fault on a fence page prints which buffer it belongs to and how far
// outside the access was, then the previous handler (or the default action)
// takes the signal.
//
//===----------------------------------------------------------------------===//

#include "tisa/Kernels/Reference.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sys/mman.h>
#include <unistd.h>

namespace tisa {
namespace {

size_t pageBytes() {
  static const size_t page = size_t(sysconf(_SC_PAGESIZE));
  return page;
}

/// The fence pages alive, for the fault handler (which may only read
/// atomics): the page's address (0: a free slot), the buffer's first byte
/// and its size.
struct FenceSlot {
  std::atomic<uintptr_t> page{0}, begin{0};
  std::atomic<size_t> bytes{0};
};
constexpr size_t kFenceSlots = 4096;
FenceSlot fenceSlots[kFenceSlots];

struct sigaction previousSegv, previousBus;

void writeStderr(const char *text, int length) {
  if (length > 0)
    (void)!write(2, text, size_t(length));
}

/// Names the buffer whose fence `info->si_addr` is on, then hands the
/// signal on: the access repeats when this returns and meets the previous
/// action.
void onFault(int sig, siginfo_t *info, void *) {
  uintptr_t at = reinterpret_cast<uintptr_t>(info->si_addr);
  uintptr_t page = at & ~uintptr_t(pageBytes() - 1);
  for (FenceSlot &slot : fenceSlots) {
    if (slot.page.load() != page)
      continue;
    uintptr_t begin = slot.begin.load();
    size_t bytes = slot.bytes.load();
    char text[200];
    int n =
        at >= begin
            ? snprintf(text, sizeof text,
                       "tisa: access %zu bytes past the end of a %zu-byte "
                       "buffer (its fence page; address %p)\n",
                       size_t(at - (begin + bytes)), bytes, info->si_addr)
            : snprintf(text, sizeof text,
                       "tisa: access %zu bytes before the start of a "
                       "%zu-byte buffer (its fence page; address %p)\n",
                       size_t(begin - at), bytes, info->si_addr);
    writeStderr(text, n);
    break;
  }
  sigaction(sig, sig == SIGSEGV ? &previousSegv : &previousBus, nullptr);
}

void installFaultHandler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = onFault;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &previousSegv);
    sigaction(SIGBUS, &sa, &previousBus);
  });
}

void noteFence(uintptr_t page, uintptr_t begin, size_t bytes) {
  for (FenceSlot &slot : fenceSlots) {
    uintptr_t free = 0;
    if (slot.page.compare_exchange_strong(free, page)) {
      slot.begin.store(begin);
      slot.bytes.store(bytes);
      return;
    }
  }
  // More live fenced buffers than slots: the fault still kills the process,
  // only without naming the buffer.
}

void forgetFence(uintptr_t page) {
  for (FenceSlot &slot : fenceSlots) {
    uintptr_t expected = page;
    if (slot.page.compare_exchange_strong(expected, 0))
      return;
  }
}

/// The mapping of a fenced buffer of `bytes`: whole pages of the data, and
/// the fence page.
size_t spanOf(size_t bytes) {
  size_t page = pageBytes();
  return (bytes + page - 1) / page * page + page;
}

} // namespace

void *allocateFenced(size_t bytes, Fence fence) {
  installFaultHandler();
  size_t page = pageBytes(), span = spanOf(bytes);
  void *mapped = mmap(nullptr, span, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED)
    throw std::bad_alloc();
  char *base = static_cast<char *>(mapped);
  char *fencePage = fence == Fence::After ? base + span - page : base;
  if (mprotect(fencePage, page, PROT_NONE) != 0) {
    munmap(mapped, span);
    throw std::bad_alloc();
  }
  char *data = fence == Fence::After ? fencePage - bytes : base + page;
  noteFence(reinterpret_cast<uintptr_t>(fencePage),
            reinterpret_cast<uintptr_t>(data), bytes);
  return data;
}

void freeFenced(void *p, size_t bytes, Fence fence) {
  size_t page = pageBytes(), span = spanOf(bytes);
  char *data = static_cast<char *>(p);
  char *base = fence == Fence::After ? data + bytes + page - span : data - page;
  char *fencePage = fence == Fence::After ? base + span - page : base;
  forgetFence(reinterpret_cast<uintptr_t>(fencePage));
  munmap(base, span);
}

} // namespace tisa
