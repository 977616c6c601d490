// PageRecycler must hand whole granules of consumed input to the output's
// memory past what is written, never touch a byte outside those ranges,
// leave the input ranges mapped (reading as zeros), and say where the
// caller's next range starts. Merges that use it must give exactly the
// stable merge of their runs.
#include "common/page_recycler.h"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/merge_sorted_runs.h"

namespace feedprof::common {
namespace {

constexpr size_t kGranule = PageRecycler::kGranuleBytes;

// An anonymous mapping of `granules` granules, aligned to a granule.
class AlignedMapping {
 public:
  explicit AlignedMapping(size_t granules) : bytes_((granules + 1) * kGranule) {
    raw_ = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    const auto at = reinterpret_cast<uintptr_t>(raw_);
    data_ =
        reinterpret_cast<unsigned char*>((at + kGranule - 1) & ~(kGranule - 1));
  }
  ~AlignedMapping() { munmap(raw_, bytes_); }
  AlignedMapping(const AlignedMapping&) = delete;
  AlignedMapping& operator=(const AlignedMapping&) = delete;

  bool ok() const { return raw_ != MAP_FAILED; }
  unsigned char* data() const { return data_; }

 private:
  size_t bytes_;
  void* raw_;
  unsigned char* data_;
};

// Tests of the moves themselves, skipped where the kernel cannot move.
class MovingPagesTest : public testing::Test {
 protected:
  void SetUp() override {
    if (!PageRecycler::Supported()) {
      GTEST_SKIP() << "this kernel does not move pages (MREMAP_DONTUNMAP)";
    }
  }
};

TEST_F(MovingPagesTest, MovesWholeGranulesPastTheWrittenEndAndNothingElse) {
  AlignedMapping input(4);
  AlignedMapping output(4);
  ASSERT_TRUE(input.ok() && output.ok());
  unsigned char* in = input.data();
  unsigned char* out = output.data();
  for (size_t g = 0; g < 4; ++g) {
    std::fill(in + g * kGranule, in + (g + 1) * kGranule,
              static_cast<unsigned char>(0x10 + g));
  }
  // 100 bytes of the output are written; its allocation is 3.5 granules.
  std::fill(out, out + 100, 0xEE);
  PageRecycler recycler(out + 100, out + 3 * kGranule + kGranule / 2);

  // Input from 100 bytes into granule 0 to half way into granule 3:
  // granules 1 and 2 are whole inside it.
  const void* next =
      recycler.Recycle(in + 100, in + 3 * kGranule + 4096, out + 100);
  EXPECT_EQ(next, in + 3 * kGranule);
  EXPECT_EQ(recycler.moved_granules(), 2u);
  // They became the output's granules 1 and 2, the first ones past the
  // written end; the written bytes and granule 0's rest are untouched.
  EXPECT_EQ(out[kGranule], 0x11);
  EXPECT_EQ(out[2 * kGranule - 1], 0x11);
  EXPECT_EQ(out[2 * kGranule], 0x12);
  EXPECT_EQ(out[99], 0xEE);
  EXPECT_EQ(out[100], 0x00);
  // The input stays mapped: the moved granules and the whole pages before
  // them read as zeros; the partial page at its start and everything from
  // the returned position on keep their bytes.
  EXPECT_EQ(in[99], 0x10);
  EXPECT_EQ(in[4096], 0x00);
  EXPECT_EQ(in[kGranule], 0x00);
  EXPECT_EQ(in[3 * kGranule - 1], 0x00);
  EXPECT_EQ(in[3 * kGranule], 0x13);
  in[kGranule] = 0x55;  // still ordinary memory
  EXPECT_EQ(in[kGranule], 0x55);

  // Granule 3 of the input: the output's granule 3 is not whole inside its
  // allocation, so nothing moves and the input is given back.
  next = recycler.Recycle(next, in + 4 * kGranule, out + 2 * kGranule);
  EXPECT_EQ(next, in + 4 * kGranule);
  EXPECT_EQ(recycler.moved_granules(), 2u);
  EXPECT_EQ(in[3 * kGranule + 5], 0x00);
  EXPECT_EQ(out[3 * kGranule], 0x00);
}

TEST(PageRecyclerTest, ARangeWithoutAWholeGranuleIsLeftForLater) {
  AlignedMapping input(2);
  AlignedMapping output(2);
  ASSERT_TRUE(input.ok() && output.ok());
  std::fill(input.data(), input.data() + 2 * kGranule, 0x21);
  PageRecycler recycler(output.data(), output.data() + 2 * kGranule);
  const void* next = recycler.Recycle(
      input.data() + 10, input.data() + kGranule - 10, output.data());
  EXPECT_EQ(next, input.data() + 10);
  EXPECT_EQ(recycler.moved_granules(), 0u);
  EXPECT_EQ(input.data()[kGranule / 2], 0x21);
}

TEST_F(MovingPagesTest, NeverMovesOntoWrittenMemory) {
  AlignedMapping input(3);
  AlignedMapping output(3);
  ASSERT_TRUE(input.ok() && output.ok());
  std::fill(input.data(), input.data() + 3 * kGranule, 0x31);
  std::fill(output.data(), output.data() + 3 * kGranule, 0x77);
  PageRecycler recycler(output.data(), output.data() + 3 * kGranule);
  // The output is written to one byte into its granule 2: only whole
  // granules past that may take pages, and there are none.
  recycler.Recycle(input.data(), input.data() + 3 * kGranule,
                   output.data() + 2 * kGranule + 1);
  EXPECT_EQ(recycler.moved_granules(), 0u);
  for (size_t i = 0; i < 3 * kGranule; i += 4096) {
    ASSERT_EQ(output.data()[i], 0x77) << "byte " << i;
  }
}

// Events of 16 bytes: a key and where the event came from.
struct Event {
  uint64_t key = 0;
  uint64_t origin = 0;
};

// Two runs of 56 MiB each, big enough for their pages to be moved, keys
// interleaved and repeated so that ties between the runs are common,
// merged on `threads` threads: exactly the stable sort of the runs
// appended in order.
void ExpectStableMerge(unsigned threads) {
  constexpr size_t kRuns = 2;
  constexpr size_t kPerRun = (size_t{56} << 20) / sizeof(Event);
  std::vector<std::vector<Event>> runs(kRuns);
  std::vector<Event> expected;
  for (size_t r = 0; r < kRuns; ++r) {
    runs[r].reserve(kPerRun);
    for (size_t i = 0; i < kPerRun; ++i) {
      runs[r].push_back({(i * (r + 2)) / 3, r << 32 | i});
    }
    expected.insert(expected.end(), runs[r].begin(), runs[r].end());
  }
  auto less = [](const Event& a, const Event& b) { return a.key < b.key; };
  std::stable_sort(expected.begin(), expected.end(), less);
  std::vector<std::vector<Event>*> pointers;
  for (std::vector<Event>& run : runs) pointers.push_back(&run);

  const size_t moved_before = PageRecycler::moved_granules_in_process();
  std::vector<Event> merged;
  MergeSortedRunsOnThreads(
      pointers, &merged, less, [](size_t, Event&) {}, threads);
  if (PageRecycler::Supported() && threads == 1) {
    // Nearly every granule of the runs became one of the output's: of
    // their 56, those cut by either end of a run or of the output (where
    // the allocations fall decides how many) stay behind.
    EXPECT_GE(PageRecycler::moved_granules_in_process() - moved_before, 48u);
  }
  ASSERT_EQ(merged.size(), expected.size());
  for (size_t i = 0; i < merged.size(); ++i) {
    ASSERT_EQ(merged[i].key, expected[i].key) << "event " << i;
    ASSERT_EQ(merged[i].origin, expected[i].origin) << "event " << i;
  }
  for (const std::vector<Event>& run : runs) EXPECT_TRUE(run.empty());
}

TEST(PageRecyclerTest, AMergeOnOneThreadIsTheStableMerge) {
  ExpectStableMerge(1);
}

TEST(PageRecyclerTest, AMergeInSlicesOnThreadsIsTheStableMerge) {
  ExpectStableMerge(3);
}

}  // namespace
}  // namespace feedprof::common
