// ReleaseWholePages must give back exactly the whole pages inside the
// range: their bytes read as zeros afterwards, the partial pages at either
// end (which may hold other data) keep theirs, and the memory stays usable.
#include "common/release_pages.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>

namespace feedprof::common {
namespace {

TEST(ReleaseWholePagesTest, ZeroesTheWholePagesInsideAndKeepsTheEdges) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t bytes = 6 * page;
  void* mapped = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mapped, MAP_FAILED);
  unsigned char* memory = static_cast<unsigned char*>(mapped);
  std::memset(memory, 0xAB, bytes);

  // From 100 bytes into page 1 to 100 bytes into page 4: pages 2 and 3
  // are whole inside it.
  ReleaseWholePages(memory + page + 100, memory + 4 * page + 100);

  for (size_t i = 0; i < bytes; ++i) {
    const bool released = i >= 2 * page && i < 4 * page;
    ASSERT_EQ(memory[i], released ? 0x00 : 0xAB) << "byte " << i;
  }
  // Still ordinary memory.
  memory[2 * page + 7] = 0x11;
  EXPECT_EQ(memory[2 * page + 7], 0x11);
  munmap(mapped, bytes);
}

TEST(ReleaseWholePagesTest, ARangeWithinOnePageReleasesNothing) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  void* mapped = mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mapped, MAP_FAILED);
  unsigned char* memory = static_cast<unsigned char*>(mapped);
  std::memset(memory, 0xCD, 2 * page);
  ReleaseWholePages(memory + 1, memory + page + page / 2);
  ReleaseWholePages(memory + page, memory + page);  // empty
  for (size_t i = 0; i < 2 * page; ++i) ASSERT_EQ(memory[i], 0xCD);
  munmap(mapped, 2 * page);
}

}  // namespace
}  // namespace feedprof::common
