// Gives the memory of consumed events back to the system before the vector
// that holds them is freed.
//
// Merging the sorted runs of a big event vector writes every event once
// into a new vector; holding the old one whole until the end would double
// that vector's memory at the peak. The merge moves events out front to
// back, so the pages behind the last one taken are never read again: here
// they are returned (madvise MADV_DONTNEED), and the resident memory of the
// old and the new vector together stays about one vector's. Only for
// events that are trivially copyable and destructible, whose moved-from
// bytes nothing reads again, not even a destructor.
#ifndef FEEDPROF_COMMON_RELEASE_PAGES_H_
#define FEEDPROF_COMMON_RELEASE_PAGES_H_

#include <cstddef>

namespace feedprof::common {

// Returns to the system the whole pages that lie inside [begin, end) (the
// partial pages at either end are kept: they may hold other data). Their
// contents read as zeros afterwards; the range stays valid memory. Does
// nothing where the system cannot (the memory is kept then).
void ReleaseWholePages(const void* begin, const void* end);

}  // namespace feedprof::common

#endif  // FEEDPROF_COMMON_RELEASE_PAGES_H_
