//===- SignalHandler.h - the SIGILL handler of the AMX emulator -*- C++ -*-===//
//
// Kept apart from the public API because it is compiled for general-purpose
// registers only, which the C++ library headers that the API needs
// (<string>, <mutex>) do not allow.
//
//===----------------------------------------------------------------------===//

#ifndef TISA_TARGETS_X86_AMXEMULATOR_SIGNALHANDLER_H
#define TISA_TARGETS_X86_AMXEMULATOR_SIGNALHANDLER_H

#include "Decoder.h"

#include <csignal>
#include <cstdint>

namespace tisa::amx::detail {

/// The SA_SIGINFO SIGILL handler.
void onSigill(int sig, siginfo_t *info, void *context);

/// Where SIGILLs that are not AMX instructions go. Must be set before
/// onSigill is installed.
void setPreviousAction(const struct sigaction &action);
const struct sigaction &getPreviousAction();

uint64_t getEmulatedCount(Opcode op);
uint64_t getTotalEmulatedCount();
void resetEmulatedCounts();

} // namespace tisa::amx::detail

#endif // TISA_TARGETS_X86_AMXEMULATOR_SIGNALHANDLER_H
