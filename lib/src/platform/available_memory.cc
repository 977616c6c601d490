// ReadAvailableMemory: MemAvailable and the room under the cgroup memory
// limit (see available_memory.h).
#include "platform/available_memory.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <vector>

#include "platform/machine_facts.h"
#include "platform/machine_reader.h"
#include "platform/proc_sys_text.h"

namespace feedprof::platform {
namespace {

// The inactive file cache of the cgroup whose limit is in `limit_file`:
// memory.stat beside it, "total_inactive_file" (v1, the whole subtree) or
// "inactive_file" (v2, where the figures are already hierarchical). 0 when
// it cannot be read: the room is then underestimated, never overestimated.
uint64_t InactiveFileCache(const MachineRoot& root,
                           const std::string& limit_file) {
  const size_t slash = limit_file.rfind('/');
  if (slash == std::string::npos) return 0;
  const FileText stat = root.Read(limit_file.substr(0, slash) + "/memory.stat");
  if (!stat.ok()) return 0;
  std::optional<uint64_t> total, own;
  for (std::string_view line : Split(stat.text, '\n', true)) {
    const std::vector<std::string_view> f = Words(line);
    if (f.size() != 2) continue;
    if (f[0] == "total_inactive_file") total = ParseUint(f[1]);
    if (f[0] == "inactive_file") own = ParseUint(f[1]);
  }
  return total.value_or(own.value_or(0));
}

}  // namespace

std::optional<AvailableMemory> ReadAvailableMemory(
    const MachineRoot& root, const std::string& proc_dir) {
  std::optional<AvailableMemory> out;
  const FileText meminfo = root.Read("/proc/meminfo");
  if (meminfo.ok()) {
    const std::map<std::string, uint64_t> mem = ParseMeminfo(meminfo.text);
    if (auto it = mem.find("MemAvailable"); it != mem.end()) {
      out = AvailableMemory{it->second, "MemAvailable"};
    }
  }
  CgroupFacts cgroup;
  ReadCgroupFacts(root, proc_dir, &cgroup);
  if (cgroup.memory_limit.known() && *cgroup.memory_limit > 0) {
    const uint64_t limit = *cgroup.memory_limit;
    const uint64_t usage = cgroup.memory_usage.value_or(0);
    const uint64_t reclaimable =
        std::min(usage, InactiveFileCache(root, cgroup.memory_limit_file));
    const uint64_t used = usage - reclaimable;
    const uint64_t room = limit > used ? limit - used : 0;
    if (!out || room < out->bytes) {
      out = AvailableMemory{room, cgroup.memory_limit_file};
    }
  }
  return out;
}

}  // namespace feedprof::platform
