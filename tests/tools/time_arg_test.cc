// The command line's --from/--to times: units, fractions, what is refused.
#include "tools/time_arg.h"

#include "gtest/gtest.h"

namespace feedprof {
namespace {

TEST(TimeArg, UnitsFractionsAndRefusals) {
  EXPECT_EQ(*ParseTimeArg("1500"), 1500);
  EXPECT_EQ(*ParseTimeArg("12.5ms"), 12'500'000);
  EXPECT_EQ(*ParseTimeArg("3us"), 3'000);
  EXPECT_EQ(*ParseTimeArg("2s"), 2'000'000'000);
  EXPECT_EQ(*ParseTimeArg("7ns"), 7);
  EXPECT_FALSE(ParseTimeArg("abc").ok());
  EXPECT_FALSE(ParseTimeArg("-5ms").ok());
  EXPECT_FALSE(ParseTimeArg("1.5").ok());  // fractions need a unit
  EXPECT_FALSE(ParseTimeArg("ms").ok());
}

}  // namespace
}  // namespace feedprof
