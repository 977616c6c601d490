// The command-line tool's operator new (tools/huge_page_new.cc) and
// AdviseHugePages (tools/huge_pages.h): blocks from 4 MiB up are marked
// for huge pages over exactly their whole 2 MiB pages, smaller ones are
// left alone, FEEDPROF_HUGE_PAGES=0 turns it off, and the memory behaves
// as any other. What the kernel records is read back from /proc/self/smaps
// (the mapping's VmFlags has `hg` after MADV_HUGEPAGE).
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <new>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "tools/huge_pages.h"

namespace feedprof::cli {
namespace {

constexpr uintptr_t kHuge = uintptr_t{2} << 20;

// The mapping of /proc/self/smaps that holds `address`.
struct Mapping {
  uintptr_t begin = 0;
  uintptr_t end = 0;
  bool huge_page_advice = false;  // VmFlags has "hg"
};

std::optional<Mapping> MappingOf(const void* address) {
  const auto a = reinterpret_cast<uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  std::optional<Mapping> found;
  while (std::getline(smaps, line)) {
    uintptr_t begin = 0;
    uintptr_t end = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> begin >> dash >> end && dash == '-' &&
        line.find(':') > line.find(' ')) {
      if (found.has_value()) return found;  // the next mapping began
      if (a >= begin && a < end) found = Mapping{begin, end, false};
      continue;
    }
    if (found.has_value() && line.rfind("VmFlags:", 0) == 0) {
      found->huge_page_advice = (line + " ").find(" hg ") != std::string::npos;
    }
  }
  return found;
}

bool ThpAvailable() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string setting;
  std::getline(in, setting);
  return !setting.empty() && setting.find("[never]") == std::string::npos;
}

bool AdviceDisabledByEnvironment() {
  const char* value = std::getenv("FEEDPROF_HUGE_PAGES");
  return value != nullptr && std::strcmp(value, "0") == 0;
}

uintptr_t AlignUp(uintptr_t a) { return (a + kHuge - 1) & ~(kHuge - 1); }
uintptr_t AlignDown(uintptr_t a) { return a & ~(kHuge - 1); }

TEST(HugePagesTest, AdvisesExactlyTheWholeHugePagesOfABigRange) {
  if (!ThpAvailable()) GTEST_SKIP() << "no transparent huge pages here";
  if (AdviceDisabledByEnvironment()) GTEST_SKIP() << "FEEDPROF_HUGE_PAGES=0";
  const size_t bytes = size_t{40} << 20;
  void* mapped = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mapped, MAP_FAILED);
  auto* memory = static_cast<unsigned char*>(mapped);
  // From 100 bytes in (a block after malloc's header) to 100 bytes short of
  // the end.
  const auto begin = reinterpret_cast<uintptr_t>(memory + 100);
  const auto end = reinterpret_cast<uintptr_t>(memory + bytes - 100);
  ASSERT_TRUE(AdviseHugePages(memory + 100, bytes - 200));

  const std::optional<Mapping> inside =
      MappingOf(reinterpret_cast<void*>(AlignUp(begin)));
  ASSERT_TRUE(inside.has_value());
  EXPECT_TRUE(inside->huge_page_advice);
  EXPECT_EQ(inside->begin, AlignUp(begin));
  EXPECT_EQ(inside->end, AlignDown(end));
  // The partial huge pages at either end keep their pages as they were.
  if (AlignUp(begin) > begin) {
    const std::optional<Mapping> head = MappingOf(memory + 100);
    ASSERT_TRUE(head.has_value());
    EXPECT_FALSE(head->huge_page_advice);
  }
  if (AlignDown(end) < end) {
    const std::optional<Mapping> tail = MappingOf(memory + bytes - 101);
    ASSERT_TRUE(tail.has_value());
    EXPECT_FALSE(tail->huge_page_advice);
  }
  // Still ordinary memory, every byte of it.
  std::memset(memory, 0x5A, bytes);
  EXPECT_EQ(memory[bytes / 2], 0x5A);
  EXPECT_EQ(memory[bytes - 1], 0x5A);
  munmap(mapped, bytes);
}

TEST(HugePagesTest, LeavesRangesBelowTheThresholdAlone) {
  const size_t bytes = kHugePageAdviceMinBytes - 4096;
  void* mapped = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mapped, MAP_FAILED);
  EXPECT_FALSE(AdviseHugePages(mapped, bytes));
  const std::optional<Mapping> m = MappingOf(
      reinterpret_cast<void*>(AlignUp(reinterpret_cast<uintptr_t>(mapped))));
  ASSERT_TRUE(m.has_value());
  EXPECT_FALSE(m->huge_page_advice);
  munmap(mapped, bytes);
}

// This test binary links the tool's operator new, as the feedprof
// executable does.
TEST(HugePageNewTest, BigVectorsGetTheAdviceSmallOnesDoNot) {
  if (!ThpAvailable()) GTEST_SKIP() << "no transparent huge pages here";
  const bool disabled = AdviceDisabledByEnvironment();
  EXPECT_EQ(HugePageAdviceEnabled(), !disabled);

  std::vector<uint64_t> big(size_t{8} << 20, 7);  // 64 MiB
  const auto data = reinterpret_cast<uintptr_t>(big.data());
  const std::optional<Mapping> m =
      MappingOf(reinterpret_cast<void*>(AlignUp(data)));
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->huge_page_advice, !disabled);
  uint64_t sum = 0;
  for (uint64_t v : big) sum += v;
  EXPECT_EQ(sum, uint64_t{7} << 23);

  // 1 MiB: from malloc's heap or a mapping of its own, never advised.
  auto small = std::make_unique<unsigned char[]>(size_t{1} << 20);
  const std::optional<Mapping> s = MappingOf(small.get());
  ASSERT_TRUE(s.has_value());
  EXPECT_FALSE(s->huge_page_advice);
}

TEST(HugePageNewTest, KeepsOperatorNewsContract) {
  // Zero bytes give a distinct, freeable block.
  void* a = ::operator new(0);
  void* b = ::operator new(0);
  EXPECT_NE(a, nullptr);
  EXPECT_NE(a, b);
  ::operator delete(a);
  ::operator delete(b);
  // No memory: std::bad_alloc, or nullptr from the nothrow form.
  const size_t impossible = SIZE_MAX / 2;
  EXPECT_THROW((void)::operator new(impossible), std::bad_alloc);
  EXPECT_EQ(::operator new(impossible, std::nothrow), nullptr);
  EXPECT_EQ(::operator new[](impossible, std::nothrow), nullptr);
  // The new-handler runs before the failure is reported.
  static int handler_calls = 0;
  handler_calls = 0;
  std::set_new_handler([] {
    ++handler_calls;
    std::set_new_handler(nullptr);  // the next failure throws
  });
  EXPECT_THROW((void)::operator new[](impossible), std::bad_alloc);
  EXPECT_EQ(handler_calls, 1);
}

}  // namespace
}  // namespace feedprof::cli
