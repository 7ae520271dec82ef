//===- ArmVendors.cpp - count an Arm vendor library's call under qemu -----===//
//
// An aarch64 program, cross-compiled when the arm64 vendor packages are
// installed (see bench/CMakeLists.txt):
//
//   tisa-arm-vendors LIB TYPES MODE gemm M N K
//   tisa-arm-vendors LIB TYPES MODE conv N H W C F R S STRIDE PAD
//     LIB   onednn | acl | openblas
//     TYPES s8s8s32 | u8s8s32 | bf16bf16f32 | f32
//     MODE  prepacked (weights reordered once, outside the count) | plain
//
// It sets the call up, runs it once (JIT, first-run reshapes), then runs it
// again between two calls of tisa_count_mark, the part tisa's qemu plugin
// counts; then checks sampled outputs against a direct sum (exact: the
// inputs are small integers, exactly representable in every type). Prints
// "implementation: ..." and "checked: ..."; exit 3 with "unsupported: ..."
// when the library cannot do the problem, 1 on a wrong result.
//
//===----------------------------------------------------------------------===//

#include "Vendor.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

using namespace armvendors;

extern "C" __attribute__((noinline)) void tisa_count_mark(void) {
  __asm__ volatile("");
}

namespace {

[[noreturn]] void usage(const char *why) {
  std::fprintf(stderr,
               "tisa-arm-vendors: %s\nusage: tisa-arm-vendors "
               "onednn|acl|openblas s8s8s32|u8s8s32|bf16bf16f32|f32 "
               "prepacked|plain (gemm M N K | conv N H W C F R S STRIDE PAD)\n",
               why);
  std::exit(2);
}

int64_t positive(const char *text) {
  char *end = nullptr;
  long long v = std::strtoll(text, &end, 10);
  if (!*text || *end || v < 0 || (v == 0 && std::strcmp(text, "0") != 0))
    usage("extents must be non-negative integers");
  return v;
}

Problem parse(int argc, char **argv) {
  if (argc < 5)
    usage("too few arguments");
  Problem p;
  std::string types = argv[2], mode = argv[3], op = argv[4];
  if (types == "s8s8s32") p.types = Types::S8S8S32;
  else if (types == "u8s8s32") p.types = Types::U8S8S32;
  else if (types == "bf16bf16f32") p.types = Types::BF16BF16F32;
  else if (types == "f32") p.types = Types::F32;
  else usage("unknown types");
  if (mode != "prepacked" && mode != "plain")
    usage("the mode is prepacked or plain");
  p.prePacked = mode == "prepacked";
  if (op == "gemm" && argc == 8) {
    p.m = positive(argv[5]), p.n = positive(argv[6]), p.k = positive(argv[7]);
  } else if (op == "conv" && argc == 14) {
    p.conv = true;
    int64_t *fields[] = {&p.batch, &p.h, &p.w, &p.c, &p.f,
                         &p.r,     &p.s, &p.stride, &p.pad};
    for (int i = 0; i < 9; ++i)
      *fields[i] = positive(argv[5 + i]);
    if (p.stride < 1 || p.outH() < 1 || p.outW() < 1)
      usage("the convolution has no output");
    p.m = p.batch * p.outH() * p.outW(), p.n = p.f, p.k = p.r * p.s * p.c;
  } else {
    usage("expected gemm M N K or conv N H W C F R S STRIDE PAD");
  }
  return p;
}

size_t elementBytes(Types t) {
  return t == Types::BF16BF16F32 ? 2 : t == Types::F32 ? 4 : 1;
}

/// Small integers: exact in every type, so every sum is exact.
int sample(std::mt19937 &rng, Types t, bool first) {
  if (t == Types::U8S8S32 && first)
    return int(rng() % 256);
  if (t == Types::S8S8S32 || t == Types::U8S8S32)
    return int(rng() % 256) - 128;
  return int(rng() % 9) - 4;
}

void store(uint8_t *at, Types t, int v) {
  if (t == Types::BF16BF16F32) {
    float f = float(v);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    uint16_t high = uint16_t(bits >> 16); // exact: a small integer
    std::memcpy(at, &high, 2);
  } else if (t == Types::F32) {
    float f = float(v);
    std::memcpy(at, &f, 4);
  } else {
    *at = uint8_t(v);
  }
}

int64_t inputElements(const Problem &p, bool first) {
  if (!p.conv)
    return first ? p.m * p.k : p.k * p.n;
  return first ? p.batch * p.h * p.w * p.c : p.r * p.s * p.c * p.f;
}

Data makeData(const Problem &p, std::vector<int> &av, std::vector<int> &bv) {
  std::mt19937 rng(42);
  Data d;
  size_t e = elementBytes(p.types);
  av.resize(inputElements(p, true));
  bv.resize(inputElements(p, false));
  d.a.resize(av.size() * e);
  d.b.resize(bv.size() * e);
  for (size_t i = 0; i < av.size(); ++i)
    store(&d.a[i * e], p.types, av[i] = sample(rng, p.types, true));
  for (size_t i = 0; i < bv.size(); ++i)
    store(&d.b[i * e], p.types, bv[i] = sample(rng, p.types, false));
  return d;
}

/// The exact value of output (row, col).
int64_t expected(const Problem &p, const std::vector<int> &a,
                 const std::vector<int> &b, int64_t row, int64_t col) {
  int64_t sum = 0;
  if (!p.conv) {
    for (int64_t kk = 0; kk < p.k; ++kk)
      sum += int64_t(a[row * p.k + kk]) * b[kk * p.n + col];
    return sum;
  }
  int64_t ow = row % p.outW(), oh = row / p.outW() % p.outH(),
          nb = row / (p.outW() * p.outH());
  for (int64_t r = 0; r < p.r; ++r)
    for (int64_t s = 0; s < p.s; ++s) {
      int64_t y = oh * p.stride + r - p.pad, x = ow * p.stride + s - p.pad;
      if (y < 0 || y >= p.h || x < 0 || x >= p.w)
        continue;
      for (int64_t c = 0; c < p.c; ++c)
        sum += int64_t(a[((nb * p.h + y) * p.w + x) * p.c + c]) *
               b[((r * p.s + s) * p.c + c) * p.f + col];
    }
  return sum;
}

/// Compares 512 sampled outputs (and the corners); prints the first miss.
bool check(const Problem &p, const Data &d, const std::vector<int> &a,
           const std::vector<int> &b) {
  std::mt19937 rng(7);
  bool ints = p.types == Types::S8S8S32 || p.types == Types::U8S8S32;
  for (int i = 0; i < 516; ++i) {
    int64_t row = i < 4 ? (i % 2) * (p.m - 1) : int64_t(rng() % p.m),
            col = i < 4 ? (i / 2) * (p.n - 1) : int64_t(rng() % p.n);
    int64_t want = expected(p, a, b, row, col);
    double got = ints ? double(d.outI32[row * p.n + col])
                      : double(d.outF32[row * p.n + col]);
    if (got != double(want)) {
      std::printf("wrong: output (%lld, %lld) is %.1f, expected %lld\n",
                  (long long)row, (long long)col, got, (long long)want);
      return false;
    }
  }
  std::printf("checked: 516 sampled outputs exact\n");
  return true;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2)
    usage("too few arguments");
  Problem p = parse(argc, argv);
  std::vector<int> av, bv;
  Data data = makeData(p, av, bv);
  std::string lib = argv[1], why;
  std::unique_ptr<Call> call;
  if (lib == "onednn") call = makeOnednn(p, data, why);
  else if (lib == "acl") call = makeAcl(p, data, why);
  else if (lib == "openblas") call = makeOpenblas(p, data, why);
  else usage("unknown library");
  if (!call) {
    std::printf("unsupported: %s\n", why.c_str());
    return 3;
  }
  std::printf("implementation: %s\n", call->implementation().c_str());
  call->run();
  tisa_count_mark();
  call->run();
  tisa_count_mark();
  call->readOutput(data);
  return check(p, data, av, bv) ? 0 : 1;
}
