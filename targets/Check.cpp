//===- Check.cpp - executable, hardware-checked descriptions --------------===//

#include "tisa/Targets/Check.h"
#include "tisa/Semantics/AffineEval.h"
#include "tisa/Semantics/Evaluator.h"
#include "tisa/Targets/AArch64Runner.h"
#include "tisa/Targets/AMXEmulator.h"
#include "tisa/Targets/Disassembler.h"
#include "tisa/Targets/Probe.h"
#include "tisa/Targets/PtxasChecker.h"
#include "tisa/Targets/Target.h"
#include "tisa/Targets/WarpMma.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/Format.h"
#include "llvm/TargetParser/Host.h"
#include <cstdlib>
#include <cstring>
#include <random>

using namespace mlir;

namespace tisa {

llvm::StringRef stringifyCheckStatus(CheckStatus s) {
  switch (s) {
  case CheckStatus::Passed:
    return "pass";
  case CheckStatus::Failed:
    return "FAIL";
  case CheckStatus::Skipped:
    return "skipped";
  }
  llvm_unreachable("unknown status");
}

bool VerifyReport::passed() const {
  return llvm::none_of(checks, [](const CheckResult &c) {
    return c.status == CheckStatus::Failed;
  });
}

llvm::StringRef stringifyExecutionMode(ExecutionMode m) {
  switch (m) {
  case ExecutionMode::Native:
    return "native";
  case ExecutionMode::Qemu:
    return "qemu";
  case ExecutionMode::Emulated:
    return "emulated";
  case ExecutionMode::CompileOnly:
    return "compile-only";
  }
  llvm_unreachable("unknown mode");
}

namespace {

bool hasTiles(const Description &d) {
  return llvm::any_of(d.registers, [](const OperandRegister &r) {
    return r.cls == RegisterClass::AMXTile;
  });
}

/// Features of the description the host CPU lacks, as LLVM names them.
std::vector<std::string> missingHostFeatures(const Description &d) {
  llvm::StringMap<bool> host = llvm::sys::getHostCPUFeatures();
  std::vector<std::string> missing;
  for (const std::string &f : d.features) {
    StringRef name = StringRef(f).drop_front();
    if (f[0] == '+' && !host.lookup(name))
      missing.push_back(name.str());
  }
  return missing;
}

} // namespace

ExecutionMode executionMode(const Description &d, std::string *why) {
  auto say = [&](std::string s) {
    if (why)
      *why = std::move(s);
  };
  switch (d.target) {
  case TargetArch::X86_64: {
    std::vector<std::string> missing = missingHostFeatures(d);
    if (missing.empty())
      return ExecutionMode::Native;
    if (hasTiles(d)) {
      say("host lacks " + llvm::join(missing, ", ") +
          ": runs under the AMX trap-and-emulate library");
      return ExecutionMode::Emulated;
    }
    say("host lacks " + llvm::join(missing, ", "));
    return ExecutionMode::CompileOnly;
  }
  case TargetArch::AArch64: {
    std::string reason = aarch64::unavailableReason();
    if (reason.empty())
      return ExecutionMode::Qemu;
    say(reason);
    return ExecutionMode::CompileOnly;
  }
  case TargetArch::NVPTX:
    say("no GPU: PTX checked by ptxas, numerics by the warp-level reference");
    return ExecutionMode::CompileOnly;
  }
  llvm_unreachable("unknown target");
}

//===----------------------------------------------------------------------===//
// Test inputs
//===----------------------------------------------------------------------===//

namespace {

/// Bit patterns worth testing for a floating-point type: zeros, denormals, the
/// smallest normal, ones, the largest finite, infinities and NaNs (quiet and
/// signalling).
std::vector<uint64_t> floatEdges(Type t) {
  const llvm::fltSemantics &sem = semanticsOf(t);
  std::vector<uint64_t> out;
  auto add = [&](const llvm::APFloat &f) {
    out.push_back(f.bitcastToAPInt().getZExtValue());
  };
  for (bool neg : {false, true}) {
    add(llvm::APFloat::getZero(sem, neg));
    add(llvm::APFloat::getSmallest(sem, neg));
    add(llvm::APFloat::getSmallestNormalized(sem, neg));
    add(llvm::APFloat::getLargest(sem, neg));
    add(llvm::APFloat::getInf(sem, neg));
    llvm::APFloat one(sem, "1.0");
    if (neg)
      one.changeSign();
    add(one);
    llvm::APFloat denormal = llvm::APFloat::getSmallestNormalized(sem, neg);
    llvm::APInt bits = denormal.bitcastToAPInt();
    add(llvm::APFloat(sem, bits - 1)); // largest denormal
  }
  add(llvm::APFloat::getQNaN(sem));
  add(llvm::APFloat::getQNaN(sem, /*Negative=*/true));
  add(llvm::APFloat::getSNaN(sem));
  return out;
}

/// A finite value of moderate magnitude: random sign and mantissa, exponent
/// near 1.
uint64_t moderateFloat(Type t, std::mt19937_64 &rng) {
  const llvm::fltSemantics &sem = semanticsOf(t);
  unsigned width = t.getIntOrFloatBitWidth();
  unsigned mant = llvm::APFloat::semanticsPrecision(sem) - 1;
  unsigned expBits = width - 1 - mant;
  uint64_t bias = (1ull << (expBits - 1)) - 1;
  uint64_t exponent = bias - 6 + rng() % 12;
  uint64_t sign = rng() & 1;
  return (sign << (width - 1)) | (exponent << mant) |
         (rng() & ((1ull << mant) - 1));
}

TensorValue fillOperand(const Description &d, unsigned i, unsigned segments,
                        llvm::function_ref<uint64_t(int64_t)> gen) {
  TensorValue v = zeroOperand(d, i, segments);
  for (int64_t k = 0; k < (int64_t)v.bits.size(); ++k)
    v.bits[k] =
        gen(k) & (v.bitWidth == 64 ? ~0ull : ((1ull << v.bitWidth) - 1));
  return v;
}

std::string hex(uint64_t v, unsigned bits) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::format_hex(v, 2 + (bits + 3) / 4);
  return s;
}

} // namespace

