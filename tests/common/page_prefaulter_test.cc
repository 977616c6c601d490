// The prefaulter must fault in exactly the pages it is asked for, a lead
// past a vector's end and never past its room, a step's worth at a time,
// without changing a byte; follow a vector that moves; and survive memory
// that is freed under it.
#include "common/page_prefaulter.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

namespace feedprof::common {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

// Anonymous memory nothing has touched yet, with no huge pages, so that
// residency is counted page by page.
class FreshMemory {
 public:
  explicit FreshMemory(size_t bytes) : bytes_(bytes) {
    void* mapped = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped != MAP_FAILED) {
      data_ = static_cast<unsigned char*>(mapped);
#ifdef MADV_NOHUGEPAGE
      madvise(mapped, bytes, MADV_NOHUGEPAGE);
#endif
    }
  }
  ~FreshMemory() {
    if (data_ != nullptr) munmap(data_, bytes_);
  }
  unsigned char* data() const { return data_; }
  void Unmap() {
    munmap(data_, bytes_);
    data_ = nullptr;
  }

  // Resident bytes in [from, to).
  size_t Resident(size_t from, size_t to) const {
    const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    std::vector<unsigned char> pages((to - from + page - 1) / page);
    if (mincore(data_ + from, to - from, pages.data()) != 0) return SIZE_MAX;
    size_t resident = 0;
    for (unsigned char p : pages) resident += (p & 1) != 0 ? page : 0;
    return resident;
  }

 private:
  size_t bytes_;
  unsigned char* data_ = nullptr;
};

// Waits (up to a generous limit: the machine may be busy) until `done()`.
template <typename Done>
bool WaitUntil(Done done) {
  const auto give_up =
      std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!done()) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// Waits until the prefaulter has faulted in `bytes` in all, then gives it
