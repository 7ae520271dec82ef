//===- ArmCounts.cpp - tisa's Arm kernels and Arm vendor libraries, counted ===//
//
// tisa-arm-counts: for each workload, types and Neoverse target (and SVE
// at 512 bits, where oneDNN JITs for SVE too), executed
// instructions per multiply-accumulate of one call, counted under
// qemu-aarch64 by tisa's TCG plugin (not times: nothing here runs on Arm
// hardware):
//   - tisa's kernel: the pre-packed call, and the plain call (which packs the
//     weights itself); the share of the tensor instruction and how far the
//     tensor-instruction count is above the minimum;
//   - the Arm vendor libraries Debian packages for arm64, run by
//     tisa-arm-vendors under the same qemu CPU model on the same shape:
//     oneDNN (matmul, convolution), the Arm Compute Library (GEMM),
//     OpenBLAS (sgemm: f32, shown beside the bf16 rows). Pre-packed: the
//     library's weights layout made once outside the count; plain: the
//     weights in their plain layout every call, packing included (oneDNN
//     reorders them in the call, ACL reshapes B every run, OpenBLAS packs
//     inside every sgemm).
// Every vendor result is checked (sampled, exact) in the counted run; tisa's
// kernel is checked against the reference before it is counted.
//
//   tisa-arm-counts [--quick] [--filter TEXT] [--target TEXT] [--report DIR]
//
//===----------------------------------------------------------------------===//

#include "Report.h"

#include "tisa/Kernels/Kernels.h"
#include "tisa/Kernels/QemuCheck.h"
#include "tisa/Semantics/DescriptionSet.h"
#include "tisa/Targets/AArch64Runner.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <optional>

using namespace tisa;

