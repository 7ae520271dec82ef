//===- ScheduleTest.cpp - a schedule as text and as #tisa.schedule --------===//
//
// A schedule travels as text (the --schedule option, tuned schedules, cache
// keys) and as the #tisa.schedule attribute -tisa-select-plan records. Each
// field set alone, and all at once, must come back whole from both forms, or
// a pass would run another schedule than the one chosen.
//
//===----------------------------------------------------------------------===//

#include "tisa/Dialect/TisaAttrs.h"
#include "tisa/Semantics/DescriptionSet.h"
#include "tisa/Transforms/Tensorize.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace tisa;

namespace {

/// Schedules that differ from the default in one field each, then in all.
std::vector<std::pair<std::string, Schedule>> schedulesToRoundTrip() {
  std::vector<std::pair<std::string, Schedule>> out;
  Schedule base = Schedule::untiled(3);
  auto with = [&](std::string name, auto set) {
    Schedule s = base;
    set(s);
    out.emplace_back(std::move(name), s);
  };
  with("unroll", [](Schedule &s) { s.unroll = {8, 2, 1}; });
  with("block", [](Schedule &s) { s.laneBlock = 240; });
  with("lanes_outer", [](Schedule &s) { s.lanesOuter = true; });
  with("panel", [](Schedule &s) { s.panel = 80; });
  with("fuse", [](Schedule &s) { s.fuse = true; });
  with("edge", [](Schedule &s) { s.edge = 3; });
  with("kunroll", [](Schedule &s) { s.reductionUnroll = 4; });
  with("hold", [](Schedule &s) { s.hold = 2; });
  with("even_rows", [](Schedule &s) { s.evenRows = true; });
  with("every field", [](Schedule &s) {
    s.unroll = {1, 6, 4};
    s.laneBlock = 128;
    s.lanesOuter = true;
    s.panel = 32;
    s.fuse = true;
    s.edge = 2;
    s.reductionUnroll = 2;
    s.hold = 1;
    s.evenRows = true;
  });
  return out;
}

class ScheduleTest : public ::testing::Test {
protected:
  ScheduleTest() {
    DialectRegistry registry;
    registerDescriptionDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }
  MLIRContext ctx;
};

TEST_F(ScheduleTest, EveryFieldComesBackFromItsText) {
  for (const auto &[name, s] : schedulesToRoundTrip()) {
    std::string why;
    FailureOr<Schedule> back = Schedule::parse(s.text(), why);
    ASSERT_TRUE(succeeded(back)) << name << ": " << s.text() << ": " << why;
    EXPECT_TRUE(*back == s) << name << ": " << s.text() << " read back as "
                            << back->text();
  }
}

TEST_F(ScheduleTest, EveryFieldComesBackFromItsAttribute) {
  for (const auto &[name, s] : schedulesToRoundTrip()) {
    ScheduleAttr attr = s.attr(&ctx);
    Schedule back = Schedule::fromAttr(attr);
    EXPECT_TRUE(back == s) << name << ": " << s.text() << " read back as "
                           << back.text();
    // And through the attribute's printed form, as a lit test reads it.
    std::string printed;
    llvm::raw_string_ostream os(printed);
    Attribute(attr).print(os);
    Attribute parsed = parseAttribute(printed, &ctx);
    EXPECT_EQ(parsed, Attribute(attr)) << name << ": " << printed;
  }
}

TEST_F(ScheduleTest, DefaultsAreLeftOutOfTheAttribute) {
  std::string printed;
  llvm::raw_string_ostream os(printed);
  Attribute(Schedule::untiled(3).attr(&ctx)).print(os);
  EXPECT_EQ(printed, "#tisa.schedule<unroll = [1, 1, 1]>");
}

TEST_F(ScheduleTest, TextOutOfRangeSaysWhichField) {
  struct Bad {
    const char *text;
    const char *why;
  } bad[] = {
      {"block=0", "no unroll field"},
      {"unroll=0x1", "unroll factor '0'"},
      {"unroll=65", "unroll factor '65'"},
      {"unroll=1,unroll=2", "'unroll' is given twice"},
      {"unroll=1,order=lanes", "order 'lanes'"},
      {"unroll=1,kunroll=17", "kunroll '17'"},
      {"unroll=1,hold=-1", "hold '-1'"},
      {"unroll=1,edge=65", "edge '65'"},
      {"unroll=1,even=2", "even '2'"},
      {"unroll=1,panel=x", "panel 'x'"},
      {"unroll=1,tile=4", "unknown schedule field 'tile'"},
  };
  for (const Bad &b : bad) {
    std::string why;
    EXPECT_TRUE(failed(Schedule::parse(b.text, why))) << b.text;
    EXPECT_NE(why.find(b.why), std::string::npos) << b.text << ": " << why;
  }
}

} // namespace
