// Where a data path lives: its mount (file system type, source, options),
// the block device under it (rotational flag, I/O scheduler), and a short
// read-latency probe of a few of its files.
//
// The probe is read-only and bounded: at most kProbeFiles files found in at
// most kWalkEntries directory entries, the first kProbeBytes of each, and
// kProbeBudget of wall time. It tries O_DIRECT first so the page cache does
// not answer for the disk; where the file system refuses O_DIRECT (tmpfs,
// overlay on some kernels) it reads normally and says the figures may come
// from the cache.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <memory>

#include "absl/strings/str_cat.h"
#include "platform/machine_reader.h"

namespace feedprof::platform {
namespace {

constexpr size_t kProbeFiles = 8;
constexpr size_t kWalkEntries = 2000;
constexpr size_t kProbeBytes = 256 * 1024;
constexpr size_t kAlignment = 4096;
constexpr auto kProbeBudget = std::chrono::milliseconds(300);

bool IsNetworkFs(std::string_view type) {
  for (const char* t :
       {"nfs", "nfs4", "cifs", "smb3", "smbfs", "ceph", "glusterfs", "lustre",
        "beegfs", "gpfs", "9p", "afs", "virtiofs"}) {
    if (type == t) return true;
  }
  return std::string_view(type).starts_with("fuse");
}

// The machine path of `path` with symbolic links resolved, or the reason
// it cannot be found.
std::optional<std::string> Canonical(const MachineRoot& root,
                                     const std::string& path,
                                     std::string* problem) {
  std::error_code ec;
  std::filesystem::path fs_path;
  if (root.live()) {
    fs_path = std::filesystem::absolute(path, ec);
  } else {
    fs_path = root.Path(path[0] == '/' ? path : "/" + path);
  }
  const std::filesystem::path real = std::filesystem::canonical(fs_path, ec);
  if (ec) {
    *problem = absl::StrCat(path, ": ", ec.message());
    return std::nullopt;
  }
  if (root.live()) return real.string();
  // Under a tree: relative to the tree's own resolved path.
  const std::filesystem::path top =
      std::filesystem::canonical(root.Path("/"), ec);
  const std::filesystem::path inside = real.lexically_relative(top);
  if (ec || inside.empty() || *inside.begin() == "..") {
    *problem = absl::StrCat(path, " leads outside ", root.Path("/"));
    return std::nullopt;
  }
  return NormalizeMachinePath("/" + inside.string());
}

void ReadBlockDevice(const MachineRoot& root, const MountEntry& mount,
                     Fact<BlockDeviceFacts>* device) {
  if (std::string why = NoBlockDeviceReason(mount); !why.empty()) {
    device->Unknown(std::move(why));
    return;
  }
  std::string dir;
  if (mount.major != 0) {
    dir = absl::StrCat("/sys/dev/block/", mount.major, ":", mount.minor);
  } else if (std::string_view(mount.source).starts_with("/dev/")) {
    // btrfs and others report an anonymous device number; the source
    // names the disk.
    dir = absl::StrCat("/sys/class/block/",
                       mount.source.substr(mount.source.rfind('/') + 1));
  } else {
    device->Unknown(absl::StrCat("device ", mount.major, ":", mount.minor,
                                 " of ", mount.fs_type,
                                 " is not a block device"));
    return;
  }
  const std::optional<std::string> real = root.ResolveLink(dir);
  if (!real) {
    device->Unknown(absl::StrCat(dir, " does not exist (no block device for ",
                                 mount.source, ")"));
    return;
  }
  BlockDeviceFacts d;
  std::string disk = *real;
  // A partition's queue settings are its disk's.
  if (root.Exists(disk + "/partition")) disk = disk.substr(0, disk.rfind('/'));
  d.name = disk.substr(disk.rfind('/') + 1);
  const FileText rotational = root.Read(disk + "/queue/rotational");
  if (!rotational.ok()) {
    d.rotational.Unknown(rotational.Problem());
  } else if (std::optional<uint64_t> r = ParseUint(rotational.text)) {
    d.rotational.Set(*r != 0);
  } else {
    d.rotational.Unknown(disk + "/queue/rotational is not 0 or 1");
  }
  const FileText scheduler = root.Read(disk + "/queue/scheduler");
  if (!scheduler.ok()) {
    d.scheduler.Unknown(scheduler.Problem());
  } else if (std::optional<std::string> s = BracketedChoice(scheduler.text)) {
    d.scheduler.Set(*s);
  } else {
    // "none" alone, without brackets, on some kernels.
    d.scheduler.Set(std::string(Trim(scheduler.text)));
  }
  device->Set(std::move(d));
}

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

// Reads the first kProbeBytes of `path`; the milliseconds it took, or
// nullopt when it cannot be read. `direct` says whether O_DIRECT worked.
std::optional<double> TimeRead(const std::string& path, bool* direct,
                               uint64_t* bytes, int* error) {
  static_assert(kProbeBytes % kAlignment == 0);
  void* raw = nullptr;
  if (posix_memalign(&raw, kAlignment, kProbeBytes) != 0) return std::nullopt;
  std::unique_ptr<void, FreeDeleter> buf(raw);
  const auto start = std::chrono::steady_clock::now();
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_DIRECT | O_NOATIME);
  if (fd < 0 && errno == EPERM) {
    fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_DIRECT);
  }
  *direct = fd >= 0;
  ssize_t n = -1;
  if (fd >= 0) {
    n = pread(fd, buf.get(), kProbeBytes, 0);
    if (n < 0 && errno == EINVAL) {  // O_DIRECT refused at read time
      close(fd);
      fd = -1;
      *direct = false;
    }
  }
  if (fd < 0) {
    fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      *error = errno;
      return std::nullopt;
    }
    n = pread(fd, buf.get(), kProbeBytes, 0);
  }
  const int read_error = errno;
  close(fd);
  if (n < 0) {
    *error = read_error;
    return std::nullopt;
  }
  *bytes = static_cast<uint64_t>(n);
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

