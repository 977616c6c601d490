#include "tools/huge_pages.h"

#include <sys/mman.h>

#include <cstdint>

#include "common/env_switch.h"

namespace feedprof::cli {
namespace {

constexpr uintptr_t kHugePageBytes = uintptr_t{2} << 20;

}  // namespace

bool HugePageAdviceEnabled() {
  static const bool enabled = common::EnvSwitchOn("FEEDPROF_HUGE_PAGES");
  return enabled;
}

bool AdviseHugePages(const void* data, size_t bytes) {
  if (bytes < kHugePageAdviceMinBytes || !HugePageAdviceEnabled()) {
    return false;
  }
  const auto begin = reinterpret_cast<uintptr_t>(data);
  const uintptr_t first = (begin + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
  const uintptr_t last = (begin + bytes) & ~(kHugePageBytes - 1);
  if (last <= first) return false;
#ifdef MADV_HUGEPAGE
  return madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE) ==
         0;
#else
  return false;
#endif
}

}  // namespace feedprof::cli