// a moment to go on wrongly: true when it has faulted in exactly `bytes`.
bool WaitForFaulted(const PagePrefaulter& prefaulter, uint64_t bytes) {
  if (!WaitUntil([&] { return prefaulter.bytes_faulted() >= bytes; })) {
    return false;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  return prefaulter.bytes_faulted() == bytes;
}

TEST(PagePrefaulterTest, FaultsInTheLeadPastTheEndAndNoFurther) {
  PagePrefaulter prefaulter(/*slots=*/2, /*lead_bytes=*/4 * kMiB);
  if (!prefaulter.active()) {
    GTEST_SKIP() << "no MADV_POPULATE_WRITE here (Linux 5.14 or later), or "
                    "FEEDPROF_PREFAULT=0";
  }
  FreshMemory memory(32 * kMiB);
  ASSERT_NE(memory.data(), nullptr);
  EXPECT_EQ(memory.Resident(0, 32 * kMiB), 0u);

  // 1 MiB used of a 32 MiB room: up to 5 MiB.
  prefaulter.Ahead(0, memory.data(), 1 * kMiB, 32 * kMiB);
  ASSERT_TRUE(WaitForFaulted(prefaulter, 4 * kMiB));
  EXPECT_EQ(memory.Resident(1 * kMiB, 5 * kMiB), 4 * kMiB);
  EXPECT_EQ(memory.Resident(5 * kMiB, 32 * kMiB), 0u);

  // Used up to 10 MiB: up to 14 MiB, from where the last request ended.
  prefaulter.Ahead(0, memory.data(), 10 * kMiB, 32 * kMiB);
  ASSERT_TRUE(WaitForFaulted(prefaulter, 13 * kMiB));
  EXPECT_EQ(memory.Resident(1 * kMiB, 14 * kMiB), 13 * kMiB);
  EXPECT_EQ(memory.Resident(14 * kMiB, 32 * kMiB), 0u);

  // The room ends before the lead does: never past it.
  prefaulter.Ahead(0, memory.data(), 12 * kMiB, 15 * kMiB);
  ASSERT_TRUE(WaitForFaulted(prefaulter, 14 * kMiB));
  EXPECT_EQ(memory.Resident(15 * kMiB, 32 * kMiB), 0u);
  EXPECT_EQ(prefaulter.bytes_faulted(), 14 * kMiB);
}

TEST(PagePrefaulterTest, WaitsForAStepsWorthOfPages) {
  // An 8 MiB lead: the thread is woken for 2 MiB at a time.
  PagePrefaulter prefaulter(1, 8 * kMiB);
  if (!prefaulter.active()) GTEST_SKIP() << "no prefaulting here";
  FreshMemory memory(32 * kMiB);
  ASSERT_NE(memory.data(), nullptr);
  prefaulter.Ahead(0, memory.data(), 0, 32 * kMiB);
  ASSERT_TRUE(WaitForFaulted(prefaulter, 8 * kMiB));

  // 1.5 MiB more used: 1.5 MiB more wanted, less than a step; left for now.
  prefaulter.Ahead(0, memory.data(), 1536 * 1024, 32 * kMiB);
  ASSERT_TRUE(WaitForFaulted(prefaulter, 8 * kMiB));
  EXPECT_EQ(memory.Resident(8 * kMiB, 32 * kMiB), 0u);

  // 2 MiB used: a step's worth waits, and all of it is faulted in.
  prefaulter.Ahead(0, memory.data(), 2 * kMiB, 32 * kMiB);
  ASSERT_TRUE(WaitForFaulted(prefaulter, 10 * kMiB));
  EXPECT_EQ(memory.Resident(0, 10 * kMiB), 10 * kMiB);
  EXPECT_EQ(memory.Resident(10 * kMiB, 32 * kMiB), 0u);
}

TEST(PagePrefaulterTest, LeavesTheBytesAsTheyAre) {
  PagePrefaulter prefaulter(1, 2 * kMiB);
  if (!prefaulter.active()) GTEST_SKIP() << "no prefaulting here";
  FreshMemory memory(8 * kMiB);
  ASSERT_NE(memory.data(), nullptr);
  // The vector holds 3 MiB of data already; the writer goes on writing
  // past its end while the pages ahead are faulted in.
  std::memset(memory.data(), 0x5A, 3 * kMiB);
  prefaulter.Ahead(0, memory.data(), 3 * kMiB, 8 * kMiB);
  std::memset(memory.data() + 3 * kMiB, 0x6B, 2 * kMiB);
  ASSERT_TRUE(WaitForFaulted(prefaulter, 2 * kMiB));
  for (size_t i = 0; i < 8 * kMiB; ++i) {
    const unsigned char want = i < 3 * kMiB ? 0x5A : i < 5 * kMiB ? 0x6B : 0;
    ASSERT_EQ(memory.data()[i], want) << "byte " << i;
  }
}

TEST(PagePrefaulterTest, FollowsAVectorThatMovesAndKeepsSlotsApart) {
  PagePrefaulter prefaulter(2, 2 * kMiB);
  if (!prefaulter.active()) GTEST_SKIP() << "no prefaulting here";
  FreshMemory first(8 * kMiB);
  FreshMemory second(8 * kMiB);
  FreshMemory other(8 * kMiB);
  ASSERT_NE(first.data(), nullptr);
  ASSERT_NE(second.data(), nullptr);
  ASSERT_NE(other.data(), nullptr);

  prefaulter.Ahead(0, first.data(), 0, 8 * kMiB);
  prefaulter.Ahead(1, other.data(), 4 * kMiB, 8 * kMiB);
  ASSERT_TRUE(WaitForFaulted(prefaulter, 4 * kMiB));
  EXPECT_EQ(first.Resident(0, 2 * kMiB), 2 * kMiB);
  EXPECT_EQ(other.Resident(4 * kMiB, 6 * kMiB), 2 * kMiB);

  // Slot 0's vector moved (grew into a new block) holding 5 MiB: its new
  // block is faulted in from there, the old one no further.
  prefaulter.Ahead(0, second.data(), 5 * kMiB, 8 * kMiB);
  ASSERT_TRUE(WaitForFaulted(prefaulter, 6 * kMiB));
  EXPECT_EQ(second.Resident(0, 5 * kMiB), 0u);
  EXPECT_EQ(second.Resident(5 * kMiB, 7 * kMiB), 2 * kMiB);
  EXPECT_EQ(first.Resident(2 * kMiB, 8 * kMiB), 0u);
  EXPECT_EQ(other.Resident(6 * kMiB, 8 * kMiB), 0u);
}

TEST(PagePrefaulterTest, MemoryFreedUnderItIsSkipped) {
  PagePrefaulter prefaulter(1, 64 * kMiB);
  if (!prefaulter.active()) GTEST_SKIP() << "no prefaulting here";
  FreshMemory memory(64 * kMiB);
  ASSERT_NE(memory.data(), nullptr);
  prefaulter.Ahead(0, memory.data(), 0, 64 * kMiB);
  memory.Unmap();  // while it may be faulting in
  // A later request on live memory is still served.
  FreshMemory next(4 * kMiB);
  ASSERT_NE(next.data(), nullptr);
  prefaulter.Ahead(0, next.data(), 0, 4 * kMiB);
  EXPECT_TRUE(
      WaitUntil([&] { return next.Resident(0, 4 * kMiB) == 4 * kMiB; }));
}

TEST(PagePrefaulterTest, NothingIsAskedOfASlotItDoesNotHave) {
  PagePrefaulter prefaulter(1, 2 * kMiB);
  FreshMemory memory(4 * kMiB);
  ASSERT_NE(memory.data(), nullptr);
  prefaulter.Ahead(1, memory.data(), 0, 4 * kMiB);
  prefaulter.Ahead(0, nullptr, 0, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(prefaulter.bytes_faulted(), 0u);
  EXPECT_EQ(memory.Resident(0, 4 * kMiB), 0u);
}

}  // namespace
}  // namespace feedprof::common
