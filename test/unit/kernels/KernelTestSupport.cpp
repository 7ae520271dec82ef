//===- KernelTestSupport.cpp - shared pieces of the kernel tests ----------===//

#include "KernelTestSupport.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

using namespace tisa;

namespace tisa {
// Test parameters print as their description, not as bytes.
void PrintTo(const KernelSpec &spec, std::ostream *os) {
  *os << spec.describe();
}
} // namespace tisa

namespace tisa::test {

KernelSpec gemm(int64_t m, int64_t n, int64_t k, llvm::StringRef types) {
  KernelSpec s = KernelSpec::makeGemm(m, n, k);
  s.types = cantFail(KernelTypes::parse(types));
  return s;
}

KernelSpec conv(int64_t batch, int64_t h, int64_t w, int64_t c, int64_t f,
                int64_t r, int64_t stride, int64_t pad,
                llvm::StringRef types) {
  KernelSpec s = KernelSpec::makeConv2d(batch, h, w, c, f, r, stride, pad);
  s.types = cantFail(KernelTypes::parse(types));
  return s;
}

void PrintTo(const MatrixCase &c, std::ostream *os) {
  *os << c.spec.describe();
}

MatrixCase convCase(int64_t batch, int64_t h, int64_t w, int64_t c, int64_t f,
                    int64_t r, int64_t s, int64_t stride, int64_t pad,
                    llvm::StringRef types, int64_t outH, int64_t outW) {
  KernelSpec spec = conv(batch, h, w, c, f, r, stride, pad, types);
  spec.s = s;
  return {spec, outH, outW};
}

std::string testName(const testing::TestParamInfo<MatrixCase> &info) {
  const KernelSpec &s = info.param.spec;
  std::string epilogue = s.epilogue.symbolSuffix();
  std::string rows =
      s.runTimeRows ? s.rowsName().upper() : std::to_string(s.rows());
  if (s.op == KernelSpec::Op::Gemm)
    return llvm::formatv("gemm_{0}_{1}x{2}x{3}{4}", s.types.text(), rows, s.n,
                         s.k, epilogue);
  // A run-time h or w is "H" or "W", as in the kernel's symbol.
  auto image = [](bool runTime, int64_t v, char name) {
    return runTime ? std::string(1, name) : std::to_string(v);
  };
  return llvm::formatv("conv_{0}_n{1}h{2}w{3}c{4}k{5}r{6}s{7}u{8}p{9}{10}",
                       s.types.text(), rows, image(s.runTimeH, s.h, 'H'),
                       image(s.runTimeW, s.w, 'W'), s.c, s.filters, s.r, s.s,
                       s.stride, s.pad, epilogue);
}

std::vector<MatrixCase> smallRunTimeRowsMatrix() {
  std::vector<MatrixCase> small;
  for (const MatrixCase &c : runTimeRowsMatrix()) {
    const KernelSpec &s = c.spec;
    if (s.op == KernelSpec::Op::Gemm ? s.n * s.k <= 64 * 1024
                                     : s.outH() * s.outW() * s.filters <= 16384)
      small.push_back(c);
  }
  return small;
}

std::vector<MatrixCase> smallRunTimeImageMatrix() {
  std::vector<MatrixCase> out;
  for (MatrixCase c : smallRunTimeRowsMatrix()) {
    if (c.spec.op != KernelSpec::Op::Conv2d)
      continue;
    c.spec.runTimeH = c.spec.runTimeW = true;
    out.push_back(c);
  }
  return out;
}

std::vector<MatrixCase> allMatrixCases() {
  std::vector<MatrixCase> all = kernelMatrix();
  llvm::append_range(all, epilogueMatrix());
  return all;
}

std::vector<MatrixCase> runTimeRowsMatrix() {
  std::vector<MatrixCase> out;
  llvm::StringMap<size_t> index;
  // The odd widths test the packs and loads of N and K, which m at run time
  // leaves as they are: not again here.
  llvm::StringSet<> odd;
  for (const MatrixCase &c : oddWidthMatrix())
    odd.insert(c.spec.key());
  for (const MatrixCase &c : allMatrixCases()) {
    if (odd.contains(c.spec.key()))
      continue;
    KernelSpec spec = c.spec;
    spec.runTimeRows = true;
    spec = spec.withRows(0);
    auto [it, fresh] = index.try_emplace(spec.key(), out.size());
    if (fresh) {
      out.push_back({spec, c.outH, c.outW, {1}});
      if (spec.op == KernelSpec::Op::Gemm && spec.n * spec.k <= 64 * 1024)
        out.back().rows.push_back(300);
    }
    std::vector<int64_t> &rows = out[it->second].rows;
    if (!llvm::is_contained(rows, c.spec.rows()))
      rows.push_back(c.spec.rows());
  }
  return out;
}

KernelSpec withEpilogue(KernelSpec s, llvm::StringRef list) {
  auto e = EpilogueSpec::parse(list);
  EXPECT_TRUE(bool(e)) << llvm::toString(e.takeError());
  s.epilogue = *e;
  return s;
}

std::vector<MatrixCase> epilogueMatrix() {
  // Data for each: biases and residuals that make s32 wrap, scales of 0 and
  // 1e30, and powers of two whose exact halves tell rounding modes apart
  // (tisa::fillEpilogue).
  return {
      {withEpilogue(gemm(97, 131, 67, "u8,s8,s32"), "bias,relu,requant=u8")},
      {withEpilogue(gemm(97, 131, 67, "s8,s8,s32"),
                    "bias,residual,requant=s8")},
      {withEpilogue(gemm(64, 64, 64, "u8,s8,s32"), "residual,relu")},
      {withEpilogue(gemm(1, 1, 1, "u8,s8,s32"), "bias,requant=u8")},
      // One lane in each row's last register.
      {withEpilogue(gemm(15, 33, 100, "u8,u8,s32"), "relu,requant=s8")},
      {withEpilogue(gemm(97, 131, 67, "bf16,bf16,f32"),
                    "bias,residual,relu,bf16")},
      {withEpilogue(gemm(33, 48, 70, "bf16,bf16,f32"), "bias,relu")},
      {withEpilogue(conv(1, 14, 14, 19, 21, 3, 1, 1, "u8,s8,s32"),
                    "bias,residual,relu,requant=u8"),
       14, 14},
      {withEpilogue(conv(1, 28, 28, 64, 32, 1, 2, 0, "s8,s8,s32"),
                    "bias,requant=s8"),
       14, 14},
      {withEpilogue(conv(1, 14, 14, 64, 64, 3, 1, 1, "bf16,bf16,f32"),
                    "bias,relu,bf16"),
       14, 14},
  };
}

bool refersTo(llvm::MemoryBufferRef obj, llvm::StringRef from,
              llvm::StringRef to) {
  auto file = llvm::object::ObjectFile::createObjectFile(obj);
  if (!file) {
    llvm::consumeError(file.takeError());
    return false;
  }
  auto *elf = llvm::dyn_cast<llvm::object::ELFObjectFileBase>(file->get());
  if (!elf)
    return false;
  for (const llvm::object::ELFSymbolRef &sym : elf->symbols()) {
    auto name = sym.getName();
    auto address = sym.getAddress();
    auto section = sym.getSection();
    if (!name || *name != from || !address || !section) {
      if (!name)
        llvm::consumeError(name.takeError());
      if (!address)
        llvm::consumeError(address.takeError());
      if (!section)
        llvm::consumeError(section.takeError());
      continue;
    }
    uint64_t begin = *address, end = begin + sym.getSize();
    for (const llvm::object::SectionRef &sec : elf->sections()) {
      auto target = sec.getRelocatedSection();
      if (!target) {
        llvm::consumeError(target.takeError());
        continue;
      }
      if (*target != *section)
        continue;
      for (const llvm::object::RelocationRef &r : sec.relocations()) {
        auto symbol = r.getSymbol();
        if (r.getOffset() < begin || r.getOffset() >= end ||
            symbol == elf->symbol_end())
          continue;
        auto targetName = symbol->getName();
        if (targetName && *targetName == to)
          return true;
        if (!targetName)
          llvm::consumeError(targetName.takeError());
      }
    }
  }
  return false;
}

/// Vector multiplies of data (scalar imul is address arithmetic in the
/// packing loops). A plain-vector GEMM or convolution multiplies with these.
bool multiplies(const DecodedInst &in) {
  llvm::StringRef m = in.mnemonic;
  if (m.starts_with("vpmul") || m.starts_with("vpmadd") ||
      m.starts_with("vfmadd") || m.starts_with("vfnmadd") ||
      m.starts_with("vmulp") || m.starts_with("vmuls") ||
      m.starts_with("vpdp") || m.starts_with("vdpbf16"))
    return true;
  // aarch64: the same mnemonics multiply addresses on x registers.
  bool onVectors = llvm::StringRef(in.text).contains(" v") ||
                   llvm::StringRef(in.text).contains(" z");
  return onVectors &&
         llvm::is_contained({"mul", "mla", "mls", "smull", "smull2", "umull",
                             "umull2", "smlal", "smlal2", "umlal", "umlal2",
                             "sdot", "udot", "usdot", "smmla", "ummla",
                             "usmmla", "fmul", "fmla", "bfdot", "bfmmla"},
                            m);
}

std::vector<MatrixCase> oddWidthMatrix() {
  std::vector<MatrixCase> out;
  for (llvm::StringRef t : {"u8s8s32", "s8s8s32", "bf16bf16f32"}) {
    // Odd widths whose last row of weights ends inside a register or a
    // group (N and K of 1, 3, 6, 144, 160, 192, 240; K * N of 18, 144, 480,
    // 432, 1440): with each buffer ending at a fence page (checkKernel), a
    // pack or a load that reads a whole register or group at the end
    // faults. The first conv is the smallest layer that did (ResNet-50's
    // res5 and EfficientDet's 1x1 layers were others); the second skips
    // its border taps inside the tap loop.
    const int64_t shapes[][3] = {{3, 144, 1}, {2, 160, 3}, {5, 240, 6},
                                 {4, 192, 1}, {6, 3, 144},  {2, 6, 3}};
    for (const auto &mnk : shapes)
      out.push_back({gemm(mnk[0], mnk[1], mnk[2], t)});
    out.push_back(convCase(1, 1, 1, 6, 144, 1, 1, 1, 0, t, 1, 1));
    out.push_back(convCase(1, 3, 3, 3, 160, 3, 3, 1, 1, t, 3, 3));
  }
  return out;
}

std::vector<MatrixCase> kernelMatrix() {
  std::vector<MatrixCase> out;
  auto add = [&](KernelSpec spec) { out.push_back({spec}); };
  for (llvm::StringRef t : {"u8s8s32", "s8s8s32", "bf16bf16f32"}) {
    // 1x1x1, one register tile -1/0/+1 in each dimension, rectangular,
    // matrix-vector both ways, BERT-base projections.
    add(gemm(1, 1, 1, t));
    add(gemm(64, 64, 64, t));
    for (int64_t x : {15, 16, 17, 63, 65}) {
      add(gemm(x, 64, 64, t));
      add(gemm(64, x, 64, t));
      add(gemm(64, 64, x, t));
    }
    add(gemm(97, 131, 67, t));
    add(gemm(1, 1024, 1024, t));
    add(gemm(1024, 1, 1024, t));
    add(gemm(128, 768, 768, t));
    add(gemm(128, 3072, 768, t));
    // conv2d: 1x1 and 3x3, stride 1 and 2, pad 0 and 1, odd channel counts,
    // ResNet-50's first layer (3 input channels, 7x7, stride 2, pad 3).
    out.push_back(convCase(1, 14, 14, 64, 64, 1, 1, 1, 0, t, 14, 14));
    out.push_back(convCase(2, 9, 11, 7, 19, 1, 1, 2, 0, t, 5, 6));
    out.push_back(convCase(1, 14, 14, 32, 48, 3, 3, 1, 1, t, 14, 14));
    out.push_back(convCase(1, 15, 13, 5, 33, 3, 3, 2, 1, t, 8, 7));
    out.push_back(convCase(1, 12, 12, 17, 16, 3, 3, 1, 0, t, 10, 10));
    out.push_back(convCase(1, 56, 56, 3, 64, 7, 7, 2, 3, t, 28, 28));
    // Filters that are not square (a swap of height and width changes the
    // output size or the taps): 1x3, 3x1, 5x3 strided, and 3x5 on 3
    // channels (the padded copy).
    out.push_back(convCase(1, 10, 12, 8, 20, 1, 3, 1, 0, t, 10, 10));
    out.push_back(convCase(1, 11, 7, 5, 17, 3, 1, 1, 0, t, 9, 7));
    out.push_back(convCase(1, 12, 13, 16, 24, 5, 3, 2, 1, t, 5, 7));
    out.push_back(convCase(1, 9, 8, 3, 16, 3, 5, 1, 2, t, 11, 8));
  }
  llvm::append_range(out, oddWidthMatrix());
  // 16-bit pairs on vpdpwssd (two words per lane): types come from the
  // descriptions, not a list in the generator.
  for (llvm::StringRef t : {"s16s16s32"}) {
    add(gemm(1, 1, 1, t));
    add(gemm(97, 131, 67, t));
    add(gemm(64, 17, 65, t));
    add(gemm(1, 1024, 1024, t));
    out.push_back(convCase(1, 15, 13, 5, 33, 3, 3, 2, 1, t, 8, 7));
    out.push_back(convCase(1, 14, 14, 32, 48, 3, 3, 1, 1, t, 14, 14));
    out.push_back(convCase(1, 12, 13, 16, 24, 5, 3, 2, 1, t, 5, 7));
  }
  // The other 8-bit signedness pairs: u8 x u8 (a bias and a constant
  // compensation term) and s8 x u8 (the factors swap).
  for (llvm::StringRef t : {"u8u8s32", "s8u8s32"}) {
    add(gemm(97, 131, 67, t));
    add(gemm(1, 64, 17, t));
    out.push_back(convCase(1, 15, 13, 5, 33, 3, 3, 2, 1, t, 8, 7));
    // 16 channels: read in place, the input's sums taken around the border.
    out.push_back(convCase(1, 9, 7, 16, 20, 3, 3, 1, 1, t, 9, 7));
  }
  return out;
}

void expectOutputSize(const MatrixCase &c) {
  const KernelSpec &spec = c.spec;
  if (spec.op != KernelSpec::Op::Conv2d)
    return;
  EXPECT_EQ(spec.outH(), c.outH);
  EXPECT_EQ(spec.outW(), c.outW);
  EXPECT_EQ(spec.outputElements(),
            spec.batch * c.outH * c.outW * spec.filters);
}

std::string cannotRunHere(llvm::StringRef target) {
  auto wanted = loadTarget(target);
  auto host = loadTarget("host");
  if (!wanted || !host)
    return "cannot load a target: " +
           llvm::toString(wanted ? host.takeError() : wanted.takeError());
  std::vector<std::string> lacking = featuresLacking(*wanted, *host);
  if (lacking.empty())
    return "";
  return "this CPU lacks " + llvm::join(lacking, ", ") + " (" + target.str() +
         " code is compiled and inspected here, not run)";
}

std::string x86MatrixTarget(const KernelTypes &types,
                            std::string &notRun) {
  auto host = loadTarget("host");
  notRun.clear();
  std::vector<std::string> lacking;
  // Integer kernels need AVX512-VNNI, bf16 ones AVX512_BF16: a Cascade Lake
  // or Ice Lake runs the integer matrix.
  const char *instruction = types.isFloat() ? "avx512bf16" : "avx512vnni";
  for (const char *f : {"avx512f", "avx512bw", "avx512vl", instruction})
    if (!host || !host->features.contains(f))
      lacking.push_back(f);
  if (!host)
    llvm::consumeError(host.takeError());
  if (lacking.empty())
    return "host";
  notRun = "this CPU lacks " + llvm::join(lacking, ", ") +
           ": the kernel was compiled for znver4 and inspected, not run";
  return "znver4";
}

llvm::Expected<std::unique_ptr<CompiledKernel>>
compileUncached(const KernelSpec &spec, llvm::StringRef target,
                std::string &warnings,
                llvm::ArrayRef<std::string> withoutFeatures,
                llvm::StringRef isa) {
  JitOptions options;
  options.cacheDir = "";
  options.target = target.str();
  options.withoutFeatures = withoutFeatures;
  options.isa = isa.str();
  llvm::raw_string_ostream ws(warnings);
  options.warnings = &ws;
  return compileKernel(spec, options);
}

void expectTensorized(const CompiledKernel &k, const KernelSpec &spec,
                      double macsPerInstruction, bool innermost) {
  expectTensorized(k.object(), k.name(), k.mnemonic(), spec, macsPerInstruction,
                   innermost);
}

namespace {

/// The addresses of the functions among `functions` that run `mnemonic`,
/// themselves or through the functions they call.
std::set<uint64_t> running(llvm::ArrayRef<DecodedFunction> functions,
                           llvm::StringRef mnemonic) {
  std::set<uint64_t> out;
  for (bool grew = true; grew;) {
    grew = false;
    for (const DecodedFunction &f : functions)
      if (!out.count(f.address) &&
          llvm::any_of(f.insts, [&](const DecodedInst &in) {
            auto callee = callTarget(in);
            return in.mnemonic == mnemonic || (callee && out.count(*callee));
          }))
        grew = out.insert(f.address).second;
  }
  return out;
}

/// One function's loops, as expectTensorized reads them: whether one that
/// runs `mnemonic` (itself or by a call of a function in `runs`) is found.
bool expectLoopsOf(const DecodedFunction &f, llvm::StringRef mnemonic,
                   const std::set<uint64_t> &runs, const KernelSpec &spec,
                   bool innermost) {
  auto holds = [&](const DecodedInst &in) {
    auto callee = callTarget(in);
    return in.mnemonic == mnemonic || (callee && runs.count(*callee));
  };
  bool found = false;
  for (auto [first, last] : innermostLoops(f.insts)) {
    bool has = false, mul = false;
    std::string body;
    for (size_t i = first; i <= last; ++i) {
      const DecodedInst &in = f.insts[i];
      has |= holds(in);
      // An integer kernel's requantization multiplies floats (its
      // scales): that is no fallback of the contraction.
      llvm::StringRef m = in.mnemonic;
      bool scales =
          !spec.types.isFloat() && spec.epilogue.requant &&
          (m.starts_with("vmulp") || m.starts_with("vmuls") || m == "fmul");
      mul |= multiplies(in) && !scales;
      body += in.mnemonic + " ";
    }
    found |= has && innermost;
    EXPECT_TRUE(has || !mul)
        << f.name << ": an innermost loop multiplies without " << mnemonic.str()
        << ": " << body;
  }
  if (!innermost)
    for (auto [first, last] : allLoops(f.insts))
      for (size_t i = first; i <= last; ++i)
        found |= holds(f.insts[i]);
  return found;
}

} // namespace

void expectTensorized(llvm::MemoryBufferRef object, llvm::StringRef name,
                      llvm::StringRef mnemonic, const KernelSpec &spec,
                      double macsPerInstruction, bool innermost) {
  for (llvm::StringRef entry : {"", "_packed", "_packed_range"}) {
    std::string function = (name + entry).str();
    // The entry and the functions it calls (its blocks, outlined).
    auto functions = disassembleWithCallees(object, function, "");
    ASSERT_TRUE(bool(functions)) << llvm::toString(functions.takeError());
    std::set<uint64_t> runs = running(*functions, mnemonic);
    // No loop at all is fine for a tiny kernel: then the straight-line
    // check below applies.
    bool found = false;
    for (const DecodedFunction &f : *functions)
      found |= expectLoopsOf(f, mnemonic, runs, spec, innermost);
    // The plain entry calls NAME_packed (checked itself).
    bool delegates =
        entry.empty() && refersTo(object, name, (name + "_packed").str());
    // Small kernels are unrolled completely by LLVM: then the instruction
    // must appear often enough to do every multiply-accumulate even if each
    // copy ran once.
    if (!found && !delegates) {
      int64_t copies = 0;
      for (const DecodedFunction &f : *functions)
        copies += llvm::count_if(f.insts, [&](const DecodedInst &in) {
          return in.mnemonic == mnemonic;
        });
      EXPECT_GE(copies * macsPerInstruction, spec.ops() / 2)
          << function << ": no loop holds " << mnemonic.str()
          << " and straight-line code has only " << copies;
    }
  }
}

} // namespace tisa::test
