#include "platform/machine_root.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "platform/proc_sys_text.h"

namespace feedprof::platform {
namespace {

ReadOutcome OutcomeOf(int error) {
  if (error == ENOENT || error == ENOTDIR) return ReadOutcome::kMissing;
  if (error == EACCES || error == EPERM) return ReadOutcome::kDenied;
  return ReadOutcome::kError;
}

}  // namespace

std::string FileText::Problem() const {
  switch (outcome) {
    case ReadOutcome::kOk:
      return "";
    case ReadOutcome::kMissing:
      return absl::StrCat(path, " does not exist");
    case ReadOutcome::kDenied:
      return absl::StrCat("permission denied reading ", path);
    case ReadOutcome::kError:
      break;
  }
  return absl::StrCat("cannot read ", path, ": ", std::strerror(error));
}

std::string NormalizeMachinePath(std::string_view path) {
  std::vector<std::string_view> parts;
  for (std::string_view part : Split(path, '/', true)) {
    if (part == ".") continue;
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(part);
  }
  std::string out;
  for (std::string_view part : parts)
    absl::StrAppend(&out, "/", std::string(part));
  return out.empty() ? "/" : out;
}

MachineRoot::MachineRoot(std::string root) : root_(std::move(root)) {
  while (!root_.empty() && root_.back() == '/') root_.pop_back();
}

std::string MachineRoot::Path(std::string_view machine_path) const {
  return absl::StrCat(root_, std::string(machine_path));
}

std::string MachineRoot::MachinePath(std::string_view path) const {
  if (root_.empty()) return std::string(path);
  if (!ConsumePrefix(&path, root_)) return "";
  if (path.empty()) return "/";
  return path[0] == '/' ? std::string(path) : "";
}

FileText MachineRoot::Read(std::string_view machine_path,
                           size_t max_bytes) const {
  FileText f;
  f.path = std::string(machine_path);
  const std::string path = Path(machine_path);
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    f.error = errno;
    f.outcome = OutcomeOf(f.error);
    return f;
  }
  char buf[8192];
  while (f.text.size() < max_bytes) {
    const size_t want = std::min(sizeof buf, max_bytes - f.text.size());
    const ssize_t n = read(fd, buf, want);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      f.error = errno;
      f.outcome = OutcomeOf(f.error);
      close(fd);
      f.text.clear();
      return f;
    }
    if (n == 0) break;
    f.text.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  f.outcome = ReadOutcome::kOk;
  return f;
}

std::optional<std::string> MachineRoot::Attribute(
    std::string_view machine_path) const {
  FileText f = Read(machine_path, 64 * 1024);
  if (!f.ok()) return std::nullopt;
  return std::string(Trim(f.text));
}

std::vector<std::string> MachineRoot::List(std::string_view machine_dir,
                                           ReadOutcome* outcome) const {
  std::vector<std::string> names;
  DIR* dir = opendir(Path(machine_dir).c_str());
  if (dir == nullptr) {
    if (outcome != nullptr) *outcome = OutcomeOf(errno);
    return names;
  }
  while (const dirent* e = readdir(dir)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) {
      continue;
    }
    names.emplace_back(e->d_name);
  }
  closedir(dir);
  std::sort(names.begin(), names.end());
  if (outcome != nullptr) *outcome = ReadOutcome::kOk;
  return names;
}

bool MachineRoot::Exists(std::string_view machine_path) const {
  struct stat st;
  return stat(Path(machine_path).c_str(), &st) == 0;
}

std::optional<std::string> MachineRoot::ResolveLink(
    std::string_view machine_path) const {
  char target[4096];
  const ssize_t n =
      readlink(Path(machine_path).c_str(), target, sizeof target - 1);
  if (n <= 0) return std::nullopt;
  const std::string_view link(target, static_cast<size_t>(n));
  if (!link.empty() && link[0] == '/') {
    // An absolute target names a machine path (sysfs links are relative,
    // but a constructed tree may use either).
    const std::string inside = MachinePath(link);
    return NormalizeMachinePath(inside.empty() ? link : inside);
  }
  const size_t slash = machine_path.rfind('/');
  const std::string_view parent =
      slash == std::string_view::npos ? "" : machine_path.substr(0, slash);
  return NormalizeMachinePath(
      absl::StrCat(std::string(parent), "/", std::string(link)));
}

}  // namespace feedprof::platform
