//===- AMXEmulator.cpp - public API of the AMX emulator -------------------===//
//
// Installing and removing the SIGILL handler, host feature queries and the
// emulation counters. The handler itself lives in SignalHandler.cpp.
//
//===----------------------------------------------------------------------===//

#include "tisa/Targets/AMXEmulator.h"

#include "SignalHandler.h"

#include <cerrno>
#include <cpuid.h>
#include <csignal>
#include <cstring>
#include <mutex>

using namespace tisa::amx::detail;

namespace {

std::mutex InstallMutex;
bool Installed = false;

bool isOurHandler(const struct sigaction &action) {
  return (action.sa_flags & SA_SIGINFO) && action.sa_sigaction == onSigill;
}

void setWhy(std::string *why, const char *what) {
  if (!why)
    return;
  *why = what;
  *why += ": ";
  *why += std::strerror(errno);
}

} // namespace

namespace tisa::amx {

bool installEmulator(std::string *why) {
  std::lock_guard<std::mutex> lock(InstallMutex);
  if (Installed)
    return true;
  struct sigaction previous;
  if (sigaction(SIGILL, nullptr, &previous) != 0) {
    setWhy(why, "cannot read the SIGILL disposition");
    return false;
  }
  // Never chain to ourselves: that would loop on a genuine illegal
  // instruction.
  if (!isOurHandler(previous))
    setPreviousAction(previous);
  struct sigaction action;
  std::memset(&action, 0, sizeof(action));
  action.sa_sigaction = onSigill;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  if (sigaction(SIGILL, &action, nullptr) != 0) {
    setWhy(why, "cannot install the SIGILL handler");
    return false;
  }
  Installed = true;
  return true;
}

void uninstallEmulator() {
  std::lock_guard<std::mutex> lock(InstallMutex);
  if (!Installed)
    return;
  struct sigaction current;
  // Somebody who installed a handler after us keeps it.
  if (sigaction(SIGILL, nullptr, &current) == 0 && isOurHandler(current))
    sigaction(SIGILL, &getPreviousAction(), nullptr);
  Installed = false;
}

HostAMXFeatures hostAMXFeatures() {
  HostAMXFeatures features;
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx))
    return features;
  unsigned maxSubleaf = eax;
  features.bf16 = (edx >> 22) & 1;
  features.tile = (edx >> 24) & 1;
  features.int8 = (edx >> 25) & 1;
  if (maxSubleaf >= 1 && __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx))
    features.fp16 = (eax >> 21) & 1;
  // XGETBV is only defined once the OS has set CR4.OSXSAVE.
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) && ((ecx >> 27) & 1)) {
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    features.osEnabled = ((lo >> 17) & 3) == 3; // XTILECFG and XTILEDATA
  }
  return features;
}

bool hostHasAMXTile() {
  HostAMXFeatures features = hostAMXFeatures();
  return features.tile && features.osEnabled;
}

uint64_t emulatedInstructionCount() { return getTotalEmulatedCount(); }

uint64_t emulatedCount(const char *mnemonic) {
  if (!mnemonic)
    return 0;
  for (unsigned i = 0; i < kNumOpcodes; ++i)
    if (std::strcmp(mnemonic, getMnemonic(Opcode(i))) == 0)
      return getEmulatedCount(Opcode(i));
  return 0;
}

void resetCounts() { resetEmulatedCounts(); }

} // namespace tisa::amx
