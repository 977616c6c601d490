// UsableCores: the affinity mask lowered to the cgroup CPU quota (see
// usable_cores.h).
#include "platform/usable_cores.h"

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <thread>

#include "platform/machine_facts.h"
#include "platform/machine_reader.h"

namespace feedprof::platform {
namespace {

// CPUs in this process's affinity mask; the machine's count when the mask
// cannot be read (more CPUs than a cpu_set_t holds, say).
unsigned AffinityCpus() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof(mask), &mask) == 0) {
    const int cpus = CPU_COUNT(&mask);
    if (cpus > 0) return static_cast<unsigned>(cpus);
  }
  return std::thread::hardware_concurrency();
}

}  // namespace

unsigned UsableCoresOf(const MachineRoot& root, const std::string& proc_dir,
                       unsigned affinity_cpus) {
  unsigned cores = std::max(1u, affinity_cpus);
  CgroupFacts cgroup;
  ReadCgroupFacts(root, proc_dir, &cgroup);
  if (cgroup.cpu_limit.known() && *cgroup.cpu_limit > 0) {
    const double quota_cores = std::ceil(*cgroup.cpu_limit - 1e-9);
    if (quota_cores < cores) {
      cores = std::max(1u, static_cast<unsigned>(quota_cores));
    }
  }
  return cores;
}

unsigned UsableCores() {
  static const unsigned cores =
      UsableCoresOf(MachineRoot("/"), "/proc/self", AffinityCpus());
  return cores;
}

}  // namespace feedprof::platform