std::vector<TestCase> makeTestCases(const Description &d, unsigned segments,
                                    uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<TestCase> cases;
  const MulAcc &m = d.mulAcc;
  auto make = [&](std::string label,
                  llvm::function_ref<uint64_t(unsigned, int64_t)> gen) {
    TestCase c;
    c.label = std::move(label);
    for (unsigned i = 0; i < 3; ++i)
      c.operands[i] =
          fillOperand(d, i, segments, [&](int64_t k) { return gen(i, k); });
    cases.push_back(std::move(c));
  };
  for (unsigned r = 0; r < 16; ++r) {
    if (m.isFloat)
      make("random #" + std::to_string(r), [&](unsigned i, int64_t) {
        return moderateFloat(d.operandElementType(i), rng);
      });
    else
      make("random #" + std::to_string(r),
           [&](unsigned, int64_t) { return rng(); });
  }
  if (!m.isFloat) {
    // The extremes of each input's own type (min, max, -1, 0, 1 at its width
    // and signedness: INT16_MIN x INT16_MIN for 16-bit pairs, not a byte
    // pattern) against each other, on the accumulator's extremes and zero:
    // products and sums that overflow in both directions.
    unsigned accBits = m.accType.getIntOrFloatBitWidth();
    uint64_t accMax = (1ull << (accBits - 1)) - 1,
             accMin = 1ull << (accBits - 1);
    auto edges = [&](unsigned input) {
      bool isSigned = (input == m.lhsInput ? m.lhsExt : m.rhsExt) ==
                      MulAcc::Ext::Sign;
      unsigned bits = d.operandElementType(input).getIntOrFloatBitWidth();
      uint64_t ones = bits == 64 ? ~0ull : (1ull << bits) - 1;
      if (!isSigned)
        return std::vector<uint64_t>{ones, 0, 1, ones >> 1};
      uint64_t min = 1ull << (bits - 1);
      return std::vector<uint64_t>{min, min - 1, ones, 0, 1};
    };
    std::vector<uint64_t> aEdges = edges(0), bEdges = edges(1);
    for (uint64_t a : aEdges)
      for (uint64_t b : bEdges)
        for (uint64_t acc : {accMax, accMin, uint64_t(0)}) {
          std::string label = "a=all " + hex(a, 8) + ", b=all " + hex(b, 8) +
                              ", acc=" +
                              (acc == accMax   ? "INT_MAX"
                               : acc == accMin ? "INT_MIN"
                                               : "0");
          make(label, [&](unsigned i, int64_t) {
            return i == 0 ? a : i == 1 ? b : acc;
          });
        }
    return cases;
  }
  // Floating point: every operand drawn from the edge values (denormals, NaNs,
  // infinities, the largest finite value), mixed with ordinary values so
  // products also meet normal sums.
  std::vector<std::vector<uint64_t>> pools;
  for (unsigned i = 0; i < 3; ++i)
    pools.push_back(floatEdges(d.operandElementType(i)));
  for (unsigned r = 0; r < 8; ++r) {
    make("edge values #" + std::to_string(r), [&](unsigned i, int64_t) {
      if (rng() % 3 == 0)
        return moderateFloat(d.operandElementType(i), rng);
      return pools[i][rng() % pools[i].size()];
    });
  }
  make("denormal inputs, normal accumulator",
       [&](unsigned i, int64_t) -> uint64_t {
         if (i == 2)
           return moderateFloat(d.operandElementType(i), rng);
         return uint64_t(1 + rng() % 0x3f) |
                (rng() & 1
                     ? 1ull
                           << (d.operandElementType(i).getIntOrFloatBitWidth() -
                               1)
                     : 0);
       });
  // A denormal accumulator whose sum stays near zero: with zero products,
  // and with products of 1 and the smallest normal value, so that whether
  // the accumulator's denormal is read as zero shows in a normal result.
  auto bitsOf = [](const llvm::APFloat &f) {
    return f.bitcastToAPInt().getZExtValue();
  };
  for (bool zeroInputs : {true, false})
    make(zeroInputs ? "denormal accumulator, zero inputs"
                    : "denormal accumulator, products of the smallest normal",
         [&](unsigned i, int64_t k) -> uint64_t {
           const llvm::fltSemantics &sem =
               semanticsOf(d.operandElementType(i));
           if (i == 2) // the largest denormal
             return bitsOf(llvm::APFloat::getSmallestNormalized(sem, k & 1)) -
                    1;
           if (zeroInputs)
             return 0;
           return i == 0 ? bitsOf(llvm::APFloat::getOne(sem))
                         : bitsOf(llvm::APFloat::getSmallestNormalized(sem));
         });
  // A denormal input times the largest value is a normal product, so
  // whether the instruction reads that input's denormals as zero shows (the
  // denormal products above round to zero either way); one case per input,
  // the accumulator zero.
  for (unsigned tiny : {0u, 1u})
    make("denormal input " + std::to_string(tiny) + " times the largest value",
         [&, tiny](unsigned i, int64_t) -> uint64_t {
           const llvm::fltSemantics &sem =
               semanticsOf(d.operandElementType(i));
           if (i == 2)
             return 0;
           if (i != tiny)
             return bitsOf(llvm::APFloat::getLargest(sem));
           uint64_t sign = rng() & 1 ? 1ull << (llvm::APFloat::getSizeInBits(
                                                    sem) - 1)
                                     : 0;
           return sign | (1 + rng() % 0x3f);
         });
  // Products of the smallest normal value and 2^-8 sum, over up to 64 of
  // them, to a denormal accumulator value: whether the instruction flushes
  // its output shows (16-bit float inputs cannot get there: their products
  // are normal in f32).
  make("denormal results", [&](unsigned i, int64_t) -> uint64_t {
    const llvm::fltSemantics &sem = semanticsOf(d.operandElementType(i));
    if (i == 2)
      return 0;
    if (i == 0)
      return bitsOf(llvm::APFloat::getSmallestNormalized(sem));
    llvm::APFloat small(1.0 / 256);
    bool inexact;
    small.convert(sem, llvm::APFloat::rmNearestTiesToEven, &inexact);
    return bitsOf(small);
  });
  make("random bit patterns", [&](unsigned, int64_t) { return rng(); });
  return cases;
}