namespace {

constexpr uint64_t kSeed = 1;

struct Workload {
  std::string label;
  KernelSpec spec;
};

/// The workloads: GEMMs of 256 and up, BERT-base, the ResNet-50 3x3
/// layers; --quick: two small ones for the test suite.
std::vector<Workload> workloads(bool quick) {
  using K = KernelSpec;
  if (quick)
    return {{"gemm 64x64x64", K::makeGemm(64, 64, 64)},
            {"conv 8x8x16->16 3x3", K::makeConv2d(1, 8, 8, 16, 16, 3, 1, 1)}};
  return {{"gemm 256^3", K::makeGemm(256, 256, 256)},
          {"gemm 512^3", K::makeGemm(512, 512, 512)},
          {"bert 128x768x768", K::makeGemm(128, 768, 768)},
          {"bert 128x3072x768", K::makeGemm(128, 3072, 768)},
          {"bert 128x768x3072", K::makeGemm(128, 768, 3072)},
          {"resnet 56x56x64 3x3", K::makeConv2d(1, 56, 56, 64, 64, 3, 1, 1)},
          {"resnet 28x28x128 3x3", K::makeConv2d(1, 28, 28, 128, 128, 3, 1, 1)},
          {"resnet 14x14x256 3x3", K::makeConv2d(1, 14, 14, 256, 256, 3, 1, 1)},
          {"resnet 7x7x512 3x3", K::makeConv2d(1, 7, 7, 512, 512, 3, 1, 1)}};
}

/// What tisa-arm-vendors is called with for one library and mode.
struct Vendor {
  const char *lib;
  const char *name;
  bool f32Only; ///< OpenBLAS: its sgemm beside the bf16 rows
};
constexpr Vendor kVendors[] = {{"onednn", "oneDNN", false},
                               {"acl", "ACL", false},
                               {"openblas", "OpenBLAS f32", true}};

/// One counted call: instructions per multiply-accumulate, or why none.
struct Count {
  double perMac = 0;
  std::string note;
  std::string implementation; ///< what the library says it ran
};

/// A vendor call longer than this under qemu is reported, not waited for
/// (oneDNN's reference convolution executes about 300 instructions per
/// multiply-accumulate).
constexpr unsigned kVendorTimeoutSeconds = 300;

struct Row {
  std::string workload, types, target;
  Count tisaPacked, tisaPlain;
  /// The pre-packed call's instructions, exact; its tensor instructions'
  /// share; those over the minimum; all of them over the minimum.
  uint64_t total = 0;
  double share = 0, overMinimum = 0, totalOverMinimum = 0;
  std::string instruction; ///< the description (neon.smmla, sve.smmla)
  std::vector<Count> vendorPacked, vendorPlain;
  double bestVendorPacked() const {
    double best = 0;
    for (const Count &c : vendorPacked)
      if (c.perMac > 0 && (best == 0 || c.perMac < best))
        best = c.perMac;
    return best;
  }
};


/// A column of targets: a Neoverse target file, and for an SVE one the
/// vector length qemu runs at and the instruction asked for.
struct ArmTarget {
  std::string label, target;
  unsigned sveBits = 0; ///< 0: the target's (qemuOptionsFor)
  std::string isa = "auto";
  /// Only these types (empty: all the target executes).
  std::vector<std::string> types;
};

/// neoverse-n1 (NEON dot), neoverse-v1 (its cost model's pick at its own
/// vector length, 256 bits), neoverse-v2 (likewise, 128 bits), and SVE at
/// 512 bits with neoverse-v1's data and its cost model's pick (the matrix
/// multiplies smmla and usmmla, or the dot products): oneDNN 2.6 JITs for
/// SVE at that length only.
std::vector<ArmTarget> armTargets() {
  return {{"neoverse-n1", "neoverse-n1", 0, "auto", {}},
          {"neoverse-v1", "neoverse-v1", 0, "auto", {}},
          {"neoverse-v2", "neoverse-v2", 0, "auto", {}},
          {"SVE-512", "neoverse-v1", 512, "auto", {"s8,s8,s32", "u8,s8,s32"}}};
}

aarch64::RunOptions qemuFor(const ArmTarget &t, const Target &target) {
  aarch64::RunOptions qemu = qemuOptionsFor(target);
  if (t.sveBits)
    qemu.sveBits = t.sveBits;
  return qemu;
}

/// tisa's kernel for `spec` on `t`: checked, then counted.
void countTisa(LoadedDescriptions &d, const KernelSpec &spec,
               const ArmTarget &t, const Target &target, Row &row) {
  GenerateOptions options;
  options.isa = t.isa;
  auto k = generateKernel(d.ctx, spec, d.all, target, options);
  if (!k) {
    row.tisaPacked.note = llvm::toString(k.takeError());
    return;
  }
  row.instruction = k->instruction.empty() ? "plain code" : k->instruction;
  aarch64::RunOptions qemu = qemuFor(t, target);
  auto linked = QemuKernel::link(*k, spec);
  if (!linked) {
    row.tisaPacked.note = llvm::toString(linked.takeError());
    return;
  }
  int runs = 0;
  if (std::string diff = linked->check(spec, qemu, kSeed, runs);
      !diff.empty()) {
    row.tisaPacked.note = "wrong: " + diff;
    return;
  }
  auto counts = linked->count(spec, qemu, kSeed);
  if (!counts) {
    row.tisaPacked.note = llvm::toString(counts.takeError());
    return;
  }
  double macs = spec.ops() / 2;
  row.tisaPacked.perMac = counts->total / macs;
  row.tisaPlain.perMac = counts->plainTotal / macs;
  row.share = double(counts->tensor) / double(std::max<uint64_t>(1, counts->total));
  row.total = counts->total;
  row.overMinimum = counts->minimum > 0 ? counts->tensor / counts->minimum : 0;
  row.totalOverMinimum =
      counts->minimum > 0 ? counts->total / counts->minimum : 0;
}

std::string vendorsExecutable() {
  if (std::optional<std::string> env =
          llvm::sys::Process::GetEnv("TISA_ARM_VENDORS"))
    return *env;
  return TISA_ARM_VENDORS;
}

std::vector<std::string> vendorArguments(const Vendor &v,
                                         const KernelSpec &spec,
                                         const std::string &types,
                                         bool prePacked) {
  std::vector<std::string> args = {v.lib, v.f32Only ? "f32" : types,
                                   prePacked ? "prepacked" : "plain"};
  auto add = [&](std::initializer_list<int64_t> values) {
    for (int64_t x : values)
      args.push_back(std::to_string(x));
  };
  if (spec.op == KernelSpec::Op::Gemm) {
    args.push_back("gemm");
    add({spec.m, spec.n, spec.k});
  } else {
    args.push_back("conv");
    add({spec.batch, spec.h, spec.w, spec.c, spec.filters, spec.r, spec.s,
         spec.stride, spec.pad});
  }
  return args;
}

/// One vendor call counted; `failed` is set when its result was wrong or it
/// could not run.
Count countVendor(const Vendor &v, const KernelSpec &spec,
                  const std::string &types, bool prePacked,
                  const aarch64::RunOptions &qemu, bool &failed) {
  Count c;
  std::string exe = vendorsExecutable();
  if (exe.empty() || !llvm::sys::fs::exists(exe)) {
    c.note = "tisa-arm-vendors not built (install the arm64 vendor packages: "
             "scripts/setup.sh)";
    return c;
  }
  aarch64::RunOptions options = qemu;
  // One thread; OpenBLAS's kernels for the CPU (0.3.21 has none newer than
  // the V1's: the V2 takes those).
  options.environment = {"OMP_NUM_THREADS=1", "OPENBLAS_NUM_THREADS=1",
                         qemu.cpu == "neoverse-n1"
                             ? "OPENBLAS_CORETYPE=NEOVERSEN1"
                             : "OPENBLAS_CORETYPE=NEOVERSEV1"};
  options.timeoutSeconds = kVendorTimeoutSeconds;
  auto run = aarch64::runCounted(
      exe, vendorArguments(v, spec, types, prePacked), options);
  if (!run) {
    std::string message = llvm::toString(run.takeError());
    size_t at = message.find("unsupported: ");
    if (at != std::string::npos) {
      c.note = llvm::StringRef(message).drop_front(at + 13).split('\n').first.str();
    } else if (message.find("timed out") != std::string::npos) {
      c.note = llvm::formatv("{0} {1} {2}: not counted, more than {3} s under "
                             "qemu",
                             v.name, spec.symbol(), prePacked ? "pre-packed" : "plain",
                             kVendorTimeoutSeconds)
                   .str();
    } else {
      c.note = message;
      failed = true;
    }
    return c;
  }
  c.perMac = run->parts.front().total / (spec.ops() / 2);
  llvm::StringRef out = run->output;
  size_t at = out.find("implementation: ");
  if (at != llvm::StringRef::npos)
    c.implementation = out.drop_front(at + 16).split('\n').first.str();
  return c;
}

std::string cell(const Count &c) {
  return c.perMac > 0 ? llvm::formatv("{0:f3}", c.perMac).str() : "-";
}

std::string table(const std::vector<Row> &rows) {
  std::string md;
  llvm::raw_string_ostream os(md);
  os << "| workload | types | target | tisa instruction | tisa pre-packed | "
        "instructions | over the minimum | tisa plain | share | its count over "
        "the minimum |";
  for (const Vendor &v : kVendors)
    os << " " << v.name << " pre-packed | " << v.name << " plain |";
  os << " best vendor / tisa |\n|---|---|---|---|---|---|---|---|---|---|";
  for (size_t i = 0; i < std::size(kVendors); ++i)
    os << "---|---|";
  os << "---|\n";
  for (const Row &r : rows) {
    os << "| " << r.workload << " | " << r.types << " | " << r.target << " | "
       << r.instruction << " | " << cell(r.tisaPacked) << " | "
       << (r.total ? std::to_string(r.total) : "-") << " | "
       << llvm::formatv("{0:f2}x", r.totalOverMinimum) << " | "
       << cell(r.tisaPlain) << " | "
       << llvm::formatv("{0:f1}% | {1:f2}x |", 100 * r.share, r.overMinimum);
    for (size_t i = 0; i < r.vendorPacked.size(); ++i)
      os << " " << cell(r.vendorPacked[i]) << " | " << cell(r.vendorPlain[i])
         << " |";
    double best = r.bestVendorPacked();
    if (best > 0 && r.tisaPacked.perMac > 0)
      os << llvm::formatv(" {0:f2}x |\n", best / r.tisaPacked.perMac);
    else
      os << " - |\n";
  }
  std::vector<std::string> notes;
  for (const Row &r : rows) {
    if (!r.tisaPacked.note.empty())
      notes.push_back(r.workload + " " + r.types + " " + r.target +
                      ", tisa: " + r.tisaPacked.note);
    for (size_t i = 0; i < r.vendorPacked.size(); ++i)
      for (const Count *c : {&r.vendorPacked[i], &r.vendorPlain[i]})
        if (!c->note.empty())
          notes.push_back(std::string(kVendors[i].name) + ": " + c->note);
  }
  std::vector<std::string> ran;
  for (const Row &r : rows)
    for (size_t i = 0; i < r.vendorPacked.size(); ++i)
      for (const Count *c : {&r.vendorPacked[i], &r.vendorPlain[i]})
        if (!c->implementation.empty())
          ran.push_back(r.workload.substr(0, r.workload.find(' ')) + " " +
                        r.types + ": " + c->implementation);
  for (auto *list : {&notes, &ran}) {
    llvm::sort(*list);
    list->erase(std::unique(list->begin(), list->end()), list->end());
  }
  if (!ran.empty())
    os << "\nWhat the vendor libraries ran:\n\n";
  for (const std::string &n : ran)
    os << "- " << n << "\n";
  if (!notes.empty())
    os << "\nNot counted:\n\n";
  for (const std::string &n : notes)
    os << "- " << n << "\n";
  return md;
}

bench::RatioChart chart(const std::vector<Row> &rows,
                        const std::vector<std::string> &targets) {
  bench::RatioChart c;
  c.title = "best Arm vendor / tisa, instructions per MAC of a pre-packed "
            "call under qemu (right of 1x: tisa executes fewer)";
  c.series = targets;
  for (const Row &r : rows) {
    std::string label = r.workload + " " + r.types;
    if (c.bars.empty() || c.bars.back().label != label)
      c.bars.push_back({label, std::vector<double>(targets.size(), 0)});
    size_t t = llvm::find(targets, r.target) - targets.begin();
    double best = r.bestVendorPacked();
    if (t < targets.size() && best > 0 && r.tisaPacked.perMac > 0)
      c.bars.back().ratio[t] = best / r.tisaPacked.perMac;
  }
  return c;
}

struct Settings {
  bool quick = false;
  std::string filter, targetFilter, reportDir;
};

int usage(const char *why) {
  llvm::errs()
      << "tisa-arm-counts: " << why
      << "\nusage: tisa-arm-counts [--quick] [--filter TEXT] "
         "[--target TEXT] [--report DIR]\n"
         "  --quick        two small workloads (the test suite's)\n"
         "  --filter TEXT  only workloads whose label contains TEXT\n"
         "  --target TEXT  only targets whose label contains TEXT\n"
         "                 (neoverse-n1, neoverse-v1, neoverse-v2, SVE-512)\n"
         "  --report DIR   write counts.md and chart.svg to DIR\n";
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  Settings settings;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef a = argv[i];
    if (a == "--quick")
      settings.quick = true;
    else if ((a == "--filter" || a == "--report" || a == "--target") &&
             i + 1 < argc)
      (a == "--filter"   ? settings.filter
       : a == "--target" ? settings.targetFilter
                         : settings.reportDir) = argv[++i];
    else if (a == "--help" || a == "-h")
      return usage("counts executed instructions under qemu-aarch64"), 0;
    else
      return usage(("unknown argument '" + a + "'").str().c_str());
  }
  if (std::string why = aarch64::unavailableReason(); !why.empty()) {
    llvm::outs() << "tisa-arm-counts: skipped: cannot run aarch64 code here: "
                 << why << "\n";
    return 77;
  }
  std::string vendors = vendorsExecutable();
  if (settings.quick && (vendors.empty() || !llvm::sys::fs::exists(vendors))) {
    llvm::outs() << "tisa-arm-counts: skipped: tisa-arm-vendors is not built "
                    "(install the arm64 vendor packages: scripts/setup.sh)\n";
    return 77;
  }
  LoadedDescriptions d;
  if (!d.ok) {
    llvm::errs() << d.errors;
    return 1;
  }
  std::vector<ArmTarget> targets;
  std::vector<std::string> targetNames;
  for (const ArmTarget &t : armTargets())
    if (llvm::StringRef(t.label).contains(settings.targetFilter)) {
      targets.push_back(t);
      targetNames.push_back(t.label);
    }
  std::vector<Row> rows;
  bool failed = false;
  for (const Workload &w : workloads(settings.quick)) {
    if (!llvm::StringRef(w.label).contains(settings.filter))
      continue;
    for (const char *types : {"s8,s8,s32", "u8,s8,s32", "bf16,bf16,f32"})
      for (const ArmTarget &t : targets) {
        KernelSpec spec = w.spec;
        spec.types = cantFail(KernelTypes::parse(types));
        if (spec.types.isFloat() && t.target == "neoverse-n1")
          continue; // no bf16 instruction on the N1
        if (settings.quick && spec.types.a == ElementType::U8)
          continue;
        if (!t.types.empty() && !llvm::is_contained(t.types, types))
          continue;
        auto target = loadTarget(t.target);
        if (!target) {
          llvm::errs() << llvm::toString(target.takeError()) << "\n";
          return 1;
        }
        Row row;
        row.workload = w.label;
        row.types = spec.types.text();
        row.target = t.label;
        countTisa(d, spec, t, *target, row);
        failed |= row.tisaPacked.perMac <= 0;
        for (const Vendor &v : kVendors) {
          bool skip = v.f32Only && !spec.types.isFloat();
          for (bool prePacked : {true, false}) {
            Count c = skip ? Count()
                           : countVendor(v, spec, spec.types.text(), prePacked,
                                         qemuFor(t, *target), failed);
            (prePacked ? row.vendorPacked : row.vendorPlain).push_back(c);
          }
        }
        llvm::outs() << llvm::formatv(
            "{0} {1} {2}: tisa {3} per MAC ({4}){5}\n", row.workload,
            row.types, row.target, cell(row.tisaPacked), row.instruction,
            row.bestVendorPacked() > 0
                ? llvm::formatv(", best vendor {0:f3}", row.bestVendorPacked())
                      .str()
                : "");
        llvm::outs().flush();
        rows.push_back(std::move(row));
      }
  }
  std::string md = table(rows);
  llvm::outs() << "\n" << md;
  if (!settings.reportDir.empty())
    bench::writeReportFiles(
        "tisa-arm-counts", settings.reportDir,
        {{"counts.md", md},
         {"chart.svg", bench::renderSvg(chart(rows, targetNames))}});
  return failed ? 1 : 0;
}
