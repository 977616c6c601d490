// Reading and scanning the small text files of /proc and /sys.
//
// The sampler runs inside someone else's process, many times a second, so
// it cannot use iostreams, std::string or strtod (which follows the host's
// locale: a German locale would read "0.52" as 0). Everything here reads
// into caller-owned fixed buffers and scans them in place: no allocation,
// no exceptions, bounded work.
#ifndef FEEDPROF_PRELOAD_HOST_PROC_TEXT_H_
#define FEEDPROF_PRELOAD_HOST_PROC_TEXT_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace feedprof::preload::host {

// Reads the file `path` (relative to directory fd `dir_fd`, or absolute)
// into `buf` (at most `cap - 1` bytes, NUL-terminated). Returns the number
// of bytes read, or -1 when the file cannot be opened or read. A file
// longer than the buffer is cut at `cap - 1` bytes.
long ReadFileAt(int dir_fd, const char* path, char* buf, size_t cap);

// Same, relative to the current directory or absolute.
long ReadFile(const char* path, char* buf, size_t cap);

// openat(dir_fd, path, flags | O_CLOEXEC), retried on EINTR, with the
// descriptor moved at once to a private high number (preload/private_fd.h):
// the sampler opens files on its own thread while the program runs, and a
// low number held even briefly could be the one a shell is about to dup2
// onto, or the lowest free one a program expects its next open to get.
// -1 when the open fails.
int OpenPrivate(int dir_fd, const char* path, int flags);

// Reads the whole file behind `fd` from offset 0 with pread (the offset of
// the descriptor is neither used nor moved; a procfs file regenerates its
// content on a read from 0) into `buf`, like ReadFileAt.
long PreadText(int fd, char* buf, size_t cap);

// Reads a one-line sysfs attribute and strips trailing whitespace.
// Returns an empty view when the file is missing.
std::string_view ReadAttribute(const char* path, char* buf, size_t cap);

// Parses an unsigned decimal at the start of `s`. Returns false when `s`
// does not start with a digit.
bool ParseUint(std::string_view s, uint64_t* out);

// Parses a hexadecimal number with an optional "0x" prefix ("0x10de").
bool ParseHex(std::string_view s, uint64_t* out);

// Parses a non-negative decimal with an optional fraction ("16.0", "2.5",
// "0.52") independent of the locale. Returns false without a leading digit.
bool ParseDecimal(std::string_view s, double* out);

// Strips spaces, tabs and newlines at both ends.
std::string_view Trim(std::string_view s);

// Splits off the next whitespace-separated token of `*s` and advances `*s`
// past it. Returns an empty view when no token is left.
std::string_view NextToken(std::string_view* s);

// Splits off the part of `*s` before the next `separator` (or all of it)
// and advances `*s` past that separator. Walk a list with
// `while (!s.empty()) NextPart(&s, ',')`.
std::string_view NextPart(std::string_view* s, char separator);

// The next line of `*s`, without its '\n'.
inline std::string_view NextLine(std::string_view* s) {
  return NextPart(s, '\n');
}

// For "Key:   value" files (/proc/meminfo, /proc/PID/status, /proc/PID/io,
// and /proc/cpuinfo's "key\t: value"): returns the trimmed value of the first
// line whose key is `key`, or an empty view when there is none.
std::string_view FindKeyValue(std::string_view text, std::string_view key);

// FindKeyValue followed by ParseUint; false when absent or not a number.
bool FindKeyUint(std::string_view text, std::string_view key, uint64_t* out);

}  // namespace feedprof::preload::host

#endif  // FEEDPROF_PRELOAD_HOST_PROC_TEXT_H_
