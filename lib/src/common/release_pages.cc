#include "common/release_pages.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

namespace feedprof::common {

void ReleaseWholePages(const void* begin, const void* end) {
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  if (page == 0 || (page & (page - 1)) != 0) return;
  const uintptr_t first =
      (reinterpret_cast<uintptr_t>(begin) + page - 1) & ~(page - 1);
  const uintptr_t last = reinterpret_cast<uintptr_t>(end) & ~(page - 1);
  if (last <= first) return;
  // A failure leaves the pages as they were, which is only less thrifty.
  (void)madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

}  // namespace feedprof::common
