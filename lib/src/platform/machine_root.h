// Reading procfs and sysfs under a root directory.
//
// The platform checks read the same files on the live machine (root "/")
// and in tests on constructed trees copied from real machines (root a
// temporary directory). A check must tell a missing file (no cpufreq in a
// VM, no sysfs in a container) from one it may not read (another user's
// /proc/PID/numa_maps), because the user's next step differs; so every read
// returns the outcome with the text, and says what went wrong in words.
#ifndef FEEDPROF_PLATFORM_MACHINE_ROOT_H_
#define FEEDPROF_PLATFORM_MACHINE_ROOT_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace feedprof::platform {

enum class ReadOutcome { kOk, kMissing, kDenied, kError };

struct FileText {
  ReadOutcome outcome = ReadOutcome::kMissing;
  std::string path;  // as the machine names it ("/proc/meminfo")
  std::string text;  // the contents when ok
  int error = 0;     // errno of the failed open or read

  bool ok() const { return outcome == ReadOutcome::kOk; }
  // "/sys/... does not exist", "permission denied reading /proc/1/...".
  std::string Problem() const;
};

class MachineRoot {
 public:
  // `root` holds proc/ and sys/; "/" is the running machine.
  explicit MachineRoot(std::string root = "/");

  bool live() const { return root_.empty(); }
  // The file system path of `machine_path` (an absolute path on the
  // machine) under the root.
  std::string Path(std::string_view machine_path) const;
  // The machine path of a file system path under the root (the inverse of
  // Path); empty when `path` is outside the root.
  std::string MachinePath(std::string_view path) const;

  // Reads a text file, at most `max_bytes` of it.
  FileText Read(std::string_view machine_path,
                size_t max_bytes = 1 << 20) const;
  // A one-line attribute, trimmed; nullopt when it cannot be read.
  std::optional<std::string> Attribute(std::string_view machine_path) const;
  // Names in a directory, sorted, without "." and ".."; `outcome` (when
  // set) says whether the directory could be read.
  std::vector<std::string> List(std::string_view machine_dir,
                                ReadOutcome* outcome = nullptr) const;
  bool Exists(std::string_view machine_path) const;
  // The machine path a symbolic link at `machine_path` points to, made
  // absolute and without "." or ".." parts; nullopt when it is no link.
  std::optional<std::string> ResolveLink(std::string_view machine_path) const;

 private:
  std::string root_;  // without a trailing slash; "" for "/"
};

// "/a/b/../c" -> "/a/c"; keeps the path absolute.
std::string NormalizeMachinePath(std::string_view path);

}  // namespace feedprof::platform

#endif  // FEEDPROF_PLATFORM_MACHINE_ROOT_H_
