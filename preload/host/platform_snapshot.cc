#include "preload/host/platform_snapshot.h"

#include <dirent.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "preload/host/cpu_list.h"
#include "preload/host/data_mounts.h"
#include "preload/host/mount_lookup.h"
#include "preload/host/proc_parsers.h"
#include "preload/host/proc_text.h"

namespace feedprof::preload::host {
namespace {

using feedprof::wire::WireWriter;

// Field numbers of proto/feedprof.proto.
namespace platform {
constexpr uint32_t kCpuModel = 1;
constexpr uint32_t kLogicalCpus = 2;
constexpr uint32_t kOnlineCpus = 3;
constexpr uint32_t kGovernor = 4;
constexpr uint32_t kCpuMaxKhz = 5;
constexpr uint32_t kCpuCurKhz = 6;
constexpr uint32_t kNumaNodes = 7;
constexpr uint32_t kCpuAffinity = 8;
constexpr uint32_t kMemsAllowed = 9;
constexpr uint32_t kCgroupCpuLimit = 10;
constexpr uint32_t kMemoryTotal = 11;
constexpr uint32_t kPciDevices = 12;
constexpr uint32_t kKernelRelease = 13;
constexpr uint32_t kNvidiaProbed = 14;
constexpr uint32_t kNvidiaDriverVersion = 15;
constexpr uint32_t kHostFactsProbed = 16;
constexpr uint32_t kOnlineCpuList = 17;
constexpr uint32_t kCpuScalingDriver = 18;
constexpr uint32_t kThreadsPerCore = 19;
constexpr uint32_t kSmtControl = 20;
constexpr uint32_t kMemoryPolicy = 21;
constexpr uint32_t kMemlockLimit = 22;
constexpr uint32_t kCgroupMemoryLimit = 23;
constexpr uint32_t kMemoryAvailable = 24;
constexpr uint32_t kMemoryDirty = 25;
constexpr uint32_t kMemoryWriteback = 26;
constexpr uint32_t kSwapTotal = 27;
constexpr uint32_t kSwapFree = 28;
constexpr uint32_t kTransparentHugepage = 29;
constexpr uint32_t kTransparentHugepageDefrag = 30;
constexpr uint32_t kRdmaDevices = 31;
constexpr uint32_t kWorkingDirectoryMount = 32;
constexpr uint32_t kDataMounts = 33;
}  // namespace platform
namespace mount {
constexpr uint32_t kPath = 1;
constexpr uint32_t kMountPoint = 2;
constexpr uint32_t kFsType = 3;
constexpr uint32_t kSource = 4;
constexpr uint32_t kOptions = 5;
constexpr uint32_t kBlockDevice = 6;
constexpr uint32_t kDiskKind = 7;
constexpr uint32_t kScheduler = 8;
}  // namespace mount
namespace numa {
constexpr uint32_t kId = 1;
constexpr uint32_t kCpus = 2;
constexpr uint32_t kMemoryTotal = 3;
}  // namespace numa
namespace pci {
constexpr uint32_t kBusId = 1;
constexpr uint32_t kVendorId = 2;
constexpr uint32_t kDeviceId = 3;
constexpr uint32_t kClassCode = 4;
constexpr uint32_t kNumaNode = 5;
constexpr uint32_t kLocalCpus = 6;
constexpr uint32_t kCurrentLinkGts = 7;
constexpr uint32_t kMaxLinkGts = 8;
constexpr uint32_t kCurrentLinkWidth = 9;
constexpr uint32_t kMaxLinkWidth = 10;
}  // namespace pci

constexpr uint64_t kNvidiaVendorId = 0x10de;
// Bounds that keep the snapshot's stack use near 12 KiB: it may run on a
// program thread with a small stack (the child side of a fork).
constexpr size_t kMaxNumaNodes = 256;
constexpr size_t kMaxPciDevices =
    128;                            // NVIDIA functions: GPUs, audio, NVSwitch
constexpr size_t kBusIdBytes = 16;  // "0000:3b:00.0"
constexpr size_t kPathBytes = 1024;
constexpr size_t kTextBytes = 4096;  // the first CPU's /proc/cpuinfo entry
constexpr uint64_t kUnlimited = ~uint64_t{0};
// v1 memory.limit_in_bytes prints PAGE_COUNTER_MAX pages for "no limit".
constexpr uint64_t kNoMemoryLimitAbove = uint64_t{1} << 60;

// Paths under the sources' root.
class RootPaths {
 public:
  explicit RootPaths(const char* root) : root_(root) {
    // "/" + "/proc" would work, but keep paths tidy.
    if (std::strcmp(root_, "/") == 0) root_ = "";
  }
  const char* Get(const char* fmt, ...) __attribute__((format(printf, 2, 3)));

