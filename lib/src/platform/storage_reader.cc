// Where a data path lives: its mount (file system type, source, options),
// the block device under it (rotational flag, I/O scheduler), and a short
// read-latency probe of a few of its files.
//
// The probe is read-only and bounded: at most kProbeFiles files found in at
// most kWalkEntries directory entries, the first kProbeBytes of each, and
// kProbeBudget of wall time. It tries O_DIRECT first so the page cache does
// not answer for the disk; where the file system refuses O_DIRECT (tmpfs,
// overlay on some kernels) it reads normally and says the figures may come
// from the cache. It counts its own read calls (one pread of up to
// kProbeBytes per file, more only where the file system returns less
// before the end) and times each, so its figures compare with strace's.
//
// Around the reads it takes two readings of the kernel's counters: the
// disk's /proc/diskstats line (iostat's figures: reads, sizes, r_await,
// %util) and, on NFS, the mount's /proc/self/mountstats RPC statistics;
// their difference is what the device or the NFS client did meanwhile.
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
#include "platform/diskstats_reader.h"
#include "platform/file_system_kind.h"
#include "platform/machine_reader.h"
#include "platform/nfs_mountstats_reader.h"
#include "platform/storage_probe.h"

namespace feedprof::platform {
namespace {

constexpr size_t kProbeFiles = 8;
constexpr size_t kWalkEntries = 2000;
constexpr size_t kProbeBytes = 256 * 1024;
constexpr size_t kAlignment = 4096;
constexpr auto kProbeBudget = std::chrono::milliseconds(300);

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

double MsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

// The read calls of the probe, as strace would count them.
struct ReadCalls {
  uint64_t calls = 0;
  double total_ms = 0;
  double max_ms = 0;

  void Add(double ms) {
    ++calls;
    total_ms += ms;
    max_ms = std::max(max_ms, ms);
  }
};

// One file's read: the time from open to close, the bytes, whether
// O_DIRECT worked, and its read calls.
struct FileRead {
  double ms = 0;
  uint64_t bytes = 0;
  bool direct = false;
  ReadCalls calls;
};

// Reads the first kProbeBytes of `path` (all of a smaller file) with as
// many pread calls as the file system needs: one, unless it returns less
// than asked before the end. nullopt when the file cannot be read, with
// `*error` set.
std::optional<FileRead> TimeRead(const std::string& path, int* error) {
  static_assert(kProbeBytes % kAlignment == 0);
  void* raw = nullptr;
  if (posix_memalign(&raw, kAlignment, kProbeBytes) != 0) {
    *error = ENOMEM;
    return std::nullopt;
  }
  std::unique_ptr<void, FreeDeleter> buf(raw);
  char* const data = static_cast<char*>(buf.get());
  FileRead r;
  const auto start = std::chrono::steady_clock::now();
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_DIRECT | O_NOATIME);
  if (fd < 0 && errno == EPERM) {
    fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_DIRECT);
  }
  r.direct = fd >= 0;
  if (fd < 0) {
    fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      *error = errno;
      return std::nullopt;
    }
  }
  // A file shorter than the probe ends at its size: no call to find EOF.
  uint64_t want = kProbeBytes;
  struct stat st;
  if (fstat(fd, &st) == 0 && st.st_size >= 0 &&
      static_cast<uint64_t>(st.st_size) < want) {
    want = static_cast<uint64_t>(st.st_size);
  }
  while (r.bytes < want) {
    const auto call = std::chrono::steady_clock::now();
    const ssize_t n = pread(fd, data + r.bytes, kProbeBytes - r.bytes, r.bytes);
    const double call_ms = MsSince(call);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EINVAL && r.direct && r.calls.calls == 0) {
      // O_DIRECT refused at read time (alignment the file system wants):
      // read through the page cache instead; the refused call moved no
      // data and does not count.
      close(fd);
      fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) {
        *error = errno;
        return std::nullopt;
      }
      r.direct = false;
      continue;
    }
    if (n < 0) {
      *error = errno;
      close(fd);
      return std::nullopt;
    }
    r.calls.Add(call_ms);
    if (n == 0) break;  // the file shrank
    r.bytes += static_cast<uint64_t>(n);
    // O_DIRECT needs aligned offsets: a short read there is the end.
    if (r.direct && r.bytes % kAlignment != 0) break;
  }
  close(fd);
  r.ms = MsSince(start);
  return r;
}

