// Formatting affinity masks as cpu lists and counting cpu lists.
#include "preload/host/cpu_list.h"

#include <sched.h>

#include <initializer_list>
#include <string>

#include "gtest/gtest.h"

namespace feedprof::preload::host {
namespace {

std::string Format(std::initializer_list<int> cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) CPU_SET(c, &set);
  char out[256];
  const size_t n = FormatCpuList(&set, sizeof set, out, sizeof out);
  EXPECT_EQ(n, std::string(out).size());
  return out;
}

TEST(FormatCpuList, RangesAndSingles) {
  EXPECT_EQ(Format({0, 1, 2, 3, 8}), "0-3,8");
  EXPECT_EQ(Format({5}), "5");
  EXPECT_EQ(Format({0, 2, 4}), "0,2,4");
  EXPECT_EQ(Format({1, 2, 10, 11, 12, 1023}), "1-2,10-12,1023");
  EXPECT_EQ(Format({}), "");
}

TEST(FormatCpuList, CutsAtTheLastWholeRange) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : {0, 1, 2, 3, 100, 200}) CPU_SET(c, &set);
  char out[10];
  FormatCpuList(&set, sizeof set, out, sizeof out);
  EXPECT_STREQ(out, "0-3,100");
}

TEST(CountCpuList, CountsRanges) {
  EXPECT_EQ(CountCpuList("0-3,8\n"), 5u);
  EXPECT_EQ(CountCpuList("0-63"), 64u);
  EXPECT_EQ(CountCpuList("7"), 1u);
  EXPECT_EQ(CountCpuList("0-15,32-47"), 32u);
  EXPECT_EQ(CountCpuList(""), 0u);
  EXPECT_EQ(CountCpuList("x,2"), 1u);
}

}  // namespace
}  // namespace feedprof::preload::host
