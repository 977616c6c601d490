// Writes the constructed feedprof trace seeds for the fuzzers.
//
// A fuzzer starts far deeper from a real trace than from nothing, and a
// trace with every packet kind reaches every decoder at once. The seeds are
// built by the reader tests' own builder (tests/testing/trace_test_files.h),
// so they hold the same packets the tests check number by number, and are
// written fresh on every run instead of being kept as binary files.
//   feedprof_fuzz_seeds OUT_DIR
#include <cstdio>
#include <exception>
#include <string>

#include "tests/testing/trace_test_files.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
    return 2;
  }
  namespace t = feedprof::testing;
  const std::string dir = argv[1];
  try {
    const std::string full = t::FramePackets(t::FullTracePackets());
    t::WriteFile(dir + "/full.fpt", full);
    // Cut inside the last packet: the salvage path.
    t::WriteFile(dir + "/full_truncated.fpt", full.substr(0, full.size() - 7));
    t::WriteFile(dir + "/small.fpt", t::FramePackets(t::SmallProcessPackets(
                                         7, 0, "gemm_kernel", 5'000, 0)));
    // Two processes in one file, the second with drops: files concatenate.
    t::WriteFile(
        dir + "/two_processes.fpt",
        t::FramePackets(t::SmallProcessPackets(11, 0, "a", 1'000, 0)) +
            t::FramePackets(t::SmallProcessPackets(12, 1, "b", 2'000, 3)));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "feedprof_fuzz_seeds: %s\n", e.what());
    return 1;
  }
  return 0;
}