//===----------------------------------------------------------------------===//
// Checks
//===----------------------------------------------------------------------===//

namespace {

class Checker {
public:
  Checker(const Description &d, const VerifyOptions &o) : d(d), options(o) {}

  VerifyReport run() {
    bool featuresKnown = checkFeatures();
    checkEvaluator();
    if (!featuresKnown) {
      // LLVM would ignore the unknown ones (warning on stderr) and compile
      // for the rest: nothing such a run says is about the description.
      add("lowering", CheckStatus::Skipped,
          "not compiled: the features above are not LLVM's");
      return std::move(report);
    }
    switch (d.target) {
    case TargetArch::X86_64:
    case TargetArch::AArch64:
      checkCPU();
      break;
    case TargetArch::NVPTX:
      checkNVPTX();
      break;
    }
    return std::move(report);
  }

private:
  void add(std::string name, CheckStatus s, std::string detail) {
    report.checks.push_back({std::move(name), s, std::move(detail)});
  }

  /// Every feature is one LLVM knows for the architecture (a misspelt one
  /// reads as a feature no machine has: the description applies nowhere).
  /// Reported only when one is not; false then.
  bool checkFeatures() {
    std::vector<std::string> list(d.features.begin(), d.features.end());
    auto unknown = unknownFeatures(d.target, list);
    if (!unknown) {
      add("features", CheckStatus::Failed, llvm::toString(unknown.takeError()));
      return false;
    }
    if (unknown->empty())
      return true;
    std::string names;
    for (const std::string &f : *unknown)
      names += (names.empty() ? "'" : ", '") + f + "'";
    add("features", CheckStatus::Failed,
        names + (unknown->size() == 1 ? " is not an LLVM " : " are not LLVM ") +
            stringifyTargetArch(d.target).str() +
            " feature (misspelt? the description would apply to no target)");
    return false;
  }

