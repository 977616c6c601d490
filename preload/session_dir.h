// The session directory: where every process of one recorded run writes its
// trace file.
//
// The first recorded process chooses the directory (a new name under the
// current directory by default, or FEEDPROF_OUTPUT_DIR) and exports its
// absolute path in FEEDPROF_SESSION_DIR so exec'd children join it. The
// directory itself is made only when the first trace file of the session
// is written: a run whose processes all leave no file (a shell and its
// helpers) leaves nothing behind. Until then each process holds its
// parent directory, where it keeps its unnamed trace file (same file
// system, so the file can be linked into the directory once it exists);
// whichever process writes first creates it, the others join it.
//
// Output must be safe in shared directories such as /tmp: the directory is
// made with mkdir (a symlink at its name is never followed; an existing one
// is used only if it is a real directory of the same user), and trace
// files are created with O_EXCL | O_NOFOLLOW, so nothing existing is ever
// overwritten.
//
// A default-named session never joins another run's directory. Its name is
// new when chosen, but another run (the same pid in another pid namespace,
// in the same second) may create the same name before this session writes.
// So the default session carries a random token (FEEDPROF_SESSION_TOKEN,
// exported with FEEDPROF_SESSION_DIR) and whoever creates the directory
// puts an empty marker file ".feedprof-session-<token>" in it. A process
// that finds the name taken without its marker tries "<name>-1", "<name>-2",
// ... in order: every process of the session walks the same names with the
// same token, so they all end up in the same directory. An explicit
// FEEDPROF_OUTPUT_DIR has no marker: processes started with the same one
// (ranks of one job) deliberately share it.
#ifndef FEEDPROF_PRELOAD_SESSION_DIR_H_
#define FEEDPROF_PRELOAD_SESSION_DIR_H_

#include <sys/types.h>

#include <climits>
#include <cstddef>

#include "preload/config.h"

namespace feedprof::preload {

inline constexpr char kEnvSessionToken[] = "FEEDPROF_SESSION_TOKEN";
// The pid of the process that started the session. An exec in that same
// process (a pyenv shim, `bash -c 'exec python ...'`, `env`, `nice`) loads
// the library again as an exec'd process; by this pid it knows that it is
// still the process the user started.
inline constexpr char kEnvSessionPid[] = "FEEDPROF_SESSION_PID";

struct SessionDir {
  // The chosen absolute path, as exported to children. Fixed at start.
  char path[PATH_MAX] = {};
  // The directory in use: `path`, or `path-N` when another run took that
  // name first (default-named sessions only). Set by EnsureSessionDir.
  char used_path[PATH_MAX] = {};
  int fd = -1;                        // the directory, when it existed at start
  int parent_fd = -1;                 // its parent, while it may not exist yet
  char leaf[NAME_MAX + 1] = {};       // its name in parent_fd (`used_path`'s)
  char base_leaf[NAME_MAX + 1] = {};  // `path`'s last component
  char token[17] = {};                // default-named sessions: the marker's id
  // This process started the session (also after an exec of its own).
  bool created = false;
  bool exists = false;  // the directory exists and is this session's
};

// Prepares the session directory of this process without creating it:
// joins config.session_dir when set (`inherited_token` is that session's
// FEEDPROF_SESSION_TOKEN, or null; `created` is set when `pid` is the
// session's starter after an exec, IsSessionStarter), else chooses
// config.output_dir (its missing parents are created now) or a new default
// "feedprof-YYYYmmdd-HHMMSS-<pid>" under the current directory. A
// directory that already exists is checked (a real directory of this user)
// and opened now. Runs on the thread that starts recording: it may open
// descriptors. On failure returns false with a message in `error`.
bool OpenSessionDir(const Config& config, pid_t pid,
                    const char* inherited_token, SessionDir* dir, char* error,
                    size_t error_size);

// True when `pid` is the one FEEDPROF_SESSION_PID names: the process that
// started the session, loading the library again after an exec.
bool IsSessionStarter(pid_t pid);

// Makes sure the directory exists: creates it (with the marker) or checks
// and joins it. Takes no file descriptor, so the writer thread may call
// it. On failure returns false with a message in `error`.
bool EnsureSessionDir(SessionDir* dir, char* error, size_t error_size);

// The directory descriptor and relative path through which entry `name`
// of the session directory is reached (`name` itself, or "leaf/name"
// relative to the parent). Returns -1 when the path does not fit.
int SessionDirEntry(const SessionDir& dir, const char* name, char* rel,
                    size_t rel_size);

// The directory a trace file is prepared in before the session directory
// exists: the session directory when open, else its parent.
inline int SessionDirStagingFd(const SessionDir& dir) {
  return dir.fd >= 0 ? dir.fd : dir.parent_fd;
}

// Creates the session directory if needed and a new trace file named by
// `name_for_attempt(attempt)` in it (mode 0644, O_EXCL; on a name clash
// tries the next attempt). Returns the descriptor and the file's path in
// `path`, or -1 with errno set.
using TraceNameFn = void (*)(const void* context, int attempt, char* out,
                             size_t size);
int CreateTraceFile(SessionDir* dir, TraceNameFn name_for_attempt,
                    const void* context, char* path, size_t path_size);

void CloseSessionDir(SessionDir* dir);

}  // namespace feedprof::preload

#endif  // FEEDPROF_PRELOAD_SESSION_DIR_H_
