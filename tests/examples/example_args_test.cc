// The CUDA examples' command line (examples/cuda/example_args.h): STEPS and
// --fixed in either order, --help, and what is refused, with the message
// that says so; an example without a fix refuses --fixed.
#include "examples/cuda/example_args.h"

#include <algorithm>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace example {
namespace {

constexpr ExampleInfo kWithFix{"sync_bound", 30, "no sync inside the step"};
constexpr ExampleInfo kWithoutFix{"gpu_bound", 10, nullptr};

// argv as main() gets it: the program's name, then `args`.
ParseResult Parse(const std::vector<const char*>& args,
                  const ExampleInfo& info) {
  std::vector<const char*> argv(args.size() + 1, "example");
  std::copy(args.begin(), args.end(), argv.begin() + 1);
  return ParseArgs(static_cast<int>(argv.size()), argv.data(), info);
}

TEST(ExampleArgs, DefaultsToTheUnfixedProgramAndItsSteps) {
  const ParseResult r = Parse({}, kWithFix);
  EXPECT_EQ(r.status, ParseStatus::kRun);
  EXPECT_EQ(r.args.steps, 30);
  EXPECT_EQ(r.args.variant, Variant::kAsIs);
}

TEST(ExampleArgs, StepsAndFixedInEitherOrder) {
  for (const auto& args : {std::vector<const char*>{"7", "--fixed"},
                           std::vector<const char*>{"--fixed", "7"}}) {
    const ParseResult r = Parse(args, kWithFix);
    EXPECT_EQ(r.status, ParseStatus::kRun);
    EXPECT_EQ(r.args.steps, 7);
    EXPECT_EQ(r.args.variant, Variant::kFixed);
  }
  const ParseResult steps_only = Parse({"2"}, kWithFix);
  EXPECT_EQ(steps_only.args.steps, 2);
  EXPECT_EQ(steps_only.args.variant, Variant::kAsIs);
  const ParseResult fixed_only = Parse({"--fixed"}, kWithFix);
  EXPECT_EQ(fixed_only.args.steps, 30);
  EXPECT_EQ(fixed_only.args.variant, Variant::kFixed);
  EXPECT_EQ(Parse({"9999999"}, kWithFix).args.steps, 9999999);
}

TEST(ExampleArgs, HelpWinsOverEverythingElse) {
  EXPECT_EQ(Parse({"--help"}, kWithFix).status, ParseStatus::kHelp);
  EXPECT_EQ(Parse({"3", "-h"}, kWithFix).status, ParseStatus::kHelp);
  EXPECT_EQ(Parse({"--help", "--fixed"}, kWithoutFix).status,
            ParseStatus::kHelp);
}

TEST(ExampleArgs, RefusesWhatItDoesNotKnowAndSaysWhat) {
  struct Case {
    std::vector<const char*> args;
    std::string error;
  };
  const std::vector<Case> cases = {
      {{"0"}, "STEPS must be a whole number from 1 to 9999999, got 0"},
      {{"12x"}, "STEPS must be a whole number from 1 to 9999999, got 12x"},
      {{"10000000"},
       "STEPS must be a whole number from 1 to 9999999, got 10000000"},
      {{"-3"}, "unknown argument -3"},
      {{"--fast"}, "unknown argument --fast"},
      {{""}, "unknown argument "},
      {{"3", "4"}, "STEPS given twice: 4"},
  };
  for (const Case& c : cases) {
    const ParseResult r = Parse(c.args, kWithFix);
    EXPECT_EQ(r.status, ParseStatus::kUsageError) << c.error;
    EXPECT_EQ(r.error, c.error);
  }
}

TEST(ExampleArgs, AnExampleWithoutAFixRefusesFixed) {
  const ParseResult r = Parse({"--fixed"}, kWithoutFix);
  EXPECT_EQ(r.status, ParseStatus::kUsageError);
  EXPECT_EQ(r.error,
            "no --fixed variant: the gpu_bound verdict names no host-side fix");
  // Its steps still parse.
  EXPECT_EQ(Parse({"4"}, kWithoutFix).args.steps, 4);
}

TEST(ExampleArgs, UsageNamesTheFixOnlyWhereThereIsOne) {
  EXPECT_EQ(Usage(kWithFix),
            "usage: example_sync_bound [STEPS] [--fixed]\n"
            "  STEPS    measured steps (default 30)\n"
            "  --fixed  the same work with the fix: no sync inside the step\n");
  EXPECT_EQ(Usage(kWithoutFix),
            "usage: example_gpu_bound [STEPS]\n"
            "  STEPS    measured steps (default 10)\n"
            "  (no --fixed: the gpu_bound verdict names no host-side fix)\n");
}

}  // namespace
}  // namespace example
