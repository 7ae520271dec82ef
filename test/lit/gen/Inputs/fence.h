/* Buffers against a page the process may not touch, for the checkers that
 * call generated kernels: a kernel that reads or writes even one byte past
 * the end of a buffer (or before its start) faults at once, instead of
 * reading whatever happens to lie after a static array.
 *
 *   fence_alloc(bytes, after, name)  fresh zeroed memory of exactly `bytes`:
 *                                    after != 0: its last byte is followed
 *                                    by a PROT_NONE page; after == 0: its
 *                                    first byte follows one
 *   fence_copy(src, bytes, after, name)  the same, holding a copy of src
 *   fence_free(p, bytes, after)      unmaps what fence_alloc returned
 *   fence_report_faults()            a SIGSEGV/SIGBUS handler that names the
 *                                    buffer a fault hit and exits with 3
 *
 * Each mapping is [PROT_NONE page][pages of data][PROT_NONE page], the
 * buffer pushed against one of the two fences; the slack on the other side
 * stays mapped (run each data set with both placements to fence both ends).
 * A zero-byte buffer points at the start of the second fence, so any access
 * to it faults. Header-only, C11 with the POSIX mman and signal APIs
 * (clang's default gnu mode); aborts on any failure, as a test should. */
#ifndef TISA_TEST_FENCE_H
#define TISA_TEST_FENCE_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The live fenced buffers, for the fault handler to name the one a fault
 * hit. Written only outside the kernels' calls, read by the handler. */
#define FENCE_MAX_BUFFERS 32
typedef struct {
  char *base;       /* the mapping, fences included; NULL: a free slot */
  size_t mapped;    /* its length */
  char *start;      /* the buffer */
  size_t bytes;
  int after;
  const char *name;
} FenceBuffer;
static FenceBuffer fence_buffers[FENCE_MAX_BUFFERS];

static inline size_t fence_page(void) {
  long page = sysconf(_SC_PAGESIZE);
  if (page <= 0) {
    fprintf(stderr, "fence: sysconf(_SC_PAGESIZE) failed\n");
    abort();
  }
  return (size_t)page;
}

static inline void *fence_alloc(size_t bytes, int after, const char *name) {
  size_t page = fence_page();
  size_t data = (bytes + page - 1) / page * page;
  size_t mapped = data + 2 * page;
  char *base = mmap(NULL, mapped, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) {
    fprintf(stderr, "fence: cannot map %zu bytes for %s\n", mapped, name);
    abort();
  }
  if (mprotect(base, page, PROT_NONE) ||
      mprotect(base + page + data, page, PROT_NONE)) {
    fprintf(stderr, "fence: cannot protect the fences of %s\n", name);
    abort();
  }
  char *start = after ? base + page + data - bytes : base + page;
  for (int i = 0; i < FENCE_MAX_BUFFERS; ++i)
    if (!fence_buffers[i].base) {
      FenceBuffer b = {base, mapped, start, bytes, after, name};
      fence_buffers[i] = b;
      return start;
    }
  fprintf(stderr, "fence: more than %d fenced buffers live (%s)\n",
          FENCE_MAX_BUFFERS, name);
  abort();
}

static inline void *fence_copy(const void *src, size_t bytes, int after,
                               const char *name) {
  void *p = fence_alloc(bytes, after, name);
  if (bytes)
    memcpy(p, src, bytes);
  return p;
}

static inline void fence_free(void *p, size_t bytes, int after) {
  for (int i = 0; i < FENCE_MAX_BUFFERS; ++i) {
    FenceBuffer *b = &fence_buffers[i];
    if (b->base && b->start == (char *)p) {
      if (b->bytes != bytes || b->after != after) {
        fprintf(stderr, "fence: %s freed as %zu bytes fenced %s, allocated "
                "as %zu fenced %s\n", b->name, bytes, after ? "after" : "before",
                b->bytes, b->after ? "after" : "before");
        abort();
      }
      if (munmap(b->base, b->mapped)) {
        fprintf(stderr, "fence: cannot unmap %s\n", b->name);
        abort();
      }
      b->base = NULL;
      return;
    }
  }
  fprintf(stderr, "fence: %p is no fenced buffer\n", p);
  abort();
}

/* The fault handler's output, with write() alone: printf is not
 * async-signal-safe. */
static inline void fence_write(const char *s) {
  ssize_t ignored = write(STDERR_FILENO, s, strlen(s));
  (void)ignored;
}
static inline void fence_write_number(uintptr_t n, int base) {
  char text[32];
  int at = (int)sizeof text;
  text[--at] = 0;
  do {
    text[--at] = "0123456789abcdef"[n % (uintptr_t)base];
    n /= (uintptr_t)base;
  } while (n);
  if (base == 16)
    fence_write("0x");
  fence_write(text + at);
}

static inline void fence_on_fault(int sig, siginfo_t *info, void *context) {
  (void)sig;
  (void)context;
  char *at = (char *)info->si_addr;
  for (int i = 0; i < FENCE_MAX_BUFFERS; ++i) {
    const FenceBuffer *b = &fence_buffers[i];
    if (!b->base || at < b->base || at >= b->base + b->mapped)
      continue;
    /* Distances count from 1: the byte right after the buffer is 1 byte
     * past its end. A vector access that crosses into a fence reports the
     * fence's first byte, however far the access reached. */
    uintptr_t distance;
    if (at >= b->start + b->bytes) {
      distance = (uintptr_t)(at - (b->start + b->bytes)) + 1;
      fence_write("fence: access ");
      fence_write_number(distance, 10);
      fence_write(distance == 1 ? " byte" : " bytes");
      fence_write(" past the end of the ");
    } else if (at < b->start) {
      distance = (uintptr_t)(b->start - at);
      fence_write("fence: access ");
      fence_write_number(distance, 10);
      fence_write(distance == 1 ? " byte" : " bytes");
      fence_write(" before the start of the ");
    } else {
      fence_write("fence: fault inside the ");
    }
    fence_write_number(b->bytes, 10);
    fence_write("-byte buffer ");
    fence_write(b->name);
    fence_write("\n");
    _exit(3);
  }
  fence_write("fence: fault at ");
  fence_write_number((uintptr_t)at, 16);
  fence_write(", in no fenced buffer\n");
  _exit(3);
}

/* Installs the handler, and makes stdout line-buffered so that the lines of
 * the runs before a fault reach the pipe (_exit flushes nothing). */
static inline void fence_report_faults(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = fence_on_fault;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  if (sigaction(SIGSEGV, &action, NULL) || sigaction(SIGBUS, &action, NULL)) {
    fprintf(stderr, "fence: cannot install the fault handler\n");
    abort();
  }
}

#endif