  /// Invariants any correct evaluation has: zero inputs leave the accumulator
  /// unchanged, and every input element reaches the output.
  void checkEvaluator() {
    const MulAcc &m = d.mulAcc;
    std::mt19937_64 rng(options.seed);
    TensorValue a = zeroOperand(d, 0, 1), b = zeroOperand(d, 1, 1),
                acc = zeroOperand(d, 2, 1);
    for (uint64_t &x : acc.bits)
      x = m.isFloat ? moderateFloat(m.accType, rng) : rng() & 0xffffffffu;
    TensorValue r = evaluate(d, {a, b, acc});
    if (r.bits != acc.bits)
      return add("evaluator", CheckStatus::Failed,
                 "zero inputs changed the accumulator");
    // One-hot: a single nonzero element of one input, ones in the other, zero
    // accumulator.
    auto one = [&](Type t) -> uint64_t {
      if (!m.isFloat)
        return 1;
      return llvm::APFloat(semanticsOf(t), "1.0")
          .bitcastToAPInt()
          .getZExtValue();
    };
    for (unsigned input = 0; input < 2; ++input) {
      int64_t n = (input == 0 ? a : b).bits.size();
      for (unsigned trial = 0; trial < 8 && trial < n; ++trial) {
        int64_t pos = rng() % n;
        TensorValue x = zeroOperand(d, 0, 1), y = zeroOperand(d, 1, 1),
                    z = zeroOperand(d, 2, 1);
        (input == 0 ? x : y).bits[pos] = one(d.operandElementType(input));
        for (uint64_t &v : (input == 0 ? y : x).bits)
          v = one(d.operandElementType(1 - input));
        TensorValue out = evaluate(d, {x, y, z});
        if (llvm::all_of(out.bits, [](uint64_t v) { return v == 0; }))
          return add("evaluator", CheckStatus::Failed,
                     "input " + std::to_string(input) + " element " +
                         std::to_string(pos) + " does not reach the result");
      }
    }
    add("evaluator", CheckStatus::Passed,
        "accumulate-into identity and one-hot reachability hold");
  }

