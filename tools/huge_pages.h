// Asks the system to back big allocations with transparent huge pages.
//
// Reading and analysing a gigabyte trace writes several gigabytes of fresh
// memory (the timeline's vectors, their sort and merge buffers, the
// analysis' views). With 4 KiB pages every first touch of a page is a page
// fault: about 1.7 million for an 8 × 100 MB session, a fifth of the
// command's CPU time in the kernel on a virtual machine. Where the system
// leaves transparent huge pages to the program (the common `madvise`
// setting of /sys/kernel/mm/transparent_hugepage/enabled), a 2 MiB page
// faulted in at once takes the place of 512 of those faults. Only the
// command-line tool asks for this (tools/huge_page_new.cc): the injected
// library never changes how the host program's memory is backed.
#ifndef FEEDPROF_TOOLS_HUGE_PAGES_H_
#define FEEDPROF_TOOLS_HUGE_PAGES_H_

#include <cstddef>

namespace feedprof::cli {

// Allocations smaller than this are left alone: they hold at most one
// whole huge page, and malloc keeps many of them in its heap among small
// objects. Blocks from here up are the event vectors and their buffers.
// (Measured on an 8 × 100 MB session: from 32 MiB up, 1.67 M page faults
// became 0.34 M; from 4 MiB up, 0.09 M, for 0.2 % more peak memory.)
inline constexpr size_t kHugePageAdviceMinBytes = size_t{4} << 20;

// Whether AdviseHugePages gives its advice: false when the environment
// variable FEEDPROF_HUGE_PAGES is "0" (read once).
bool HugePageAdviceEnabled();

// Advises huge pages (madvise MADV_HUGEPAGE) for the whole 2 MiB-aligned
// huge pages inside [data, data + bytes), when `bytes` is at least
// kHugePageAdviceMinBytes and the advice is enabled. Returns whether the
// system took it; where it cannot (no transparent huge pages, an old
// kernel), the memory stays as it was, which is only slower.
bool AdviseHugePages(const void* data, size_t bytes);

}  // namespace feedprof::cli

#endif  // FEEDPROF_TOOLS_HUGE_PAGES_H_