 private:
  const char* root_;
  char path_[kPathBytes];
};

const char* RootPaths::Get(const char* fmt, ...) {
  const int n = std::snprintf(path_, sizeof path_, "%s", root_);
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(path_ + n, sizeof path_ - static_cast<size_t>(n), fmt, args);
  va_end(args);
  return path_;
}

bool ReadUintAttr(const char* path, uint64_t* out) {
  char buf[64];
  return ParseUint(ReadAttribute(path, buf, sizeof buf), out);
}

// Hexadecimal ("0x10de" for a PCI vendor).
bool ReadHexAttr(const char* path, uint64_t* out) {
  char buf[64];
  return ParseHex(ReadAttribute(path, buf, sizeof buf), out);
}

// Signed decimal ("-1" for an unknown NUMA node).
bool ReadIntAttr(const char* path, int64_t* out) {
  char buf[64];
  std::string_view v = ReadAttribute(path, buf, sizeof buf);
  const bool negative = !v.empty() && v[0] == '-';
  if (negative) v.remove_prefix(1);
  uint64_t u = 0;
  if (!ParseUint(v, &u)) return false;
  *out = negative ? -static_cast<int64_t>(u) : static_cast<int64_t>(u);
  return true;
}

// "16.0 GT/s PCIe", "8 GT/s", "2.5 GT/s": the GT/s number; 0 for "Unknown".
double ReadLinkSpeedGts(const char* path) {
  char buf[64];
  double v = 0;
  return ParseDecimal(ReadAttribute(path, buf, sizeof buf), &v) ? v : 0.0;
}

bool IsDirectory(const char* path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

void WriteCpuFacts(WireWriter& w, RootPaths& paths, bool live, char* text) {
  // Model: x86 "model name"; some other architectures say "Model" or
  // "Processor". The first CPU's entry is enough.
  const long n = ReadFile(paths.Get("/proc/cpuinfo"), text, kTextBytes);
  if (n > 0) {
    const std::string_view cpuinfo(text, static_cast<size_t>(n));
    std::string_view model = FindKeyValue(cpuinfo, "model name");
    if (model.empty()) model = FindKeyValue(cpuinfo, "Model");
    if (model.empty()) model = FindKeyValue(cpuinfo, "Processor");
    w.String(platform::kCpuModel, model);
  }
  uint32_t logical = CountCpuList(ReadAttribute(
      paths.Get("/sys/devices/system/cpu/present"), text, kTextBytes));
  if (logical == 0) {
    logical = CountCpuList(ReadAttribute(
        paths.Get("/sys/devices/system/cpu/possible"), text, kTextBytes));
  }
  uint32_t online = CountCpuList(ReadAttribute(
      paths.Get("/sys/devices/system/cpu/online"), text, kTextBytes));
  if (live && logical == 0) {
    const long c = sysconf(_SC_NPROCESSORS_CONF);
    if (c > 0) logical = static_cast<uint32_t>(c);
  }
  if (live && online == 0) {
    const long c = sysconf(_SC_NPROCESSORS_ONLN);
    if (c > 0) online = static_cast<uint32_t>(c);
  }
  w.Uint(platform::kLogicalCpus, logical);
  w.Uint(platform::kOnlineCpus, online);

  w.String(platform::kGovernor,
           ReadAttribute(paths.Get("/sys/devices/system/cpu/cpu0/cpufreq/"
                                   "scaling_governor"),
                         text, kTextBytes));
  uint64_t khz = 0;
  if (ReadUintAttr(paths.Get("/sys/devices/system/cpu/cpu0/cpufreq/"
                             "cpuinfo_max_freq"),
                   &khz) ||
      ReadUintAttr(paths.Get("/sys/devices/system/cpu/cpu0/cpufreq/"
                             "scaling_max_freq"),
                   &khz)) {
    w.Uint(platform::kCpuMaxKhz, khz);
  }
  khz = 0;
  if (ReadUintAttr(paths.Get("/sys/devices/system/cpu/cpu0/cpufreq/"
                             "scaling_cur_freq"),
                   &khz)) {
    w.Uint(platform::kCpuCurKhz, khz);
  }
}

void WriteNumaNodes(WireWriter& w, RootPaths& paths, char* text) {
  uint32_t ids[kMaxNumaNodes];
  size_t count = 0;
  DIR* dir = opendir(paths.Get("/sys/devices/system/node"));
  if (dir == nullptr) return;
  while (const dirent* e = readdir(dir)) {
    uint64_t id = 0;
    if (std::strncmp(e->d_name, "node", 4) != 0 ||
        !ParseUint(e->d_name + 4, &id) || count == kMaxNumaNodes) {
      continue;
    }
    ids[count++] = static_cast<uint32_t>(id);
  }
  closedir(dir);
  std::sort(ids, ids + count);
  for (size_t i = 0; i < count; ++i) {
    auto m = w.BeginNested(platform::kNumaNodes);
    w.Uint(numa::kId, ids[i]);
    w.String(numa::kCpus,
             ReadAttribute(
                 paths.Get("/sys/devices/system/node/node%u/cpulist", ids[i]),
                 text, kTextBytes));
    const long n =
        ReadFile(paths.Get("/sys/devices/system/node/node%u/meminfo", ids[i]),
                 text, kTextBytes);
    MemInfo mem;
    if (n > 0 &&
        ParseMeminfo(std::string_view(text, static_cast<size_t>(n)), &mem)) {
      w.Uint(numa::kMemoryTotal, mem.total_bytes);
    }
    w.EndNested(m);
  }
}

void WriteAffinity(WireWriter& w, const PlatformSources& sources, char* text) {
  if (sources.affinity != nullptr) {
    FormatCpuList(sources.affinity, sources.affinity_bytes, text, kTextBytes);
  } else {
    // Room for 8192 CPUs: sched_getaffinity fails on a mask smaller than
    // the kernel's.
    alignas(cpu_set_t) unsigned char mask[1024];
    std::memset(mask, 0, sizeof mask);
    cpu_set_t* set = reinterpret_cast<cpu_set_t*>(mask);
    if (sched_getaffinity(0, sizeof mask, set) != 0) return;
    FormatCpuList(set, sizeof mask, text, kTextBytes);
  }
  w.String(platform::kCpuAffinity, text);
}

// CPUs allowed by the cgroup CPU controller at `dir` (v2 cpu.max, v1
// cfs quota/period); 0 when unlimited or unreadable.
double CgroupLevelLimit(const char* dir, bool v2, char* text) {
  char path[kPathBytes + 32];
  if (v2) {
    std::snprintf(path, sizeof path, "%s/cpu.max", dir);
    std::string_view v = ReadAttribute(path, text, kTextBytes);
    const std::string_view quota = NextToken(&v);
    const std::string_view period = NextToken(&v);
    uint64_t q = 0;
    uint64_t p = 0;
    if (quota == "max" || !ParseUint(quota, &q) || !ParseUint(period, &p) ||
        p == 0) {
      return 0;
    }
    return static_cast<double>(q) / static_cast<double>(p);
  }
  std::snprintf(path, sizeof path, "%s/cpu.cfs_quota_us", dir);
  int64_t quota = -1;  // -1: unlimited
  if (!ReadIntAttr(path, &quota) || quota < 0) return 0;
  std::snprintf(path, sizeof path, "%s/cpu.cfs_period_us", dir);
  uint64_t p = 0;
  if (!ReadUintAttr(path, &p) || p == 0) return 0;
  return static_cast<double>(quota) / static_cast<double>(p);
}

// The tightest limit from the process's cgroup up to the hierarchy root
// (a parent's quota caps its children). A cgroup path that does not exist
// under the mount (a container without a cgroup namespace) falls back to
// the mount's root, which is then the container's own cgroup.
using LevelLimit = double (*)(const char* dir, bool v2, char* text);

// Bytes the cgroup memory controller at `dir` allows (v2 memory.max, v1
// memory.limit_in_bytes); 0 when unlimited or unreadable.
double CgroupLevelMemoryLimit(const char* dir, bool v2, char* text) {
  char path[kPathBytes + 32];
  std::snprintf(path, sizeof path, "%s/%s", dir,
                v2 ? "memory.max" : "memory.limit_in_bytes");
  uint64_t v = 0;
  if (!ReadUintAttr(path, &v) || v >= kNoMemoryLimitAbove) return 0;
  (void)text;
  return static_cast<double>(v);
}

double CgroupLimitUnder(const char* mount, std::string_view cgroup_path,
                        bool v2, char* text,
                        LevelLimit level_limit = &CgroupLevelLimit) {
  if (!IsDirectory(mount)) return -1;
  char dir[kPathBytes];
  std::snprintf(dir, sizeof dir, "%s%.*s", mount,
                static_cast<int>(cgroup_path.size()), cgroup_path.data());
  size_t mount_len = std::strlen(mount);
  if (!IsDirectory(dir)) dir[mount_len] = '\0';
  double limit = 0;
  for (;;) {
    const double level = level_limit(dir, v2, text);
    if (level > 0 && (limit == 0 || level < limit)) limit = level;
    size_t len = std::strlen(dir);
    if (len <= mount_len) break;
    while (len > mount_len && dir[len - 1] != '/') --len;
    if (len > mount_len) --len;  // drop the slash too
    dir[len] = '\0';
  }
  return limit;
}

// The tightest limit of the v1 controller `controller` or of v2, from
// /proc/self/cgroup; 0 when none.
double CgroupLimit(RootPaths& paths, char* text, std::string_view controller,
                   const char* const* v1_mounts, LevelLimit level_limit) {
  char cgroups[2048];
  const long n =
      ReadFile(paths.Get("/proc/self/cgroup"), cgroups, sizeof cgroups);
  if (n <= 0) return 0;
  std::string_view rest(cgroups, static_cast<size_t>(n));
  while (!rest.empty()) {
    const std::string_view line = NextLine(&rest);
    const size_t c1 = line.find(':');
    const size_t c2 =
        c1 == std::string_view::npos ? c1 : line.find(':', c1 + 1);
    if (c2 == std::string_view::npos) continue;
    const std::string_view controllers = line.substr(c1 + 1, c2 - c1 - 1);
    std::string_view cg_path = line.substr(c2 + 1);
    if (cg_path == "/") cg_path = {};
    if (line.substr(0, c1) == "0" && controllers.empty()) {
      for (const char* mount : {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"}) {
        char m[kPathBytes];
        std::snprintf(m, sizeof m, "%s", paths.Get("%s", mount));
        const double limit =
            CgroupLimitUnder(m, cg_path, /*v2=*/true, text, level_limit);
        if (limit > 0) return limit;
      }
      continue;
    }
    bool has = false;
    std::string_view list = controllers;
    while (!list.empty()) {
      if (NextPart(&list, ',') == controller) has = true;
    }
    if (!has) continue;
    for (const char* const* mount = v1_mounts; *mount != nullptr; ++mount) {
      char m[kPathBytes];
      std::snprintf(m, sizeof m, "%s", paths.Get("%s", *mount));
      const double limit =
          CgroupLimitUnder(m, cg_path, /*v2=*/false, text, level_limit);
      if (limit >= 0) return limit;
    }
  }
  return 0;
}

uint64_t CgroupMemoryLimit(RootPaths& paths, char* text) {
  static const char* const kMounts[] = {"/sys/fs/cgroup/memory", nullptr};
  return static_cast<uint64_t>(
      CgroupLimit(paths, text, "memory", kMounts, &CgroupLevelMemoryLimit));
}

double CgroupCpuLimit(RootPaths& paths, char* text) {
  static const char* const kMounts[] = {"/sys/fs/cgroup/cpu,cpuacct",
                                        "/sys/fs/cgroup/cpu",
                                        "/sys/fs/cgroup/cpuacct,cpu", nullptr};
  return CgroupLimit(paths, text, "cpu", kMounts, &CgroupLevelLimit);
}

void WritePciDevice(WireWriter& w, RootPaths& paths, const char* bus_id,
                    char* text) {
  const auto attr = [&](const char* name) {
    return paths.Get("/sys/bus/pci/devices/%s/%s", bus_id, name);
  };
  // A numeric attribute, written only when it reads as a number.
  const auto write_number = [&](uint32_t field, const char* name,
                                bool (*read)(const char*, uint64_t*)) {
    uint64_t v = 0;
    if (read(attr(name), &v)) w.Uint(field, v);
  };
  auto m = w.BeginNested(platform::kPciDevices, 2);
  w.String(pci::kBusId, bus_id);
  write_number(pci::kVendorId, "vendor", &ReadHexAttr);
  write_number(pci::kDeviceId, "device", &ReadHexAttr);
  write_number(pci::kClassCode, "class", &ReadHexAttr);
  int64_t node = -1;
  ReadIntAttr(attr("numa_node"), &node);
  w.Int(pci::kNumaNode, node);
  w.String(pci::kLocalCpus,
           ReadAttribute(attr("local_cpulist"), text, kTextBytes));
  w.Double(pci::kCurrentLinkGts, ReadLinkSpeedGts(attr("current_link_speed")));
  w.Double(pci::kMaxLinkGts, ReadLinkSpeedGts(attr("max_link_speed")));
  write_number(pci::kCurrentLinkWidth, "current_link_width", &ReadUintAttr);
  write_number(pci::kMaxLinkWidth, "max_link_width", &ReadUintAttr);
  w.EndNested(m);
}

// False when the PCI device list cannot be read (then nothing is known).
bool WriteNvidiaPciDevices(WireWriter& w, RootPaths& paths, char* text) {
  char bus_ids[kMaxPciDevices][kBusIdBytes];
  size_t count = 0;
  DIR* dir = opendir(paths.Get("/sys/bus/pci/devices"));
  if (dir == nullptr) return false;
  while (const dirent* e = readdir(dir)) {
    if (e->d_name[0] == '.' || count == kMaxPciDevices ||
        std::strlen(e->d_name) >= kBusIdBytes) {
      continue;
    }
    uint64_t vendor = 0;
    if (!ReadHexAttr(paths.Get("/sys/bus/pci/devices/%s/vendor", e->d_name),
                     &vendor) ||
        vendor != kNvidiaVendorId) {
      continue;
    }
    std::snprintf(bus_ids[count++], kBusIdBytes, "%s", e->d_name);
  }
  closedir(dir);
  // readdir order is arbitrary; bus order is what nvidia-smi shows.
  size_t order[kMaxPciDevices];
  for (size_t i = 0; i < count; ++i) order[i] = i;
  std::sort(order, order + count, [&](size_t a, size_t b) {
    return std::strcmp(bus_ids[a], bus_ids[b]) < 0;
  });
  for (size_t i = 0; i < count; ++i) {
    WritePciDevice(w, paths, bus_ids[order[i]], text);
  }
  return true;
}

// The loaded NVIDIA kernel driver's version; empty when none is loaded.
void WriteNvidiaDriverVersion(WireWriter& w, RootPaths& paths, char* text) {
  for (const char* file :
       {"/proc/driver/nvidia/version", "/sys/module/nvidia/version"}) {
    const long n = ReadFile(paths.Get("%s", file), text, kTextBytes);
    if (n <= 0) continue;
    const std::string_view version = ParseNvidiaDriverVersion(
        std::string_view(text, static_cast<size_t>(n)));
    if (!version.empty()) {
      w.String(platform::kNvidiaDriverVersion, version);
      return;
    }
  }
}

// "always [madvise] never" -> "madvise"; the text itself without brackets.
std::string_view Selected(std::string_view v) {
  const size_t open = v.find('[');
  const size_t close = v.find(']');
  if (open == std::string_view::npos || close == std::string_view::npos ||
      close < open) {
    return v;
  }
  return v.substr(open + 1, close - open - 1);
}

// The soft "Max locked memory" of a limits file; 0 when absent.
uint64_t MemlockLimit(std::string_view limits) {
  while (!limits.empty()) {
    std::string_view line = NextLine(&limits);
    constexpr std::string_view kName = "Max locked memory";
    if (line.substr(0, kName.size()) != kName) continue;
    line.remove_prefix(kName.size());
    const std::string_view soft = NextToken(&line);
    if (soft == "unlimited") return kUnlimited;
    uint64_t v = 0;
    return ParseUint(soft, &v) ? v : 0;
  }
  return 0;
}

void WriteMount(WireWriter& w, uint32_t field, const char* path,
                const MountFields& m) {
  auto n = w.BeginNested(field, 2);
  w.String(mount::kPath, path);
  w.String(mount::kMountPoint, m.mount_point);
  w.String(mount::kFsType, m.fs_type);
  w.String(mount::kSource, m.source);
  w.String(mount::kOptions, m.options);
  w.String(mount::kBlockDevice, m.block_device);
  w.Uint(mount::kDiskKind, m.disk_kind);
  w.String(mount::kScheduler, m.scheduler);
  w.EndNested(n);
}

void WriteMountVisit(const char* path, bool working_directory,
                     const MountFields& m, void* writer) {
  WriteMount(*static_cast<WireWriter*>(writer),
             working_directory ? platform::kWorkingDirectoryMount
                               : platform::kDataMounts,
             path, m);
}

// The mounts of the working directory and of the directories (and large
// files) the command line names (data_mounts.h).
void WriteMounts(WireWriter& w, const PlatformSources& sources, char* text) {
  DataMountSources where;
  where.root = sources.root;
  where.cwd = sources.cwd;
  FindDataMounts(where, text, kTextBytes, &WriteMountVisit, &w);
}

// The facts of fields 16-33 (docs/doctor.md's checks).
void WriteHostFacts(WireWriter& w, RootPaths& paths,
                    const PlatformSources& sources, char* text) {
  w.Bool(platform::kHostFactsProbed, true);
  w.String(platform::kOnlineCpuList,
           ReadAttribute(paths.Get("/sys/devices/system/cpu/online"), text,
                         kTextBytes));
  w.String(platform::kCpuScalingDriver,
           ReadAttribute(paths.Get("/sys/devices/system/cpu/cpu0/cpufreq/"
                                   "scaling_driver"),
                         text, kTextBytes));
  w.Uint(platform::kThreadsPerCore,
         CountCpuList(ReadAttribute(paths.Get("/sys/devices/system/cpu/cpu0/"
                                              "topology/thread_siblings_list"),
                                    text, kTextBytes)));
  w.String(platform::kSmtControl,
           ReadAttribute(paths.Get("/sys/devices/system/cpu/smt/control"), text,
                         kTextBytes));
  {
    // The first mapping's policy: the process's own unless the program
    // set one on that mapping (mbind).
    const long n =
        ReadFile(paths.Get("/proc/self/numa_maps"), text, kTextBytes);
    if (n > 0) {
      std::string_view line(text, static_cast<size_t>(n));
      line = NextLine(&line);
      NextToken(&line);  // the address
      w.String(platform::kMemoryPolicy, NextToken(&line));
    }
  }
  {
    const long n = ReadFile(paths.Get("/proc/self/limits"), text, kTextBytes);
    if (n > 0) {
      w.Uint(platform::kMemlockLimit,
             MemlockLimit(std::string_view(text, static_cast<size_t>(n))));
    }
  }
  w.Uint(platform::kCgroupMemoryLimit, CgroupMemoryLimit(paths, text));
  {
    const long n = ReadFile(paths.Get("/proc/meminfo"), text, kTextBytes);
    MemInfo mem;
    if (n > 0) {
      const std::string_view meminfo(text, static_cast<size_t>(n));
      if (ParseMeminfo(meminfo, &mem)) {
        w.Uint(platform::kMemoryAvailable, mem.available_bytes);
        w.Uint(platform::kMemoryDirty, mem.dirty_bytes);
        w.Uint(platform::kMemoryWriteback, mem.writeback_bytes);
      }
      uint64_t kb = 0;
      if (FindKeyUint(meminfo, "SwapTotal", &kb)) {
        w.Uint(platform::kSwapTotal, kb * 1024);
      }
      if (FindKeyUint(meminfo, "SwapFree", &kb)) {
        w.Uint(platform::kSwapFree, kb * 1024);
      }
    }
  }
  w.String(platform::kTransparentHugepage,
           Selected(ReadAttribute(
               paths.Get("/sys/kernel/mm/transparent_hugepage/enabled"), text,
               kTextBytes)));
  w.String(platform::kTransparentHugepageDefrag,
           Selected(ReadAttribute(
               paths.Get("/sys/kernel/mm/transparent_hugepage/defrag"), text,
               kTextBytes)));
  if (DIR* dir = opendir(paths.Get("/sys/class/infiniband"))) {
    bool any = false;
    while (const dirent* e = readdir(dir)) any |= e->d_name[0] != '.';
    closedir(dir);
    w.Bool(platform::kRdmaDevices, any);
  }
  WriteMounts(w, sources, text);
}

}  // namespace

size_t EncodePlatformSnapshotFrom(WireWriter& w, uint32_t field_number,
                                  const PlatformSources& sources) {
  const size_t before = w.size();
  const bool live = std::strcmp(sources.root, "/") == 0;
  RootPaths paths(sources.root);
  char text[kTextBytes];

  auto m = w.BeginNested(field_number, 2);
  WriteCpuFacts(w, paths, live, text);
  WriteNumaNodes(w, paths, text);
  WriteAffinity(w, sources, text);
  {
    const long n = ReadFile(paths.Get("/proc/self/status"), text, kTextBytes);
    if (n > 0) {
      w.String(platform::kMemsAllowed,
               FindKeyValue(std::string_view(text, static_cast<size_t>(n)),
                            "Mems_allowed_list"));
    }
  }
  w.Double(platform::kCgroupCpuLimit, CgroupCpuLimit(paths, text));
  {
    const long n = ReadFile(paths.Get("/proc/meminfo"), text, kTextBytes);
    MemInfo mem;
    if (n > 0 &&
        ParseMeminfo(std::string_view(text, static_cast<size_t>(n)), &mem)) {
      w.Uint(platform::kMemoryTotal, mem.total_bytes);
    }
  }
  if (WriteNvidiaPciDevices(w, paths, text)) {
    w.Bool(platform::kNvidiaProbed, true);
  }
  WriteNvidiaDriverVersion(w, paths, text);
  {
    std::string_view release = ReadAttribute(
        paths.Get("/proc/sys/kernel/osrelease"), text, kTextBytes);
    utsname uts;
    if (release.empty() && live && uname(&uts) == 0) {
      std::snprintf(text, kTextBytes, "%s", uts.release);
      release = text;
    }
    w.String(platform::kKernelRelease, release);
  }
  WriteHostFacts(w, paths, sources, text);
  w.EndNested(m);
  return w.size() - before;
}

size_t EncodePlatformSnapshot(WireWriter& w, uint32_t field_number) {
  return EncodePlatformSnapshotFrom(w, field_number, PlatformSources{});
}

}  // namespace feedprof::preload::host