  /// Builds the probe (and its batch driver over `count` cases) and translates
  /// it to LLVM IR.
  llvm::Expected<std::unique_ptr<llvm::Module>>
  lower(llvm::LLVMContext &llvmCtx, unsigned count) {
    module = ModuleOp::create(UnknownLoc::get(d.func.getContext()));
    FailureOr<LLVM::LLVMFuncOp> probe = buildProbe(d, *module);
    if (failed(probe))
      return llvm::createStringError(
          "cannot build the probe (see the diagnostic above)");
    if (count && failed(buildBatchProbe(d, *module, *probe, count)))
      return llvm::createStringError("cannot build the batch probe");
    if (d.target != TargetArch::NVPTX &&
        failed(buildProbe(d, *module, /*scaffold=*/true)))
      return llvm::createStringError("cannot build the probe's scaffold");
    return translateToLLVMIR(*module, llvmCtx);
  }

  /// Compiles the probe for its CPU target and checks the emitted code holds
  /// the instruction.
  std::unique_ptr<llvm::MemoryBuffer> compileAndInspect(unsigned count) {
    llvm::LLVMContext llvmCtx;
    auto llvmModule = lower(llvmCtx, count);
    if (!llvmModule) {
      add("lowering", CheckStatus::Failed,
          llvm::toString(llvmModule.takeError()));
      return nullptr;
    }
    CodegenTarget target = codegenTargetFor(d);
    auto object = emitMachineCode(**llvmModule, target, /*assembly=*/false);
    if (!object) {
      add("lowering", CheckStatus::Failed,
          llvm::toString(object.takeError()) + " (" + d.lowering.intrinsic +
              " with features " + llvm::join(d.features, ",") +
              ": do they include what the instruction needs?)");
      return nullptr;
    }
    auto insts = disassembleFunction((*object)->getMemBufferRef(),
                                     probeSymbol(d), target.features);
    if (!insts) {
      add("lowering", CheckStatus::Failed, llvm::toString(insts.takeError()));
      return nullptr;
    }
    if (llvm::Error e = expectMnemonic(*insts, d.mnemonic)) {
      add("lowering", CheckStatus::Failed,
          d.lowering.intrinsic + " compiled for " + target.triple + ": " +
              llvm::toString(std::move(e)));
      return nullptr;
    }
    // The mnemonic must be the instruction's: one the probe's own loads,
    // store and return hold too ('ret', a vector move) says nothing.
    auto scaffold = disassembleFunction((*object)->getMemBufferRef(),
                                        probeSymbol(d) + "_scaffold",
                                        target.features);
    if (!scaffold) {
      add("lowering", CheckStatus::Failed,
          llvm::toString(scaffold.takeError()));
      return nullptr;
    }
    if (llvm::Error missing = expectMnemonic(*scaffold, d.mnemonic)) {
      llvm::consumeError(std::move(missing)); // the instruction's own: good
    } else {
      add("lowering", CheckStatus::Failed,
          "mnemonic '" + d.mnemonic +
              "' is in the probe without the instruction too (its loads, "
              "store and return): it cannot tell the instruction is there; "
              "name the instruction's own mnemonic");
      return nullptr;
    }
    add("lowering", CheckStatus::Passed,
        d.lowering.intrinsic + " -> " + target.triple + " object; '" +
            d.mnemonic + "' found in the probe's " +
            std::to_string(insts->size()) + " instructions");
    return std::move(*object);
  }

  /// Compares every case's result image with the evaluator; `where` names how
  /// it ran.
  void compare(const std::vector<TestCase> &cases, ArrayRef<uint8_t> accImages,
               unsigned segments, const std::string &where) {
    unsigned acc = d.accumulatorOperand();
    size_t stride = registerImageBytes(d, acc, segments);
    for (auto [c, tc] : llvm::enumerate(cases)) {
      TensorValue got =
          unpackOperand(d, acc, accImages.slice(c * stride, stride), segments);
      TensorValue want =
          evaluate(d, {tc.operands[0], tc.operands[1], tc.operands[2]});
      unsigned bad = 0;
      int64_t first = -1;
      for (size_t k = 0; k < want.bits.size(); ++k)
        if (!resultBitsAgree(d, want.bits[k], got.bits[k])) {
          if (first < 0)
            first = k;
          ++bad;
        }
      if (bad) {
        unsigned w = want.bitWidth;
        add("differential", CheckStatus::Failed,
            where + ": case '" + tc.label + "': " + std::to_string(bad) +
                " of " + std::to_string(want.bits.size()) +
                " result elements differ; element " + std::to_string(first) +
                ": evaluator " + hex(want.bits[first], w) + ", instruction " +
                hex(got.bits[first], w) + "; " + contributions(tc, first));
        return;
      }
    }
    add("differential", CheckStatus::Passed,
        where + ": " + std::to_string(cases.size()) +
            " cases (random and edge values) " +
            (d.mulAcc.isFloat && !d.fp->defaultNaN
                 ? "bit-exact (NaN payloads not compared)"
                 : "bit-exact"));
  }

