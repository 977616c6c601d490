#include "common/read_progress.h"

#include <unistd.h>

#include <cstdio>
#include <utility>

namespace feedprof::common {
namespace {

constexpr auto kQuietPeriod = std::chrono::seconds(1);
constexpr auto kRefreshPeriod = std::chrono::milliseconds(250);

}  // namespace

ReadProgress::ReadProgress(std::string what, uint64_t total_bytes)
    : what_(std::move(what)),
      total_bytes_(total_bytes),
      enabled_(::isatty(STDERR_FILENO) == 1 && total_bytes > 0),
      start_(std::chrono::steady_clock::now()) {}

ReadProgress::~ReadProgress() {
  if (shown_) std::fputs("\r\033[K", stderr);
}

void ReadProgress::Report(uint64_t bytes_done) {
  const auto now = std::chrono::steady_clock::now();
  if (now - start_ < kQuietPeriod) return;
  if (shown_ && now - last_shown_ < kRefreshPeriod) return;
  shown_ = true;
  last_shown_ = now;
  const double share = 100.0 * static_cast<double>(bytes_done) /
                       static_cast<double>(total_bytes_);
  std::fprintf(stderr, "\r\033[Kfeedprof: reading %s: %.0f%% of %.1f MiB",
               what_.c_str(), share,
               static_cast<double>(total_bytes_) / (1024.0 * 1024.0));
  std::fflush(stderr);
}

}  // namespace feedprof::common
