// The one-pass reader of plain decimal numbers against the general path.
//
// Wherever ReadPlainDecimal takes a number, its end must be where the
// number's JSON text ends, and its value what MicrosToNanos and
// ParseInteger make of that text; everything else it must leave to the
// general path. Checked on every form around its limits (digit counts,
// leading zeros, fractions, what follows) and on many random numbers.
#include "kineto/plain_decimal.h"

#include <random>
#include <regex>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kineto/kineto_time.h"

namespace feedprof::kineto {
namespace {

// Reads the number at the start of `text`; the bytes it took, or -1.
int Read(const std::string& text, PlainDecimal* out) {
  const char* end =
      ReadPlainDecimal(text.data(), text.data() + text.size(), out);
  return end == nullptr ? -1 : static_cast<int>(end - text.data());
}

// Checks one input: where the plain reader takes a number, it is a JSON
// number of the plain form ending there, with the general path's values.
// Returns whether it was taken.
bool AgreesWithTheGeneralPath(const std::string& text) {
  PlainDecimal d;
  const int n = Read(text, &d);
  if (n < 0) return false;
  static const std::regex kPlain(R"((0|[1-9][0-9]{0,17})(\.[0-9]{1,64})?)");
  const std::string number = text.substr(0, static_cast<size_t>(n));
  EXPECT_TRUE(std::regex_match(number, kPlain)) << text;
  EXPECT_LT(static_cast<size_t>(n), text.size()) << text;
  if (static_cast<size_t>(n) < text.size()) {
    EXPECT_FALSE(kNumberChar[static_cast<uint8_t>(text[n])]) << text;
  }
  EXPECT_EQ(d.has_fraction, number.find('.') != std::string::npos) << text;
  int64_t general = -7;
  int64_t plain = -7;
  EXPECT_EQ(PlainDecimalMicrosToNanos(d, &plain),
            MicrosToNanos(number, &general))
      << text;
  EXPECT_EQ(plain, general) << text;
  if (!d.has_fraction) {
    int64_t value = 0;
    EXPECT_TRUE(ParseInteger(number, &value)) << text;
    EXPECT_EQ(static_cast<int64_t>(d.integer), value) << text;
  }
  return true;
}

TEST(PlainDecimalTest, ReadsKinetoTimesAndIdsInOnePass) {
  PlainDecimal d;
  EXPECT_EQ(Read("1712195497620994.902, ", &d), 20);
  EXPECT_EQ(d.integer, 1712195497620994u);
  EXPECT_EQ(d.thousandths, 902u);
  EXPECT_FALSE(d.round_up);
  int64_t ns = 0;
  ASSERT_TRUE(PlainDecimalMicrosToNanos(d, &ns));
  EXPECT_EQ(ns, 1712195497620994902);

  EXPECT_EQ(Read("4.8165}", &d), 6);
  ASSERT_TRUE(PlainDecimalMicrosToNanos(d, &ns));
  EXPECT_EQ(ns, 4817);  // rounded on the fourth digit after the point
  EXPECT_EQ(Read("63.8}", &d), 4);
  ASSERT_TRUE(PlainDecimalMicrosToNanos(d, &ns));
  EXPECT_EQ(ns, 63800);
  EXPECT_EQ(Read("833546,", &d), 6);
  EXPECT_EQ(d.integer, 833546u);
  EXPECT_FALSE(d.has_fraction);
  EXPECT_EQ(Read("0 ", &d), 1);
  EXPECT_EQ(d.integer, 0u);
  EXPECT_EQ(Read("123456789012345678]", &d), 18);
  EXPECT_EQ(d.integer, 123456789012345678u);
}

TEST(PlainDecimalTest, LeavesEveryOtherFormToTheGeneralPath) {
  PlainDecimal d;
  for (const char* text :
       {"-1,", "+1,", "01,", "00,", "1.,", ".5,", "1e5,", "1.5E3,", "1.5e,",
        "1-2,", "1.2.3,", "1234567890123456789,", "12", "1.5", "x", "\"1\"",
        "1234567890123456789012,"}) {
    EXPECT_EQ(Read(text, &d), -1) << text;
  }
  // 64 digits after the point are taken, 65 are not.
  EXPECT_EQ(Read("1." + std::string(64, '7') + ",", &d), 66);
  EXPECT_EQ(Read("1." + std::string(65, '7') + ",", &d), -1);
  // Beyond 9e15 µs the value does not fit in ns: MicrosToNanos fails too.
  ASSERT_EQ(Read("9000000000000001.5,", &d), 18);
  int64_t ns = 42;
  EXPECT_FALSE(PlainDecimalMicrosToNanos(d, &ns));
  EXPECT_EQ(ns, 42);
  EXPECT_TRUE(AgreesWithTheGeneralPath("9000000000000001.5,"));
  EXPECT_TRUE(AgreesWithTheGeneralPath("9000000000000000.999,"));
}

TEST(PlainDecimalTest, EveryDigitCountAroundTheEightDigitSteps) {
  size_t taken = 0;
  for (int digits = 1; digits <= 20; ++digits) {
    for (const char* fraction :
         {"", ".1", ".12", ".123", ".1234", ".1235", ".99995", ".0005"}) {
      for (const char* after : {",", "}", " ", "\n", "]", "e", "."}) {
        std::string text(static_cast<size_t>(digits), '9');
        text[0] = '1';
        taken += AgreesWithTheGeneralPath(text + fraction + after) ? 1 : 0;
        std::string mixed;
        for (int i = 0; i < digits; ++i)
          mixed += static_cast<char>('1' + i % 9);
        taken += AgreesWithTheGeneralPath(mixed + fraction + after) ? 1 : 0;
      }
    }
  }
  // 18 digit counts x 8 fractions x 5 terminators x 2 numbers.
  EXPECT_EQ(taken, 18u * 8 * 5 * 2);
}

TEST(PlainDecimalTest, RandomNumbersReadAsTheGeneralPathReadsThem) {
  std::mt19937_64 random(12);
  const std::string alphabet = "0123456789.e-,} ";
  size_t taken = 0;
  for (int i = 0; i < 200000; ++i) {
    std::string text;
    const size_t length = 1 + random() % 24;
    for (size_t k = 0; k < length; ++k) {
      // Mostly digits, so that long plain numbers come up often.
      const size_t pick = random() % 40;
      text += pick < 10   ? alphabet[pick]
              : pick < 34 ? alphabet[pick % 10]
                          : alphabet[pick - 24];
    }
    taken += AgreesWithTheGeneralPath(text) ? 1 : 0;
  }
  EXPECT_GT(taken, 50000u);
}

}  // namespace
}  // namespace feedprof::kineto
