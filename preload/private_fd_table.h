// Gives one of the library's threads a descriptor table of its own.
//
// A thread that opens files while the program runs shares the program's
// descriptor table: each open takes the lowest free number, even if only
// until it is moved high (private_fd.h). A shell between close(1) and
// dup2(2, 1) then fails with EBUSY, or a daemon reopening its standard
// descriptors gets the wrong numbers. A thread that unshares its table
// (unshare(CLONE_FILES)) opens into its own table and can never collide.
// The copy it starts with holds every descriptor the program had: all but
// the ones the thread needs are closed at once, so that a pipe or socket
// the program closes later is not kept open behind its back.
#ifndef FEEDPROF_PRELOAD_PRIVATE_FD_TABLE_H_
#define FEEDPROF_PRELOAD_PRIVATE_FD_TABLE_H_

#include <cstddef>

namespace feedprof::preload {

// Whether a seccomp filter confines the process (Seccomp: 2 in
// /proc/self/status; true when that cannot be read). A filter may kill the
// process for a system call it does not list, such as unshare or
// close_range, so UsePrivateDescriptorTable is only for processes without
// one. Opens a file: call it where the program cannot be juggling
// descriptors (before main, or in a fork child handler).
bool SeccompFilterActive();

// Unshares the calling thread's descriptor table and closes in it every
// descriptor except the `count` ones in `keep` (negative entries are
// ignored; at most 16 are kept). Returns false, changing nothing, when the
// kernel or a seccomp filter refuses (containers often forbid unshare):
// the thread then goes on sharing the program's table.
bool UsePrivateDescriptorTable(const int* keep, size_t count);

}  // namespace feedprof::preload

#endif  // FEEDPROF_PRELOAD_PRIVATE_FD_TABLE_H_
