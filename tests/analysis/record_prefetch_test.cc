// ElementAhead: the element a pass asks for ahead of time is kPrefetchAhead
// places on, and there is none past the view's end (so the prefetches never
// read beyond it).
#include "analysis/record_prefetch.h"

#include <vector>

#include "analysis/prepared_timeline.h"
#include "gtest/gtest.h"

namespace feedprof::analysis {
namespace {

TEST(RecordPrefetchTest, ElementAheadIsKPrefetchAheadPlacesOnAndNonePastEnd) {
  std::vector<OpRef> view(kPrefetchAhead + 4);
  for (size_t i = 0; i < view.size(); ++i) {
    view[i].op = static_cast<uint32_t>(100 + i);
  }
  for (size_t i = 0; i < view.size(); ++i) {
    const OpRef* ahead = ElementAhead(view, view[i]);
    if (i + kPrefetchAhead < view.size()) {
      ASSERT_NE(ahead, nullptr) << i;
      EXPECT_EQ(ahead->op, 100 + i + kPrefetchAhead) << i;
    } else {
      EXPECT_EQ(ahead, nullptr) << i;
    }
  }
  // A view no longer than the distance has nothing ahead anywhere.
  const std::vector<OpRef> short_view(kPrefetchAhead);
  for (const OpRef& op : short_view) {
    EXPECT_EQ(ElementAhead(short_view, op), nullptr);
  }
}

}  // namespace
}  // namespace feedprof::analysis
