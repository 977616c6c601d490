// Exact decimal µs -> integer ns conversion.
#include "kineto/kineto_time.h"

#include "gtest/gtest.h"

namespace feedprof::kineto {
namespace {

int64_t Ns(std::string_view text) {
  int64_t ns = -1;
  EXPECT_TRUE(MicrosToNanos(text, &ns)) << text;
  return ns;
}

TEST(KinetoTimeTest, IntegerAndFractionalMicroseconds) {
  EXPECT_EQ(Ns("0"), 0);
  EXPECT_EQ(Ns("1234"), 1234000);
  EXPECT_EQ(Ns("1234.567"), 1234567);
  EXPECT_EQ(Ns("1.5"), 1500);
  EXPECT_EQ(Ns("63.813"), 63813);
  EXPECT_EQ(Ns("0.001"), 1);
  EXPECT_EQ(Ns("-2.5"), -2500);
  // Epoch-based µs with a fraction: more digits than a double holds.
  EXPECT_EQ(Ns("1712195495505543.2"), 1712195495505543200);
  EXPECT_EQ(Ns("1694039968955744"), 1694039968955744000);
  EXPECT_EQ(Ns("1428625731896.179"), 1428625731896179);
}

TEST(KinetoTimeTest, RoundsPastNanoseconds) {
  EXPECT_EQ(Ns("63.8134"), 63813);
  EXPECT_EQ(Ns("63.8135"), 63814);
  EXPECT_EQ(Ns("63.81399999"), 63814);
  EXPECT_EQ(Ns("-0.0005"), -1);
}

TEST(KinetoTimeTest, ExponentsAndJunk) {
  EXPECT_EQ(Ns("1.5e3"), 1500000);
  EXPECT_EQ(Ns("2E-3"), 2);
  int64_t ns = 0;
  EXPECT_FALSE(MicrosToNanos("", &ns));
  EXPECT_FALSE(MicrosToNanos("abc", &ns));
  EXPECT_FALSE(MicrosToNanos("12x", &ns));
  EXPECT_FALSE(MicrosToNanos("99999999999999999999", &ns));  // overflows ns
}

TEST(KinetoTimeTest, IntegersAndIdsInText) {
  int64_t v = 0;
  EXPECT_TRUE(ParseInteger("863350", &v));
  EXPECT_EQ(v, 863350);
  EXPECT_TRUE(ParseInteger("-1", &v));
  EXPECT_EQ(v, -1);
  EXPECT_TRUE(ParseInteger("7.0", &v));
  EXPECT_EQ(v, 7);
  EXPECT_TRUE(ParseInteger("18446744073709551615", &v));
  EXPECT_EQ(static_cast<uint64_t>(v), 18446744073709551615ULL);
  EXPECT_FALSE(ParseInteger("x", &v));
  EXPECT_TRUE(FirstIntegerIn("stream 7 7", &v));
  EXPECT_EQ(v, 7);
  EXPECT_FALSE(FirstIntegerIn("Spawn", &v));
}

}  // namespace
}  // namespace feedprof::kineto
