// The process's cgroup limits: CPU quota and memory limit, v1 and v2.
//
// A quota anywhere between the process's cgroup and the root of its
// hierarchy caps it (a parent's quota caps its children), so the tightest
// level wins and the finding names its file. The hierarchy's mount point
// comes from the process's mountinfo, with the mount's own root stripped
// from the cgroup path (a container sees its cgroup as "/").
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "platform/machine_reader.h"

namespace feedprof::platform {
namespace {

// v1 memory.limit_in_bytes prints PAGE_COUNTER_MAX pages for "no limit"
// (9223372036854771712 with 4 KiB pages); anything this large is none.
constexpr uint64_t kNoLimitAbove = uint64_t{1} << 60;

struct Hierarchy {
  bool v2 = false;
  std::string mount_point;  // machine path of the hierarchy's mount
  std::string path;         // the process's cgroup below it
};

// The cgroup directories from the process's cgroup up to the mount point.
std::vector<std::string> Levels(const MachineRoot& root, const Hierarchy& h) {
  std::string dir = h.mount_point + (h.path == "/" ? "" : h.path);
  // Not there (a container without a cgroup namespace that sees only its
  // own cgroup at the mount point): the mount point is the process's cgroup.
  if (!root.Exists(dir)) dir = h.mount_point;
  std::vector<std::string> levels;
  for (;;) {
    levels.push_back(dir);
    if (dir.size() <= h.mount_point.size()) break;
    dir = dir.substr(0, dir.rfind('/'));
  }
  return levels;
}

// CPUs a level allows; 0 when it sets no quota.
double CpuLimitAt(const MachineRoot& root, const std::string& dir, bool v2) {
  if (v2) {
    const std::optional<std::string> max = root.Attribute(dir + "/cpu.max");
    if (!max) return 0;
    const std::vector<std::string_view> t = Split(*max, ' ', true);
    if (t.size() < 2 || t[0] == "max") return 0;
    const auto quota = ParseUint(t[0]);
    const auto period = ParseUint(t[1]);
    if (!quota || !period || *period == 0) return 0;
    return static_cast<double>(*quota) / static_cast<double>(*period);
  }
  const auto quota =
      ParseInt(root.Attribute(dir + "/cpu.cfs_quota_us").value_or("-1"));
  const auto period =
      ParseUint(root.Attribute(dir + "/cpu.cfs_period_us").value_or("0"));
  if (!quota || *quota <= 0 || !period || *period == 0) return 0;
  return static_cast<double>(*quota) / static_cast<double>(*period);
}

uint64_t MemoryLimitAt(const MachineRoot& root, const std::string& dir,
                       bool v2) {
  const std::optional<std::string> v =
      root.Attribute(dir + (v2 ? "/memory.max" : "/memory.limit_in_bytes"));
  if (!v || *v == "max") return 0;
  const std::optional<uint64_t> n = ParseUint(*v);
  return n && *n < kNoLimitAbove ? *n : 0;
}

std::optional<uint64_t> MemoryUsageAt(const MachineRoot& root,
                                      const std::string& dir, bool v2) {
  const std::optional<std::string> v =
      root.Attribute(dir + (v2 ? "/memory.current" : "/memory.usage_in_bytes"));
  return v ? ParseUint(*v) : std::nullopt;
}

bool HasOption(std::string_view options, std::string_view want) {
  for (std::string_view o : Split(options, ',')) {
    if (o == want) return true;
  }
  return false;
}

// Where the hierarchy holding `controller` (or the v2 one) is mounted.
std::optional<Hierarchy> FindHierarchy(const MachineRoot& root,
                                       const std::vector<MountEntry>& mounts,
                                       const std::string& cgroup_text,
                                       const std::string& controller) {
  for (std::string_view line : Split(cgroup_text, '\n')) {
    // "hierarchy-id:controllers:path"
    const std::vector<std::string_view> f = Split(line, ':');
    if (f.size() < 3) continue;
    const bool v2 = f[0] == "0" && f[1].empty();
    if (!v2 && !HasOption(f[1], controller)) continue;
    Hierarchy h;
    h.v2 = v2;
    h.path = std::string(f[2]);
    for (const MountEntry& m : mounts) {
      const bool type_fits =
          v2 ? m.fs_type == "cgroup2"
             : m.fs_type == "cgroup" && HasOption(m.super_options, controller);
      if (!type_fits) continue;
      h.mount_point = m.mount_point;
      std::string_view rest = h.path;
      if (m.root != "/" && ConsumePrefix(&rest, m.root)) {
        h.path = rest.empty() ? "/" : std::string(rest);
      }
      break;
    }
    if (h.mount_point.empty()) {
      // No mountinfo: the usual places.
      for (const char* p :
           v2 ? std::vector<const char*>{"/sys/fs/cgroup",
                                         "/sys/fs/cgroup/unified"}
              : std::vector<const char*>{"/sys/fs/cgroup/cpu,cpuacct",
                                         "/sys/fs/cgroup/cpu",
                                         "/sys/fs/cgroup/memory"}) {
        if (root.Exists(p) && (v2 || (std::string_view(p).find(controller) !=
                                      std::string_view::npos))) {
          h.mount_point = p;
          break;
        }
      }
    }
    // v2 is listed last on hybrid systems; a v1 controller wins there.
    if (!h.mount_point.empty()) {
      if (v2 && !root.Exists(h.mount_point + "/cgroup.controllers")) continue;
      if (v2) {
        const std::optional<std::string> enabled =
            root.Attribute(h.mount_point + "/cgroup.controllers");
        if (!enabled || !HasOption(absl::StrReplaceAll(*enabled, {{" ", ","}}),
                                   controller)) {
          continue;  // the controller is bound to a v1 hierarchy
        }
      }
      return h;
    }
  }
  return std::nullopt;
}

}  // namespace

void ReadCgroupFacts(const MachineRoot& root, const std::string& proc_dir,
                     CgroupFacts* cgroup) {
  const FileText cg = root.Read(proc_dir + "/cgroup");
  if (!cg.ok()) {
    cgroup->cpu_limit.Unknown(cg.Problem());
    cgroup->memory_limit.Unknown(cg.Problem());
    return;
  }
  const FileText mountinfo = root.Read(proc_dir + "/mountinfo");
  const std::vector<MountEntry> mounts = mountinfo.ok()
                                             ? ParseMountinfo(mountinfo.text)
                                             : std::vector<MountEntry>{};

  if (std::optional<Hierarchy> h =
          FindHierarchy(root, mounts, cg.text, "cpu")) {
    double tightest = 0;
    for (const std::string& dir : Levels(root, *h)) {
      const double limit = CpuLimitAt(root, dir, h->v2);
      if (limit > 0 && (tightest == 0 || limit < tightest)) {
        tightest = limit;
        cgroup->cpu_limit_file =
            dir + (h->v2 ? "/cpu.max" : "/cpu.cfs_quota_us");
      }
    }
    cgroup->cpu_limit.Set(tightest);
  } else {
    cgroup->cpu_limit.Unknown(
        absl::StrCat("no mounted cgroup hierarchy with the cpu controller for ",
                     proc_dir, "/cgroup"));
  }

  if (std::optional<Hierarchy> h =
          FindHierarchy(root, mounts, cg.text, "memory")) {
    uint64_t tightest = 0;
    for (const std::string& dir : Levels(root, *h)) {
      const uint64_t limit = MemoryLimitAt(root, dir, h->v2);
      if (limit > 0 && (tightest == 0 || limit < tightest)) {
        tightest = limit;
        cgroup->memory_limit_file =
            dir + (h->v2 ? "/memory.max" : "/memory.limit_in_bytes");
        cgroup->memory_usage = MemoryUsageAt(root, dir, h->v2);
      }
    }
    cgroup->memory_limit.Set(tightest);
  } else {
    cgroup->memory_limit.Unknown(absl::StrCat(
        "no mounted cgroup hierarchy with the memory controller for ", proc_dir,
        "/cgroup"));
  }
}

}  // namespace feedprof::platform