  /// The operand values that feed result element `out` (flattened, first
  /// segment), for a mismatch report a person can reproduce by hand.
  std::string contributions(const TestCase &tc, int64_t out) {
    SmallVector<AffineMap> maps = d.body.getIndexingMapsArray();
    const TensorValue &acc = tc.operands[2];
    int64_t perSegment = acc.elementsPerSegment();
    int64_t segment = out / perSegment, local = out % perSegment;
    auto linear = [](ArrayRef<int64_t> shape, ArrayRef<int64_t> idx) {
      int64_t l = 0;
      for (auto [s, i] : llvm::zip(shape, idx))
        l = l * s + i;
      return l;
    };
    std::string s;
    llvm::raw_string_ostream os(s);
    os << "acc " << hex(acc.bits[out], acc.bitWidth) << ", products:";
    unsigned shown = 0;
    forEachIndex(d.body.getStaticLoopRanges(), [&](ArrayRef<int64_t> point) {
      if (linear(acc.shape, valueAt(maps[2], point)) != local || shown >= 8)
        return;
      ++shown;
      for (unsigned i = 0; i < 2; ++i) {
        const TensorValue &v = tc.operands[i];
        uint64_t bits = v.bits[segment * v.elementsPerSegment() +
                               linear(v.shape, valueAt(maps[i], point))];
        os << (i ? "*" : " ") << hex(bits, v.bitWidth);
      }
    });
    return s;
  }

  /// Concatenated register images of operand `i` over all cases.
  std::vector<uint8_t> images(const std::vector<TestCase> &cases, unsigned i) {
    std::vector<uint8_t> out;
    for (const TestCase &c : cases) {
      std::vector<uint8_t> img = packOperand(d, i, c.operands[i]);
      out.insert(out.end(), img.begin(), img.end());
    }
    return out;
  }

  void checkCPU() {
    std::string why;
    ExecutionMode mode = executionMode(d, &why);
    std::vector<TestCase> probeCases = makeTestCases(d, 1, options.seed);
    unsigned count = probeCases.size();
    std::unique_ptr<llvm::MemoryBuffer> object = compileAndInspect(count);
    if (!object)
      return;
    if (mode == ExecutionMode::CompileOnly)
      return add("differential", CheckStatus::Skipped, why);
    if (d.target == TargetArch::AArch64)
      return runQemu(*object, count);
    runInProcess(*object, probeCases, mode);
  }

  void runInProcess(llvm::MemoryBuffer &object,
                    const std::vector<TestCase> &cases, ExecutionMode mode) {
    auto jit = llvm::orc::LLJITBuilder().create();
    if (!jit)
      return add("differential", CheckStatus::Failed,
                 "cannot create the JIT: " + llvm::toString(jit.takeError()));
    if (llvm::Error e =
            (*jit)->addObjectFile(llvm::MemoryBuffer::getMemBufferCopy(
                object.getBuffer(), "probe.o")))
      return add("differential", CheckStatus::Failed,
                 "JIT: " + llvm::toString(std::move(e)));
    auto sym = (*jit)->lookup(probeSymbol(d) + "_batch");
    if (!sym)
      return add("differential", CheckStatus::Failed,
                 "JIT: " + llvm::toString(sym.takeError()));
    auto *fn = sym->toPtr<void (*)(void *, void *, void *)>();
    std::vector<uint8_t> a = images(cases, 0), b = images(cases, 1),
                         c = images(cases, 2);
    std::string where = "native " + std::string(llvm::sys::getHostCPUName());
    if (mode == ExecutionMode::Emulated) {
      std::string why;
      if (!amx::installEmulator(&why))
        return add("differential", CheckStatus::Skipped,
                   "AMX emulator unavailable: " + why);
      amx::resetCounts();
      fn(a.data(), b.data(), c.data());
      uint64_t executed = amx::emulatedCount(d.mnemonic.c_str());
      amx::uninstallEmulator();
      if (executed < cases.size())
        return add("differential", CheckStatus::Failed,
                   "the emulator executed " + std::to_string(executed) + " '" +
                       d.mnemonic + "' instructions for " +
                       std::to_string(cases.size()) + " cases");
      where = "AMX trap-and-emulate (" +
              std::to_string(amx::emulatedInstructionCount()) +
              " AMX instructions emulated)";
    } else {
      fn(a.data(), b.data(), c.data());
    }
    compare(cases, c, 1, where);
  }

