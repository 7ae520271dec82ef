//===- Acl.cpp - the Arm Compute Library's GEMMs for tisa-arm-vendors -----===//

#include "Vendor.h"

#include "arm_compute/runtime/NEON/NEFunctions.h"
#include "arm_compute/runtime/Tensor.h"

#include <cstring>

namespace armvendors {
namespace {

using namespace arm_compute;

/// NEGEMMLowpMatrixMultiplyCore (8-bit, s32 result; zero offsets) or NEGEMM
/// (bf16, f32). Pre-packed: B is reshaped on the first run only
/// (GEMMInfo's reshape_b_only_on_first_run); plain: on every run.
class AclCall : public Call {
public:
  AclCall(const Problem &p, const Data &d, std::string &why) : problem(p) {
    // One thread, as every count here (ACL's scheduler otherwise starts one
    // per host core, and the counting plugin's counters are not atomic).
    Scheduler::get().set_num_threads(1);
    DataType ta, tb, tc;
    bool lowp = p.types == Types::S8S8S32 || p.types == Types::U8S8S32;
    switch (p.types) {
    case Types::S8S8S32:
      ta = tb = DataType::QASYMM8_SIGNED, tc = DataType::S32;
      break;
    case Types::U8S8S32: // B as u8 = s8 + 128; ACL adds the offset
      ta = tb = DataType::QASYMM8, tc = DataType::S32;
      break;
    case Types::BF16BF16F32:
      ta = tb = DataType::BFLOAT16, tc = DataType::F32;
      break;
    default:
      ta = tb = tc = DataType::F32;
      break;
    }
    bool biasedB = p.types == Types::U8S8S32;
    a.allocator()->init(
        TensorInfo(TensorShape(p.k, p.m), 1, ta, QuantizationInfo(1.0f, 0)));
    b.allocator()->init(TensorInfo(TensorShape(p.n, p.k), 1, tb,
                                   QuantizationInfo(1.0f, biasedB ? -128 : 0)));
    c.allocator()->init(TensorInfo(TensorShape(p.n, p.m), 1, tc));
    GEMMInfo info(false, false, /*reshape_b_only_on_first_run=*/p.prePacked);
    Status status =
        lowp ? NEGEMMLowpMatrixMultiplyCore::validate(a.info(), b.info(),
                                                      nullptr, c.info(), info)
             : NEGEMM::validate(a.info(), b.info(), nullptr, c.info(), 1.0f,
                                0.0f, info);
    if (status.error_code() != ErrorCode::OK) {
      why = status.error_description();
      return;
    }
    if (lowp) {
      auto g = std::make_unique<NEGEMMLowpMatrixMultiplyCore>();
      g->configure(&a, &b, nullptr, &c, info);
      function = std::move(g);
      name = "NEGEMMLowpMatrixMultiplyCore";
    } else {
      auto g = std::make_unique<NEGEMM>();
      g->configure(&a, &b, nullptr, &c, 1.0f, 0.0f, info);
      function = std::move(g);
      name = "NEGEMM";
    }
    a.allocator()->allocate();
    b.allocator()->allocate();
    c.allocator()->allocate();
    copyIn(a, d.a, p.k * elementBytes(), p.m);
    copyIn(b, d.b, p.n * elementBytes(), p.k);
    if (biasedB) // s8 v -> u8 v + 128
      for (int64_t row = 0; row < p.k; ++row)
        for (int64_t col = 0; col < p.n; ++col)
          rowStart(b, row)[col] ^= 0x80;
  }
  bool ok() const { return function != nullptr; }
  std::string implementation() const override {
    return "ACL " + name + (problem.prePacked ? " (B reshaped on the first run)"
                                              : " (B reshaped every run)");
  }
  void run() override { function->run(); }
  void readOutput(Data &d) override {
    size_t n = size_t(problem.m * problem.n);
    // Rows may be padded: copy row by row.
    bool ints = problem.types == Types::S8S8S32 ||
                problem.types == Types::U8S8S32;
    if (ints)
      d.outI32.resize(n);
    else
      d.outF32.resize(n);
    for (int64_t row = 0; row < problem.m; ++row) {
      void *to = ints ? (void *)&d.outI32[row * problem.n]
                      : (void *)&d.outF32[row * problem.n];
      std::memcpy(to, rowStart(c, row), size_t(problem.n) * 4);
    }
  }

private:
  /// Row `row` of a 2-D tensor, past any padding ACL gave it.
  static uint8_t *rowStart(Tensor &t, int64_t row) {
    return t.buffer() + t.info()->offset_first_element_in_bytes() +
           row * t.info()->strides_in_bytes()[1];
  }
  static void copyIn(Tensor &t, const std::vector<uint8_t> &from,
                     int64_t rowBytes, int64_t rows) {
    for (int64_t row = 0; row < rows; ++row)
      std::memcpy(rowStart(t, row), from.data() + row * rowBytes,
                  size_t(rowBytes));
  }
  size_t elementBytes() const {
    return problem.types == Types::BF16BF16F32 ? 2
           : problem.types == Types::F32      ? 4
                                              : 1;
  }


  Problem problem;
  Tensor a, b, c;
  std::unique_ptr<IFunction> function;
  std::string name;
};

} // namespace

std::unique_ptr<Call> makeAcl(const Problem &p, const Data &d,
                              std::string &why) {
  if (p.conv) {
    why = "ACL's 8-bit convolutions requantize to 8-bit outputs (no s32 "
          "result); not the same work";
    return nullptr;
  }
  auto call = std::make_unique<AclCall>(p, d, why);
  if (!call->ok())
    return nullptr;
  return call;
}

} // namespace armvendors
