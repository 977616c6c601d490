// The process's trace file: opened unnamed at start, named at first write.
//
// Two constraints shape it. Short-lived helper processes must leave nothing
// behind (docs/recording.md), so the file only appears in the session
// directory when something is written to it. And the library's background
// threads must not open files while the program runs: a descriptor taken
// by another thread breaks single-threaded fd juggling such as a shell's
// close(1)/dup2(2, 1) (see private_fd.h). So Open(), called on the thread
// that starts recording (before main, or in the fork handler), creates an
// unnamed O_TMPFILE and writes the header into it: in the session
// directory, or in its parent while the directory does not exist yet (it
// is made at the session's first write, see session_dir.h). The first
// Write() creates the directory if needed (mkdirat(2)) and gives the file
// its name with linkat(2); neither takes a descriptor. An unnamed file
// vanishes by itself if the process ends first. Where O_TMPFILE is not
// supported, the named file is created at the first Write() instead.
//
// Any write error (ENOSPC, EDQUOT, EFBIG, EIO) makes the file `failed`: the
// caller turns recording off with one message, and nothing more is written.
#ifndef FEEDPROF_PRELOAD_TRACE_FILE_H_
#define FEEDPROF_PRELOAD_TRACE_FILE_H_

#include <climits>
#include <cstddef>
#include <cstdint>

#include "preload/process_facts.h"
#include "preload/session_dir.h"

namespace feedprof::preload {

class TraceFile {
 public:
  // Prepares the file of the process described by `facts` in `dir`, with
  // `header` as its first bytes. All three must outlive the file. On
  // failure failed() is true and error_message() says why.
  void Open(SessionDir* dir, const ProcessFacts* facts, const uint8_t* header,
            size_t header_size);

  // Appends `size` bytes, creating the session directory and naming the
  // file first if needed. False on any error (the directory cannot be
  // created included); error_message() then says what failed.
  bool Write(const uint8_t* data, size_t size);

  // Closes the descriptor (keeps path() and counters).
  void Close();

  // Removes the file (trivial process at exit) and closes it.
  void Remove();

  bool created() const { return created_; }  // visible in the directory
  bool failed() const { return failed_; }
  const char* path() const { return path_; }
  const char* error_message() const { return error_; }
  uint64_t bytes_written() const { return bytes_written_; }

 private:
  bool Publish();
  bool LinkUnnamed();
  bool CreateNamed();
  bool WriteAll(const uint8_t* data, size_t size);
  bool Fail(const char* what, int err);

  SessionDir* dir_ = nullptr;
  const ProcessFacts* facts_ = nullptr;
  const uint8_t* header_ = nullptr;
  size_t header_size_ = 0;
  int fd_ = -1;
  bool unnamed_ = false;  // fd_ is an O_TMPFILE not yet linked
  bool created_ = false;
  bool failed_ = false;
  uint64_t bytes_written_ = 0;
  char name_[NAME_MAX + 1] = {};
  char path_[PATH_MAX] = {};
  char error_[PATH_MAX + 160] = {};
};

}  // namespace feedprof::preload

#endif  // FEEDPROF_PRELOAD_TRACE_FILE_H_