  void runQemu(llvm::MemoryBuffer &object, unsigned count) {
    std::vector<unsigned> lengths =
        d.isScalable() ? options.sveBits : std::vector<unsigned>{0};
    std::vector<std::string> done;
    llvm::ArrayRef<uint8_t> bytes(
        reinterpret_cast<const uint8_t *>(object.getBufferStart()),
        object.getBufferSize());
    // Linked once, run at every length.
    auto program =
        aarch64::LinkedProgram::link(bytes, probeSymbol(d) + "_batch", "", {});
    if (!program)
      return add("differential", CheckStatus::Failed,
                 "qemu-aarch64: " + llvm::toString(program.takeError()));
    for (unsigned bits : lengths) {
      unsigned segments = bits ? bits / 128 : 1;
      std::vector<TestCase> cases =
          makeTestCases(d, segments, options.seed + bits);
      assert(cases.size() == count &&
             "the batch size does not depend on the vector length");
      std::vector<std::vector<uint8_t>> buffers = {
          images(cases, 0), images(cases, 1), images(cases, 2)};
      aarch64::RunOptions run;
      run.sveBits = bits;
      auto result = program->run(buffers, run);
      if (!result)
        return add("differential", CheckStatus::Failed,
                   "qemu-aarch64: " + llvm::toString(result.takeError()));
      std::string where =
          bits ? "qemu-aarch64, SVE " + std::to_string(bits) + "-bit"
               : "qemu-aarch64";
      size_t before = report.checks.size();
      compare(cases, result->buffers[2], segments, where);
      if (report.checks.back().status == CheckStatus::Failed)
        return;
      report.checks.resize(before);
      done.push_back(bits ? std::to_string(bits) : "NEON");
    }
    add("differential", CheckStatus::Passed,
        "qemu-aarch64" +
            std::string(d.isScalable()
                            ? " at SVE " + llvm::join(done, "/") + " bits"
                            : "") +
            ": " + std::to_string(count) +
            " cases per run (random and edge values) " +
            (d.mulAcc.isFloat && !d.fp->defaultNaN
                 ? "bit-exact (NaN payloads not compared)"
                 : "bit-exact"));
  }

  void checkNVPTX() {
    // PTX for every architecture, holding the instruction and accepted by
    // ptxas.
    std::string ptxasWhy = nvptx::ptxasUnavailableReason();
    std::vector<std::string> accepted;
    for (const std::string &arch : options.ptxArchs) {
      llvm::LLVMContext llvmCtx;
      auto llvmModule = lower(llvmCtx, 0);
      if (!llvmModule)
        return add("lowering", CheckStatus::Failed,
                   llvm::toString(llvmModule.takeError()));
      CodegenTarget target = codegenTargetFor(d, arch);
      auto ptx = emitMachineCode(**llvmModule, target, /*assembly=*/true);
      if (!ptx)
        return add("lowering", CheckStatus::Failed,
                   llvm::toString(ptx.takeError()));
      if (!(*ptx)->getBuffer().contains(d.mnemonic))
        return add("lowering", CheckStatus::Failed,
                   "PTX for " + arch + " does not contain '" + d.mnemonic +
                       "'");
      if (ptxasWhy.empty()) {
        if (llvm::Error e = nvptx::runPtxas((*ptx)->getBuffer(), arch))
          return add("lowering", CheckStatus::Failed,
                     llvm::toString(std::move(e)));
        accepted.push_back(arch);
      }
    }
    add("lowering", CheckStatus::Passed,
        d.lowering.intrinsic + " -> PTX holding '" + d.mnemonic + "' for " +
            llvm::join(options.ptxArchs, ", "));
    if (accepted.empty())
      add("ptxas", CheckStatus::Skipped, ptxasWhy);
    else
      add("ptxas", CheckStatus::Passed,
          "accepted for " + llvm::join(accepted, ", "));
    checkWarpReference();
  }

