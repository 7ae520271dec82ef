//===- SignalHandler.cpp - the SIGILL handler of the AMX emulator ---------===//
//
// The handler runs on the faulting thread, so the tile file is thread-local
// like the architectural state. Everything here is async-signal-safe (no
// allocation, no stdio, no locks; diagnostics go out with write(2) and end in
// abort()), but for the first touch of the tile file below.
//
//===----------------------------------------------------------------------===//

#include "SignalHandler.h"

#include "TileUnit.h"

#include <asm/prctl.h>
#include <atomic>
#include <cstring>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

namespace tisa::amx::detail {
namespace {

// Trivially constructible, so there is no lazy initialisation; zero is the
// INIT state. The default TLS model, not initial-exec: its 8 KiB of static
// TLS made libtisa.so impossible to dlopen (Python's ctypes: "cannot allocate
// memory in static TLS block"). Where libtisa.so is dlopen'ed, a thread's
// first access may allocate its block in the dynamic loader, which is safe
// here: SIGILL is synchronous, raised by a tile instruction of the kernel,
// never inside malloc. Linked into a program (or loaded with it), the block
// is static and no access allocates.
thread_local TileFile ThreadTiles;

std::atomic<uint64_t> OpcodeCounts[kNumOpcodes];
std::atomic<uint64_t> TotalCount;

struct sigaction PreviousAction;

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

/// Fixed-size message buffer: snprintf is not async-signal-safe.
class Message {
public:
  Message &operator<<(const char *s) {
    while (*s && len < sizeof(buf))
      buf[len++] = *s++;
    return *this;
  }
  Message &hex(uint64_t v, unsigned minDigits = 1) {
    char digits[16];
    unsigned n = 0;
    do {
      digits[n++] = "0123456789abcdef"[v & 0xF];
      v >>= 4;
    } while (v || n < minDigits);
    while (n && len < sizeof(buf))
      buf[len++] = digits[--n];
    return *this;
  }
  void write() const {
    ssize_t ignored = ::write(STDERR_FILENO, buf, len);
    (void)ignored;
  }

private:
  char buf[512];
  size_t len = 0;
};

[[noreturn]] void die(const char *mnemonic, const char *kind,
                      const char *reason, const uint8_t *pc,
                      unsigned numBytes) {
  Message msg;
  msg << "tisa-amx: " << mnemonic << " at rip=0x";
  msg.hex(reinterpret_cast<uintptr_t>(pc)) << " (bytes";
  for (unsigned i = 0; i < numBytes; ++i) {
    msg << " ";
    msg.hex(pc[i], 2);
  }
  msg << "): " << kind << ": " << reason << "\n";
  msg.write();
  // abort() itself; <cstdlib> cannot be included for general-regs-only code.
  __builtin_abort();
}

//===----------------------------------------------------------------------===//
// Passing on SIGILLs that are not ours
//===----------------------------------------------------------------------===//

void forwardSignal(int sig, siginfo_t *info, void *context) {
  struct sigaction prev = PreviousAction;
  bool fromCPU = info && info->si_code > 0;
  if (prev.sa_flags & SA_SIGINFO) {
    if (prev.sa_sigaction) {
      prev.sa_sigaction(sig, info, context);
      return;
    }
  } else if (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN) {
    prev.sa_handler(sig);
    return;
  }
  // A SIGILL sent with kill() can be ignored; one raised by the CPU cannot
  // (the kernel would kill the process anyway).
  if (prev.sa_handler == SIG_IGN && !(prev.sa_flags & SA_SIGINFO) && !fromCPU)
    return;
  // Default action: make it the disposition and let the signal happen again.
  // A CPU fault recurs when the instruction is re-executed on return; a sent
  // signal is re-raised now and stays pending (SIGILL is blocked in here)
  // until we return.
  struct sigaction dfl;
  std::memset(&dfl, 0, sizeof(dfl));
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(SIGILL, &dfl, nullptr);
  if (!fromCPU)
    raise(sig);
}

//===----------------------------------------------------------------------===//
// Operands
//===----------------------------------------------------------------------===//

uint64_t readGPR(const mcontext_t &mc, int reg) {
  static const int kGregIndex[16] = {
      REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
      REG_R8,  REG_R9,  REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15};
  return uint64_t(mc.gregs[kGregIndex[reg & 15]]);
}

uint64_t segmentBase(Segment segment) {
  if (segment == Segment::Default)
    return 0;
  unsigned long base = 0;
  syscall(SYS_arch_prctl, segment == Segment::FS ? ARCH_GET_FS : ARCH_GET_GS,
          &base);
  return base;
}

ResolvedMemory resolve(const Instruction &inst, const mcontext_t &mc,
                       uint64_t rip) {
  ResolvedMemory res;
  if (!inst.hasMemory)
    return res;
  const MemOperand &mem = inst.mem;
  uint64_t base = 0;
  if (mem.ripRelative)
    base = rip + inst.length;
  else if (mem.base != kNoReg)
    base = readGPR(mc, mem.base);
  base += uint64_t(int64_t(mem.disp));
  uint64_t scaledIndex =
      mem.index == kNoReg ? 0 : readGPR(mc, mem.index) << mem.scaleLog2;
  res.segmentBase = segmentBase(mem.segment);
  res.wrap32 = mem.addressSize32;
  bool isTileRows = inst.opcode == Opcode::Tileloadd ||
                    inst.opcode == Opcode::Tileloaddt1 ||
                    inst.opcode == Opcode::Tilestored;
  if (isTileRows) {
    // The index register is the row stride, not part of the address.
    res.begin = base;
    res.stride = int64_t(scaledIndex);
  } else {
    res.begin = base + scaledIndex;
  }
  return res;
}

} // namespace

void onSigill(int sig, siginfo_t *info, void *context) {
  auto *uc = static_cast<ucontext_t *>(context);
  // Only a fault raised by the CPU leaves RIP on the offending instruction.
  if (!info || info->si_code <= 0 || !uc) {
    forwardSignal(sig, info, context);
    return;
  }
  mcontext_t &mc = uc->uc_mcontext;
  uint64_t rip = uint64_t(mc.gregs[REG_RIP]);
  const auto *pc = reinterpret_cast<const uint8_t *>(rip);
  DecodeResult decoded = decode(pc, 15);
  switch (decoded.status) {
  case DecodeStatus::NotAMX:
    forwardSignal(sig, info, context);
    return;
  case DecodeStatus::Unsupported:
    die("AMX instruction", "not emulated", decoded.reason, pc,
        decoded.consumed);
  case DecodeStatus::Invalid:
    die("AMX instruction", "#UD", decoded.reason, pc, decoded.consumed);
  case DecodeStatus::Ok:
    break;
  }
  const Instruction &inst = decoded.inst;
  Fault fault = execute(ThreadTiles, inst, resolve(inst, mc, rip));
  if (fault)
    die(getMnemonic(inst.opcode), fault.kind == FaultKind::GP ? "#GP" : "#UD",
        fault.reason, pc, inst.length);
  OpcodeCounts[unsigned(inst.opcode)].fetch_add(1, std::memory_order_relaxed);
  TotalCount.fetch_add(1, std::memory_order_relaxed);
  mc.gregs[REG_RIP] = greg_t(rip + inst.length);
}

void setPreviousAction(const struct sigaction &action) {
  PreviousAction = action;
}

const struct sigaction &getPreviousAction() { return PreviousAction; }

uint64_t getEmulatedCount(Opcode op) {
  return OpcodeCounts[unsigned(op)].load(std::memory_order_relaxed);
}

uint64_t getTotalEmulatedCount() {
  return TotalCount.load(std::memory_order_relaxed);
}

void resetEmulatedCounts() {
  for (auto &count : OpcodeCounts)
    count.store(0, std::memory_order_relaxed);
  TotalCount.store(0, std::memory_order_relaxed);
}

} // namespace tisa::amx::detail
