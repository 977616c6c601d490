#include "common/page_recycler.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>

#include "common/release_pages.h"

// The flag's value in the Linux ABI, for C libraries whose headers predate
// it; a kernel that does not know it refuses the call (EINVAL).
#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif

namespace feedprof::common {
namespace {

constexpr uintptr_t kGranule = PageRecycler::kGranuleBytes;

std::atomic<size_t> moved_in_process{0};

uintptr_t RoundDown(uintptr_t at) { return at & ~(kGranule - 1); }
uintptr_t RoundUp(uintptr_t at) { return RoundDown(at + kGranule - 1); }
uintptr_t Address(const void* p) { return reinterpret_cast<uintptr_t>(p); }
void* Pointer(uintptr_t at) { return reinterpret_cast<void*>(at); }

// Moves one granule's pages from `from` to `to`, leaving `from` mapped
// and empty; false where the system would not.
bool MoveGranule(uintptr_t from, uintptr_t to) {
  return mremap(Pointer(from), kGranule, kGranule,
                MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP,
                Pointer(to)) != MAP_FAILED;
}

// Whether the kernel moves pages and leaves their old range mapped: tried
// once on a page of a mapping of its own.
bool ProbeSupport() {
  if (const char* setting = std::getenv("FEEDPROF_RECYCLE_PAGES")) {
    if (std::strcmp(setting, "0") == 0) return false;
  }
  const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  void* mapped = mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) return false;
  auto* bytes = static_cast<unsigned char*>(mapped);
  bytes[0] = 1;
  const bool moved = mremap(bytes, page, page,
                            MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP,
                            bytes + page) != MAP_FAILED &&
                     bytes[page] == 1 && bytes[0] == 0;
  munmap(mapped, 2 * page);
  return moved;
}

}  // namespace

size_t PageRecycler::moved_granules_in_process() {
  return moved_in_process.load(std::memory_order_relaxed);
}

bool PageRecycler::Supported() {
  static const bool supported = ProbeSupport();
  return supported;
}

PageRecycler::PageRecycler(const void* written_end, const void* end)
    : next_(RoundUp(Address(written_end))), end_(RoundDown(Address(end))) {}

const void* PageRecycler::Recycle(const void* begin, const void* end,
                                  const void* written_end) {
  const uintptr_t first = Address(begin);
  const uintptr_t whole_end = RoundDown(Address(end));
  if (whole_end <= first) return begin;
  const uintptr_t whole_begin = RoundUp(first);
  ReleaseWholePages(begin, Pointer(whole_begin));

  uintptr_t from = whole_begin;
  if (Supported()) {
    uintptr_t to = std::max(next_, RoundUp(Address(written_end)));
    const uintptr_t moved_from = from;
    while (from < whole_end && to < end_ && MoveGranule(from, to)) {
      from += kGranule;
      to += kGranule;
    }
    next_ = to;
    const size_t moved = (from - moved_from) / kGranule;
    moved_granules_ += moved;
    moved_in_process.fetch_add(moved, std::memory_order_relaxed);
  }
  ReleaseWholePages(Pointer(from), Pointer(whole_end));
  return Pointer(whole_end);
}

}  // namespace feedprof::common
