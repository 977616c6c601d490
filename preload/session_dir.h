// The session directory: where every process of one recorded run writes its
// trace file.
//
// The first recorded process creates the directory (a new one under the
// current directory by default, or FEEDPROF_OUTPUT_DIR) and exports its
// absolute path in FEEDPROF_SESSION_DIR so exec'd children join it. Output
// must be safe in shared directories such as /tmp: the directory is made
// with mkdir (never reached through a symlink at its last component, and an
// existing one is used only if it is a real directory of the same user),
// and trace files are created with O_EXCL | O_NOFOLLOW relative to the
// directory's descriptor, so nothing existing is ever overwritten.
#ifndef FEEDPROF_PRELOAD_SESSION_DIR_H_
#define FEEDPROF_PRELOAD_SESSION_DIR_H_

#include <sys/types.h>

#include <climits>
#include <cstddef>

#include "preload/config.h"

namespace feedprof::preload {

struct SessionDir {
  char path[PATH_MAX] = {};  // absolute
  int fd = -1;               // O_DIRECTORY descriptor (close-on-exec)
  bool created = false;      // this process created it
};

// Opens the session directory for this process: joins
// config.session_dir when set, else creates config.output_dir (or the
// default "feedprof-YYYYmmdd-HHMMSS-<pid>" under the current directory).
// On failure returns false with a message for the user in `error`.
bool OpenSessionDir(const Config& config, pid_t pid, SessionDir* dir,
                    char* error, size_t error_size);

// Creates a new trace file named by `name_for_attempt(attempt)` in `dir`
// (mode 0644, O_EXCL; on a name clash tries the next attempt). Returns the
// descriptor and the file's path in `path`, or -1 with errno set.
using TraceNameFn = void (*)(const void* context, int attempt, char* out,
                             size_t size);
int CreateTraceFile(const SessionDir& dir, TraceNameFn name_for_attempt,
                    const void* context, char* path, size_t path_size);

void CloseSessionDir(SessionDir* dir);

}  // namespace feedprof::preload

#endif  // FEEDPROF_PRELOAD_SESSION_DIR_H_
