// Hands the memory a merge has read to the memory it is about to write, so
// that its output is written on pages that already exist.
//
// Why: merging the sorted runs of a session's event vectors writes every
// event once into a new vector. That vector's memory is fresh: each page
// is zeroed by the system on its first touch, and on a virtual machine
// first touches also fault in the host. On an 8 × 100 MB session those
// faults inside the merge were a seventh of the command's CPU time, while
// the runs' pages behind the merge were being given back (release_pages.h)
// as fast as the new ones were faulted in. Here the runs' pages are moved
// instead (Linux mremap with MREMAP_DONTUNMAP, since 5.7): their physical
// memory lands, contents and all, on the output's next unwritten pages,
// which the merge then overwrites; the runs' ranges stay mapped and read
// as zeros, as after ReleaseWholePages. Where the system cannot move them
// (an older kernel, a range split between mappings, too many mappings),
// the pages are given back as before, which is only slower.
//
// Memory moves in aligned 2 MiB granules, the size of a transparent huge
// page, so that a huge page moves as one.
//
// Only for memory that nothing reads again, between blocks of trivially
// copyable events: the moved-to range must lie wholly inside the output's
// own allocation, beyond anything written to it. Not thread-safe: one
// recycler per output, used by the thread that writes it.
#ifndef FEEDPROF_COMMON_PAGE_RECYCLER_H_
#define FEEDPROF_COMMON_PAGE_RECYCLER_H_

#include <cstddef>
#include <cstdint>

namespace feedprof::common {

class PageRecycler {
 public:
  static constexpr size_t kGranuleBytes = size_t{2} << 20;

  // The output's allocation from `written_end` (the first byte not yet
  // written) to `end`.
  PageRecycler(const void* written_end, const void* end);

  // [begin, end) of an input is never read again, and the output is
  // written up to `written_end`: the whole granules inside the input range
  // move to the output's next granules past `written_end` while there are
  // any, and the input range's other whole pages are given back. Returns
  // where the caller may start its next range: `end` rounded down to a
  // granule (the bytes from there on were left as they were, since the
  // granule holding them is not whole yet) or `begin`, if that is later.
  const void* Recycle(const void* begin, const void* end,
                      const void* written_end);

  // Granules this recycler moved, and all recyclers of the process (for
  // tests and benchmarks).
  size_t moved_granules() const { return moved_granules_; }
  static size_t moved_granules_in_process();

  // Whether this system moves pages at all (checked once).
  static bool Supported();

 private:
  uintptr_t next_;  // the output's first granule not yet given pages
  uintptr_t end_;   // the end of the output's last whole granule
  size_t moved_granules_ = 0;
};

}  // namespace feedprof::common

#endif  // FEEDPROF_COMMON_PAGE_RECYCLER_H_