  /// The evaluator against the independent warp-level reference, through the
  /// description's fragment layouts: a layout that disagrees with the PTX
  /// fragment rules fails here.
  void checkWarpReference() {
    auto form = nvptx::parseMma(d.mnemonic);
    if (!form)
      return add("differential", CheckStatus::Skipped,
                 "no warp-level reference: " +
                     llvm::toString(form.takeError()));
    // The registers in the order the lowering passes them to mma.sync (A,
    // B, C): the instruction computes with that order, whatever the
    // semantics say.
    unsigned order[3];
    if (d.lowering.args.size() != 3)
      return add("differential", CheckStatus::Failed,
                 "'" + d.mnemonic + "' takes three operands (A, B, C); the "
                 "lowering passes " + std::to_string(d.lowering.args.size()));
    for (unsigned k = 0; k < 3; ++k) {
      const LoweringArg &arg = d.lowering.args[k];
      if (arg.kind != LoweringArg::Operand || arg.operand >= 3)
        return add("differential", CheckStatus::Failed,
                   "lowering operand " + std::to_string(k) +
                       " of '" + d.mnemonic + "' is not a register");
      order[k] = arg.operand;
    }
    nvptx::FragmentSizes sizes = nvptx::fragmentSizes(*form);
    unsigned perLane[3] = {sizes.a, sizes.b, sizes.c};
    for (unsigned k = 0; k < 3; ++k) {
      int64_t have = d.registers[order[k]].type.getDimSize(1);
      if (have != perLane[k])
        return add("differential", CheckStatus::Failed,
                   "registers[" + std::to_string(order[k]) + "], which the "
                   "lowering passes as " + "ABC"[k] + ", holds " +
                       std::to_string(have) + " elements per lane; '" +
                       d.mnemonic + "' has " + std::to_string(perLane[k]));
    }
    std::vector<TestCase> cases = makeTestCases(d, 1, options.seed);
    std::vector<uint8_t> results;
    for (const TestCase &c : cases) {
      std::vector<uint64_t> fragments[3];
      for (unsigned op = 0; op < 3; ++op)
        fragments[op] = toElements(op, packOperand(d, op, c.operands[op]));
      for (uint64_t v :
           nvptx::warpMma(*form, fragments[order[0]], fragments[order[1]],
                          fragments[order[2]]))
        appendElement(results, v, elementBytes(d.accumulatorOperand()));
    }
    compare(cases, results, 1, "warp-level mma reference (PTX fragment rules)");
  }

  unsigned elementBytes(unsigned op) const {
    return d.registers[op].type.getElementTypeBitWidth() / 8;
  }

  /// A register image as its elements' bits, little-endian.
  std::vector<uint64_t> toElements(unsigned op, ArrayRef<uint8_t> image) const {
    unsigned bytes = elementBytes(op);
    std::vector<uint64_t> out(image.size() / bytes);
    for (size_t k = 0; k < out.size(); ++k)
      for (unsigned b = 0; b < bytes; ++b)
        out[k] |= uint64_t(image[k * bytes + b]) << (8 * b);
    return out;
  }

  static void appendElement(std::vector<uint8_t> &image, uint64_t v,
                            unsigned bytes) {
    for (unsigned b = 0; b < bytes; ++b)
      image.push_back(static_cast<uint8_t>(v >> (8 * b)));
  }

  const Description &d;
  const VerifyOptions &options;
  VerifyReport report;
  OwningOpRef<ModuleOp> module;
};

} // namespace

VerifyReport verifyDescription(const Description &d,
                               const VerifyOptions &options) {
  return Checker(d, options).run();
}

} // namespace tisa
