// StringTable: one dense id per distinct text, the same id every time,
// through growth; a copy is a table of its own.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "feedprof/timeline.h"
#include "gtest/gtest.h"

namespace feedprof {
namespace {

TEST(StringTableTest, OneDenseIdPerDistinctTextThroughGrowth) {
  StringTable table;
  EXPECT_EQ(table.Intern(""), 0u);  // 0 is the empty string
  std::vector<std::string> texts;
  for (int i = 0; i < 50000; ++i) {
    // Texts that share long prefixes, and one that is a prefix of another.
    texts.push_back(i % 2 == 0 ? absl::StrCat("aten::op_", i)
                               : absl::StrCat("aten::op_", i - 1, "x"));
  }
  for (size_t i = 0; i < texts.size(); ++i) {
    EXPECT_EQ(table.Intern(texts[i]), i + 1) << texts[i];
  }
  EXPECT_EQ(table.size(), texts.size() + 1);
  for (size_t i = 0; i < texts.size(); ++i) {
    ASSERT_EQ(table.Intern(texts[i]), i + 1) << texts[i];
    ASSERT_EQ(table.Get(static_cast<StringId>(i + 1)), texts[i]);
  }
  EXPECT_EQ(table.size(), texts.size() + 1);
  EXPECT_EQ(table.Get(static_cast<StringId>(texts.size() + 7)), "");
}

TEST(StringTableTest, ACopyKeepsItsIdsAfterTheOriginalIsGone) {
  StringTable copy;
  {
    StringTable original;
    for (int i = 0; i < 1000; ++i) original.Intern(absl::StrCat("name ", i));
    copy = original;
  }
  EXPECT_EQ(copy.Intern("name 999"), 1000u);
  EXPECT_EQ(copy.Intern("name 0"), 1u);
  EXPECT_EQ(copy.Intern("new"), 1001u);
  EXPECT_EQ(copy.Get(1001), "new");
}

}  // namespace
}  // namespace feedprof
