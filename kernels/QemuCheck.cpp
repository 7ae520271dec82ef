//===- QemuCheck.cpp - generated aarch64 kernels checked under qemu -------===//

#include "tisa/Kernels/QemuCheck.h"
#include "KernelEpilogue.h"

#include "tisa/Kernels/Reference.h"

#include "tisa/Targets/Disassembler.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

namespace tisa {
namespace {

/// The adapter's entry, with the probe signature (see adapterSource).
constexpr const char *kAdapterEntry = "tisa_qemu_entry";

/// C for the adapter's entry `void tisa_qemu_entry(in, weights, outPacked,
/// outPlain, bias, residual, scale)`: packs the weights and calls the
/// pre-packed entry into outPacked, then the plain entry into outPlain, each
/// at `guard` bytes into its buffer (with an epilogue, through a
/// tisa_epilogue of the last three and the data's zero point). With
/// `marked`, each of the two calls is a part counted between calls of
/// aarch64::kCountMarkSymbol.
std::string adapterSource(const GeneratedKernel &k, const KernelSpec &spec,
                          const KernelData &data, bool marked) {
  bool gemm = spec.op == KernelSpec::Op::Gemm;
  std::string n = k.name;
  auto lds = [&](int64_t v) { return ", " + std::to_string(v) + "LL"; };
  std::string a = gemm ? lds(data.lda) : "", b = gemm ? lds(data.ldb) : "",
              c = gemm ? lds(data.ldc) : "";
  std::string epilogueArg, epilogueParam, epilogueStruct;
  if (spec.epilogue.any()) {
    epilogueArg = ", &epilogue";
    epilogueParam = ", const void *";
    epilogueStruct = llvm::formatv(
        "  tisa_epilogue epilogue = {{bias, residual, {0}LL, scale, {1}};\n",
        data.ldr, data.zeroPoint);
  }
  std::string i64 = gemm ? ", long long" : "";
  // Run-time extents: every entry takes them first, the pack and
  // NAME_packed_bytes only the weights' (n, k).
  auto extents = [&](KernelSpec::Extents which, std::string &params,
                     std::string &args) {
    for (const auto &e : spec.runTimeExtents(which)) {
      params += "long long, ";
      args += std::to_string(e.second) + "LL, ";
    }
  };
  std::string rowsParam, rowsArg, weightsParam, weightsArg;
  extents(KernelSpec::Extents::All, rowsParam, rowsArg);
  extents(KernelSpec::Extents::Weights, weightsParam, weightsArg);
  // NAME_packed_bytes(...): the weights' extents without the trailing ", ".
  std::string bytesParams =
      weightsParam.empty() ? "void"
                           : weightsParam.substr(0, weightsParam.size() - 2);
  std::string bytesArgs =
      weightsArg.empty() ? "" : weightsArg.substr(0, weightsArg.size() - 2);
  std::string pack = n + (gemm ? "_pack_b" : "_pack_filter");
  std::string mark = marked ? "  " + aarch64::kCountMarkSymbol.str() + "();\n"
                            : std::string();
  std::string epilogueType =
      spec.epilogue.any() ? "#include <stdint.h>\n" + epilogueStructText()
                          : std::string();
  return llvm::formatv(R"c(#include <stdlib.h>
{13}void {0}({14}const void *{1}, const void *{1}, void *{1}{12});
void {2}({16}const void *{1}, void *);
void {0}_packed({14}const void *{1}, const void *, void *{1}{12});
long long {0}_packed_bytes({18});
__attribute__((noinline)) void {9}(void) {{ __asm__ volatile(""); }
void {3}(void *in, void *w, void *outPacked, void *outPlain, void *bias,
        void *residual, void *scale) {{
{11}  void *packed = malloc((size_t){0}_packed_bytes({19}));
  if (!packed)
    abort();
  {2}({17}w{5}, packed);
{8}  {0}_packed({15}in{4}, packed, (char *)outPacked + {7}{6}{10});
{8}  free(packed);
{8}  {0}({15}in{4}, w{5}, (char *)outPlain + {7}{6}{10});
{8}}
)c",
                       n, i64, pack, kAdapterEntry, a, b, c, data.guard, mark,
                       aarch64::kCountMarkSymbol, epilogueArg, epilogueStruct,
                       epilogueParam, epilogueType, rowsParam, rowsArg,
                       weightsParam, weightsArg, bytesParams, bytesArgs)
      .str();
}

std::vector<uint8_t> bytesOf(const Bytes &b) {
  // A probe buffer is never empty: an unused epilogue operand gets a byte.
  if (b.empty())
    return {0};
  return {b.begin(), b.end()};
}

/// The adapter entry's buffers, in its order.
std::vector<std::vector<uint8_t>> probeBuffers(const KernelData &data) {
  return {bytesOf(data.input),  bytesOf(data.weights), bytesOf(data.output),
          bytesOf(data.output), bytesOf(data.bias),    bytesOf(data.residual),
          bytesOf(data.scale)};
}

} // namespace

aarch64::RunOptions qemuOptionsFor(const Target &target) {
  aarch64::RunOptions options;
  if (target.name == "neoverse-n1")
    options.cpu = "neoverse-n1";
  else if (target.features.contains("sve"))
    options.sveBits = target.vectorBits;
  options.timeoutSeconds = 600;
  return options;
}

llvm::Expected<QemuCounts> countUnderQemu(const GeneratedKernel &k,
                                          const KernelSpec &spec,
                                          const aarch64::RunOptions &base,
                                          uint64_t seed) {
  if (!k.object)
    return llvm::createStringError("the kernel has no object code");
  KernelData data = makeData(spec, seed, Fill::Random);
  poisonOutput(data);
  aarch64::RunOptions options = base;
  options.adapterSource = adapterSource(k, spec, data, /*marked=*/true);
  options.countParts = true;
  llvm::ArrayRef<uint8_t> object(
      reinterpret_cast<const uint8_t *>(k.object->getBufferStart()),
      k.object->getBufferSize());
  auto result = aarch64::runProgram(
      object, kAdapterEntry,
      probeBuffers(data),
      options);
  if (!result)
    return result.takeError();
  if (result->parts.size() != 2)
    return llvm::createStringError("expected 2 counted calls, got " +
                                   std::to_string(result->parts.size()));
  aarch64::ExecutedCounts &prePacked = result->parts[0],
                          &plain = result->parts[1];
  QemuCounts counts;
  counts.total = prePacked.total;
  counts.executed = prePacked.executed;
  counts.plainTotal = plain.total;
  if (!k.mnemonic.empty()) {
    counts.tensor = prePacked.executed[k.mnemonic];
    // A scalable instruction does its segment's work once per 128 bits.
    int64_t segments = k.scalable && base.sveBits ? base.sveBits / 128 : 1;
    counts.minimum =
        double(spec.ops()) / 2 / double(k.macsPerInstruction * segments);
  }
  return counts;
}

std::string checkUnderQemu(const GeneratedKernel &k, const KernelSpec &spec,
                           const aarch64::RunOptions &base, uint64_t seed,
                           int &runs) {
  runs = 0;
  if (!k.object)
    return "the kernel has no object code";
  if (std::string why = aarch64::unavailableReason(); !why.empty())
    return "cannot run aarch64 code here: " + why;
  llvm::ArrayRef<uint8_t> object(
      reinterpret_cast<const uint8_t *>(k.object->getBufferStart()),
      k.object->getBufferSize());
  for (const CheckInputs &in : checkInputs()) {
    KernelData data = makeData(spec, seed, in.fill, in.layout);
    data.denormalsAreZero = k.denormalsAreZero;
    computeReference(spec, data);
    poisonOutput(data);
    aarch64::RunOptions options = base;
    options.adapterSource = adapterSource(k, spec, data, /*marked=*/false);
    auto result = aarch64::runProgram(
        object, kAdapterEntry,
        probeBuffers(data),
        options);
    if (!result)
      return llvm::formatv("{0} inputs: {1}", in.name,
                           llvm::toString(result.takeError()))
          .str();
    const char *names[] = {"pre-packed", "plain"};
    for (unsigned i = 0; i < 2; ++i) {
      const std::vector<uint8_t> &out = result->buffers[2 + i];
      llvm::copy(out, data.output.begin());
      std::string diff = compareOutput(spec, data);
      if (!diff.empty())
        return llvm::formatv("{0} inputs, {1} entry under qemu -cpu {2}: {3}",
                             in.name, names[i], options.cpu, diff)
            .str();
      ++runs;
    }
  }
  return "";
}

/// llvm-mca's cycles per iteration of the pre-packed entry's innermost loop
/// with the most tensor instructions, against its throughput bound: what the
/// hardware would do, where qemu only counts.
std::string hotLoopReport(const GeneratedKernel &k, const Target &target) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (k.mnemonic.empty() || !k.object)
    return "llvm-mca      not run: plain vector code";
  std::string entry = k.name + "_packed";
  auto insts = disassembleFunction(k.object->getMemBufferRef(), entry, "",
                                   DisasmBackend::LLVM, target.cpu);
  if (!insts) {
    os << "llvm-mca      not run: " << llvm::toString(insts.takeError());
    return text;
  }
  std::pair<size_t, size_t> best{0, 0};
  int64_t most = 0;
  for (auto [first, last] : innermostLoops(*insts)) {
    int64_t n = llvm::count_if(
        llvm::ArrayRef(*insts).slice(first, last - first + 1),
        [&](const DecodedInst &in) { return in.mnemonic == k.mnemonic; });
    if (n > most) {
      most = n;
      best = {first, last};
    }
  }
  if (!most) {
    os << "llvm-mca      not run: no innermost loop of " << entry
       << " holds " << k.mnemonic;
    return text;
  }
  auto loop = llvm::ArrayRef(*insts).slice(best.first,
                                           best.second - best.first + 1);
  auto mca = aarch64::analyzeLoop(loop, target.cpu);
  if (!mca) {
    os << "llvm-mca      not run: " << llvm::toString(mca.takeError());
    return text;
  }
  os << llvm::formatv("llvm-mca      hot loop of {0}: {1} instructions, {2} "
                      "{3}; {4:f2} cycles per iteration on {5} (throughput "
                      "bound {6:f2}): {7:f2} {3} per cycle",
                      entry, mca->instructions, most, k.mnemonic,
                      mca->cyclesPerIteration, target.cpu,
                      mca->throughputBound, most / mca->cyclesPerIteration);
  return text;
}

} // namespace tisa