// Regular non-empty files under `machine_path` (or the file itself), in
// sorted breadth-first order, within the walk's limits and `deadline`.
std::vector<std::string> FindProbeFiles(
    const MachineRoot& root, const std::string& machine_path,
    std::chrono::steady_clock::time_point deadline, bool* denied) {
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
  while (!dirs.empty() && files.size() < kProbeFiles &&
         entries < kWalkEntries &&
         std::chrono::steady_clock::now() < deadline) {
    const std::string dir = dirs.front();
    dirs.pop_front();
    DIR* d = opendir(dir.c_str());
    if (d == nullptr) {
      *denied |= errno == EACCES;
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
  return files;
}

// Reads `files` (until `deadline`) into `probe`.
void ReadProbeFiles(const std::vector<std::string>& files,
                    const std::string& machine_path,
                    std::chrono::steady_clock::time_point deadline, bool denied,
                    Fact<ReadProbeFacts>* probe) {
  const auto start = std::chrono::steady_clock::now();
  ReadProbeFacts r;
  std::vector<double> ms;
  ReadCalls calls;
  bool all_direct = true;
  for (const std::string& f : files) {
    if (std::chrono::steady_clock::now() >= deadline) break;
    int error = 0;
    const std::optional<FileRead> read = TimeRead(f, &error);
    if (!read) {
      denied |= error == EACCES;
      continue;
    }
    ms.push_back(read->ms);
    r.bytes += read->bytes;
    all_direct &= read->direct;
    calls.calls += read->calls.calls;
    calls.total_ms += read->calls.total_ms;
    calls.max_ms = std::max(calls.max_ms, read->calls.max_ms);
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
  r.elapsed_ms = MsSince(start);
  std::sort(ms.begin(), ms.end());
  r.files = static_cast<uint32_t>(ms.size());
  r.median_ms = ms[(ms.size() - 1) / 2];
  r.max_ms = ms.back();
  r.direct = all_direct;
  r.read_calls = calls.calls;
  r.read_mean_ms = calls.calls == 0
                       ? 0.0
                       : calls.total_ms / static_cast<double>(calls.calls);
  r.read_max_ms = calls.max_ms;
  probe->Set(r);
}

bool IsNfs(std::string_view type) { return type == "nfs" || type == "nfs4"; }

// The counters read around the probe's reads: the disk's, and an NFS
// mount's RPC statistics.
struct CounterReadings {
  Fact<DiskStats> disk;
  Fact<MountStats> nfs;
};

CounterReadings ReadCounters(const MachineRoot& root, const StorageFacts& s) {
  CounterReadings c;
  if (s.device.known()) {
    c.disk = ReadDiskStats(root, s.device->name);
  } else {
    c.disk.Unknown(s.device.why_unknown);
  }
  if (!s.mount.known()) {
    c.nfs.Unknown(s.mount.why_unknown);
  } else if (IsNfs(s.mount->fs_type)) {
    c.nfs = ReadNfsMountStats(root, s.mount->mount_point);
  } else if (FileSystemKindOf(s.mount->fs_type) == FileSystemKind::kNetwork) {
    c.nfs.Unknown(absl::StrCat(
        "the kernel keeps RPC statistics (/proc/self/mountstats) for NFS "
        "mounts only; ",
        s.mount->fs_type, " has none"));
  } else {
    c.nfs.Unknown(
        absl::StrCat(s.mount->fs_type, " is not a network file system"));
  }
  return c;
}

void Probe(const MachineRoot& root, const std::string& machine_path,
           const ProbeSeam& seam, StorageFacts* s) {
  const auto deadline = std::chrono::steady_clock::now() + kProbeBudget;
  bool denied = false;
  const std::vector<std::string> files =
      FindProbeFiles(root, machine_path, deadline, &denied);
  // The counters bracket the reads only: the walk's directory reads are
  // not the probe's.
  const CounterReadings before = ReadCounters(root, *s);
  const auto start = std::chrono::steady_clock::now();
  ReadProbeFiles(files, machine_path, deadline, denied, &s->probe);
  const double elapsed_ms = seam.elapsed_ms.value_or(MsSince(start));
  if (seam.after_reads) seam.after_reads();
  const CounterReadings after = ReadCounters(root, *s);
  if (!s->probe.known()) {
    // No device (or no statistics) says more than no files.
    const std::string why =
        absl::StrCat("not measured: the read probe read no file (",
                     s->probe.why_unknown, ")");
    s->device_reads.Unknown(before.disk.known() ? why
                                                : before.disk.why_unknown);
    s->nfs_reads.Unknown(before.nfs.known() ? why : before.nfs.why_unknown);
    return;
  }
  if (!before.disk.known() || !after.disk.known()) {
    s->device_reads.Unknown(before.disk.known() ? after.disk.why_unknown
                                                : before.disk.why_unknown);
  } else {
    s->device_reads = DiskReadDelta(*before.disk, *after.disk, elapsed_ms);
  }
  if (!before.nfs.known() || !after.nfs.known()) {
    s->nfs_reads.Unknown(before.nfs.known() ? after.nfs.why_unknown
                                            : before.nfs.why_unknown);
  } else {
    s->nfs_reads = NfsReadDelta(*before.nfs, *after.nfs, elapsed_ms);
  }
}

}  // namespace

std::string NoBlockDeviceReason(const MountEntry& mount) {
  const FileSystemKind kind = FileSystemKindOf(mount.fs_type);
  if (IsRemoteFileSystem(kind)) {
    return absl::StrCat(
        mount.fs_type,
        " is a network or user-space file system: there is no local block "
        "device; its latency is the network's and the server's");
  }
  if (kind == FileSystemKind::kOverlay) {
    return "overlay (a container's root file system): the device under it "
           "belongs to the container host and is not visible here";
  }
  if (kind == FileSystemKind::kMemory) {
    return absl::StrCat(mount.fs_type, " keeps its files in memory: no device");
  }
  return "";
}

StorageFacts ReadStorageFacts(const MachineRoot& root, const std::string& path,
                              bool probe) {
  return ReadStorageFacts(root, path, probe, ProbeSeam{});
}

StorageFacts ReadStorageFacts(const MachineRoot& root, const std::string& path,
                              bool probe, const ProbeSeam& seam) {
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
    s.device_reads.Unknown(problem);
    s.nfs_reads.Unknown(problem);
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
    Probe(root, *machine_path, seam, &s);
  } else {
    s.probe.Unknown("not probed");
    s.device_reads.Unknown("not probed");
    s.nfs_reads.Unknown("not probed");
  }
  return s;
}

}  // namespace feedprof::platform
