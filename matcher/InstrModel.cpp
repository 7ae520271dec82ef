//===- InstrModel.cpp - the instruction side of the memory match ----------===//
//
// What the matcher needs of a description, computed once per description:
// its loops and their extents, and per operand the register image (the
// instruction loop values at every register position, from the layout) as
// rows of a given width. unitName names runs of program loops in plans.
//
//===----------------------------------------------------------------------===//

#include "MatcherImpl.h"
#include "tisa/Semantics/Layout.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace tisa::detail {

std::string unitName(const Contraction &c, llvm::ArrayRef<unsigned> loops) {
  if (loops.empty())
    return "(padding)";
  std::string s;
  for (unsigned l : loops) {
    if (!s.empty())
      s += ".";
    s += c.loops[l].name;
  }
  return s;
}

//===----------------------------------------------------------------------===//
// The instruction side
//===----------------------------------------------------------------------===//

InstrModel buildInstrModel(const Description &d,
                           std::optional<unsigned> vectorBits) {
  InstrModel m;
  m.desc = &d;
  linalg::GenericOp body = d.body;
  SmallVector<int64_t> ranges = body.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iters = body.getIteratorTypesArray();
  SmallVector<AffineMap> maps = body.getIndexingMapsArray();
  unsigned n = ranges.size();
  for (unsigned i = 0; i < n; ++i) {
    m.reduction.push_back(iters[i] == utils::IteratorType::reduction);
    m.extent.push_back(ranges[i]);
  }
  // Conventional names: the reduction is k; a parallel loop only operand 0
  // indexes is m, the others n.
  unsigned lhs = d.mulAcc.lhsInput;
  for (unsigned i = 0; i < n; ++i) {
    if (m.reduction[i]) {
      m.names.push_back("k");
      continue;
    }
    bool in0 = maps[lhs].isFunctionOfDim(i);
    bool in1 = maps[1 - lhs].isFunctionOfDim(i);
    m.names.push_back(in0 && !in1 ? "m" : "n");
  }
  // A known single segment (128-bit SVE) adds no loop.
  bool oneSegment = vectorBits == 128u;
  if (d.isScalable() && !oneSegment) {
    m.segLoop = n;
    m.reduction.push_back(false);
    m.names.push_back(kSegmentLoop.str());
    if (vectorBits && *vectorBits >= 128) {
      m.segments = *vectorBits / 128;
    } else {
      m.segments = 2;
      m.segmentsKnown = false;
    }
    m.extent.push_back(m.segments);
  }
  m.macsPerIssue = 1;
  for (int64_t e : m.extent)
    m.macsPerIssue *= e;

  for (unsigned j = 0; j < 3; ++j) {
    InstrModel::Operand &op = m.operands[j];
    const OperandRegister &reg = d.registers[j];
    op.cls = reg.cls;
    op.uses.assign(m.extent.size(), false);
    for (AffineExpr e : maps[j].getResults())
      op.uses[cast<AffineDimExpr>(e).getPosition()] = true;
    if (m.segLoop >= 0)
      op.uses[m.segLoop] = true;
    op.elemBytes =
        std::max<unsigned>(1, reg.type.getElementTypeBitWidth() / 8);
    ArrayRef<int64_t> shape = reg.type.getShape();
    int64_t segs = m.segLoop >= 0 ? m.segments : 1;
    if (shape.size() == 2) {
      op.rows = shape[0];
      op.width = shape[1];
    } else {
      op.rows = 1;
      op.width = shape[0] * segs;
    }
    int64_t perSegment = reg.type.getNumElements();
    op.image.assign(op.rows * op.width, {});
    op.imageBytes = op.rows * op.width * op.elemBytes;
    ArrayRef<int64_t> semShape = d.operandShape(j);
    AffineMap map = maps[j];
    forEachIndex(semShape, [&](ArrayRef<int64_t> idx) {
      int64_t pos = registerElementIndex(d, j, idx);
      for (int64_t s = 0; s < segs; ++s) {
        SmallVector<int64_t, 4> t(m.extent.size(), 0);
        for (auto [r, e] : llvm::enumerate(map.getResults()))
          t[cast<AffineDimExpr>(e).getPosition()] = idx[r];
        if (m.segLoop >= 0)
          t[m.segLoop] = s;
        op.image[s * perSegment + pos] = std::move(t);
      }
    });
  }
  return m;
}

} // namespace tisa::detail
