// inflate_bench: zlib's and ISA-L's inflate side by side on one .gz file.
//
// The target for `.json.gz` traces is to read them no slower than 1.2 times
// the fastest single-stream inflate a Debian system offers, so that inflate
// is measured here the way the reader runs it — GzipFileInput in 1 MiB
// reads from the page cache, one thread, output discarded — for each
// inflater the build has, best of N runs.
//
//   inflate_bench FILE.gz [RUNS]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "kineto/gzip_input.h"

namespace {

// Seconds to inflate `path` whole; negative when it cannot be read.
double InflateOnce(const std::string& path, uint64_t* bytes) {
  auto input = feedprof::kineto::GzipFileInput::Open(path);
  if (!input.ok()) return -1;
  std::vector<char> buffer(1 << 20);
  const auto start = std::chrono::steady_clock::now();
  *bytes = 0;
  for (;;) {
    const size_t n = (*input)->Read(buffer.data(), buffer.size());
    if (n == 0) break;
    *bytes += n;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  using End = feedprof::kineto::GzipFileInput::End;
  return (*input)->end() == End::kClean ? seconds : -1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: inflate_bench FILE.gz [RUNS]\n");
    return 2;
  }
  const std::string path = argv[1];
  const int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
  for (const char* inflater : {"zlib", "isal"}) {
    setenv("FEEDPROF_INFLATE", inflater, 1);
    auto probe = feedprof::kineto::GzipFileInput::Open(path);
    if (!probe.ok()) {
      std::fprintf(stderr, "inflate_bench: %s\n",
                   std::string(probe.status().message()).c_str());
      return 1;
    }
    char byte;
    (*probe)->Read(&byte, 1);
    const std::string name = (*probe)->inflater_name();
    if (std::string(inflater) == "isal" && name != "ISA-L") {
      std::printf("ISA-L: not in this build (install libisal-dev)\n");
      continue;
    }
    double best = -1;
    uint64_t bytes = 0;
    for (int i = 0; i < runs; ++i) {
      const double seconds = InflateOnce(path, &bytes);
      if (seconds < 0) {
        std::fprintf(stderr, "inflate_bench: %s does not inflate cleanly\n",
                     path.c_str());
        return 1;
      }
      if (best < 0 || seconds < best) best = seconds;
    }
    std::printf("%s: %.3f s, %.0f MB/s of output (%llu bytes), best of %d\n",
                name.c_str(), best, static_cast<double>(bytes) / 1e6 / best,
                static_cast<unsigned long long>(bytes), runs);
  }
  return 0;
}