void Probe(const MachineRoot& root, const std::string& machine_path,
           Fact<ReadProbeFacts>* probe) {
  const auto deadline = std::chrono::steady_clock::now() + kProbeBudget;
  std::vector<std::string> files;
  std::deque<std::string> dirs;
  const std::string top = root.Path(machine_path);
  struct stat st;
  if (stat(top.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
    files.push_back(top);
  } else {
    dirs.push_back(top);
  }
  size_t entries = 0;
  bool denied = false;
  while (!dirs.empty() && files.size() < kProbeFiles &&
         entries < kWalkEntries &&
         std::chrono::steady_clock::now() < deadline) {
    const std::string dir = dirs.front();
    dirs.pop_front();
    DIR* d = opendir(dir.c_str());
    if (d == nullptr) {
      denied |= errno == EACCES;
      continue;
    }
    std::vector<std::string> names;
    while (const dirent* e = readdir(d)) {
      if (++entries > kWalkEntries) break;
      if (e->d_name[0] == '.') continue;  // also hidden files: not data
      names.emplace_back(e->d_name);
    }
    closedir(d);
    std::sort(names.begin(), names.end());
    for (const std::string& name : names) {
      if (files.size() >= kProbeFiles) break;
      const std::string p = dir + "/" + name;
      if (lstat(p.c_str(), &st) != 0) continue;
      if (S_ISREG(st.st_mode) && st.st_size > 0) {
        files.push_back(p);
      } else if (S_ISDIR(st.st_mode)) {
        dirs.push_back(p);
      }
    }
  }
  ReadProbeFacts r;
  std::vector<double> ms;
  bool all_direct = true;
  for (const std::string& f : files) {
    if (std::chrono::steady_clock::now() >= deadline) break;
    bool direct = false;
    uint64_t bytes = 0;
    int error = 0;
    const std::optional<double> t = TimeRead(f, &direct, &bytes, &error);
    if (!t) {
      denied |= error == EACCES;
      continue;
    }
    ms.push_back(*t);
    r.bytes += bytes;
    all_direct &= direct;
  }
  if (ms.empty()) {
    probe->Unknown(
        absl::StrCat("skipped: ",
                     denied ? "permission denied reading the files under "
                            : "no readable non-empty regular file under ",
                     machine_path,
                     files.empty() ? "" : " (the files found failed to read)"));
    return;
  }
  std::sort(ms.begin(), ms.end());
  r.files = static_cast<uint32_t>(ms.size());
  r.median_ms = ms[(ms.size() - 1) / 2];
  r.max_ms = ms.back();
  r.direct = all_direct;
  probe->Set(r);
}

}  // namespace

std::string NoBlockDeviceReason(const MountEntry& mount) {
  if (IsNetworkFs(mount.fs_type)) {
    return absl::StrCat(
        mount.fs_type,
        " is a network or user-space file system: there is no local block "
        "device; its latency is the network's and the server's");
  }
  if (mount.fs_type == "overlay") {
    return "overlay (a container's root file system): the device under it "
           "belongs to the container host and is not visible here";
  }
  if (mount.fs_type == "tmpfs" || mount.fs_type == "ramfs") {
    return absl::StrCat(mount.fs_type, " keeps its files in memory: no device");
  }
  return "";
}

StorageFacts ReadStorageFacts(const MachineRoot& root, const std::string& path,
                              bool probe) {
  StorageFacts s;
  s.path = path;
  s.label = absl::StrCat("--data ", path);
  std::string problem;
  const std::optional<std::string> machine_path =
      path.empty() ? std::nullopt : Canonical(root, path, &problem);
  if (!machine_path) {
    if (problem.empty()) problem = "no path given";
    s.mount.Unknown(problem);
    s.device.Unknown(problem);
    s.probe.Unknown(problem);
    return s;
  }
  const FileText mountinfo = root.Read("/proc/self/mountinfo");
  const std::vector<MountEntry> mounts = mountinfo.ok()
                                             ? ParseMountinfo(mountinfo.text)
                                             : std::vector<MountEntry>{};
  const MountEntry* mount = MountOf(mounts, *machine_path);
  if (mount == nullptr) {
    const std::string why =
        mountinfo.ok() ? absl::StrCat("no mount in /proc/self/mountinfo holds ",
                                      *machine_path)
                       : mountinfo.Problem();
    s.mount.Unknown(why);
    s.device.Unknown(why);
  } else {
    s.mount.Set(*mount);
    ReadBlockDevice(root, *mount, &s.device);
  }
  if (probe) {
    Probe(root, *machine_path, &s.probe);
  } else {
    s.probe.Unknown("not probed");
  }
  return s;
}

}  // namespace feedprof::platform
