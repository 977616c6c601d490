// Memory checks: how much memory is free for page cache, pinned buffers
// and workers (MemAvailable, the cgroup limit), whether writeback competes
// with reads (Dirty, Writeback), swapping, transparent huge pages, and the
// locked-memory limit RDMA registration is charged to.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "platform/finding_builder.h"
#include "platform/platform_checks.h"

namespace feedprof::platform {
namespace {

// Thresholds (docs/doctor.md).
constexpr double kAvailableWarn = 0.10;  // of MemTotal
constexpr double kAvailableFail = 0.05;
constexpr double kCgroupUsageWarn = 0.90;  // of the limit
constexpr uint64_t kSwapWarnBytes = 256ull << 20;
constexpr double kSwapWarnShare = 0.01;  // of MemTotal

double Share(uint64_t part, uint64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole)
                   : 0.0;
}

// "; 61.2 GiB when recording started, 12.0 GiB at the end": a recording's
// readings at both ends, beside the lowest or highest one judged (a
// pressure that built up during the run, or was there from the start).
template <typename Of>
std::string StartAndEnd(const MemoryFacts& mem, Of of) {
  std::string out;
  if (mem.at_start) {
    absl::StrAppend(&out, "; ", Bytes(of(*mem.at_start)),
                    " when recording started");
  }
  if (mem.at_end) {
    absl::StrAppend(&out, mem.at_start ? ", " : "; ", Bytes(of(*mem.at_end)),
                    " at the end");
  }
  return out;
}

void CheckAvailable(const MachineFacts& m, FindingBuilder* b) {
  const MemoryFacts& mem = m.memory;
  if (!mem.available.known() || !mem.total.known()) {
    b->Unknown("mem_available", "",
               mem.available.known() ? mem.total.why_unknown
                                     : mem.available.why_unknown);
    return;
  }
  const double share = Share(*mem.available, *mem.total);
  std::string value = absl::StrCat("MemAvailable ", Bytes(*mem.available),
                                   " of ", Bytes(*mem.total), " (",
                                   Percent(share), ", ", mem.when, ")");
  absl::StrAppend(&value, StartAndEnd(mem, [](const MemoryFacts::Reading& r) {
    return r.available;
  }));
  const std::string action =
      "Free memory: fewer or lighter DataLoader workers (prefetch_factor), "
      "smaller pinned pools, or other jobs off this machine.";
  if (share < kAvailableFail) {
    b->Add("mem_available", "", PlatformStatus::kFail, value,
           "almost no memory left: the kernel evicts the dataset's cached "
           "files and may swap or kill the job",
           action);
  } else if (share < kAvailableWarn) {
    b->Add("mem_available", "", PlatformStatus::kWarn, value,
           "little memory left for the page cache: reads of the dataset "
           "miss the cache more often",
           action);
  } else {
    b->Add("mem_available", "", PlatformStatus::kOk, value,
           "room for the page cache, pinned buffers and workers");
  }
}

void CheckDirty(const MachineFacts& m, FindingBuilder* b) {
  const MemoryFacts& mem = m.memory;
  if (!mem.dirty.known() || !mem.writeback.known()) {
    b->Unknown(
        "mem_dirty", "",
        mem.dirty.known() ? mem.writeback.why_unknown : mem.dirty.why_unknown);
    return;
  }
  const uint64_t pending = *mem.dirty + *mem.writeback;
  // The kernel's thresholds apply to "dirtyable" memory, close to
  // MemAvailable.
  const uint64_t base = mem.available.known() ? *mem.available + pending : 0;
  const uint64_t background = mem.dirty_background_bytes > 0
                                  ? mem.dirty_background_bytes
                                  : base * mem.dirty_background_ratio / 100;
  const uint64_t throttle =
      mem.dirty_bytes > 0 ? mem.dirty_bytes : base * mem.dirty_ratio / 100;
  std::string value = absl::StrCat("Dirty ", Bytes(*mem.dirty), ", Writeback ",
                                   Bytes(*mem.writeback), " (", mem.when, ")");
  absl::StrAppend(&value,
                  StartAndEnd(mem,
                              [](const MemoryFacts::Reading& r) {
                                return r.dirty + r.writeback;
                              }),
                  mem.at_start || mem.at_end ? " (Dirty + Writeback)" : "");
  if (base > 0) {
    absl::StrAppend(&value, "; background writeback from ", Bytes(background),
                    ", writers throttled from ", Bytes(throttle));
  }
  const std::string action =
      "Write checkpoints and logs less often or to another disk than the "
      "dataset's; lower vm.dirty_background_bytes to flush in smaller steps.";
  if (base > 0 && pending >= throttle) {
    b->Add("mem_dirty", "", PlatformStatus::kFail, value,
           "past the dirty limit: writing threads are throttled and the "
           "writeback competes with the dataset's reads for the disk",
           action);
  } else if (base > 0 && pending >= background) {
    b->Add("mem_dirty", "", PlatformStatus::kWarn, value,
           "heavy writeback is flushing to disk and competes with the "
           "dataset's reads",
           action);
  } else {
    b->Add("mem_dirty", "", PlatformStatus::kOk, value,
           "little data waits to be written back");
  }
}

void CheckSwap(const MachineFacts& m, FindingBuilder* b) {
  const MemoryFacts& mem = m.memory;
  if (!mem.swap_total.known() || !mem.swap_free.known()) {
    b->Unknown("mem_swap", "",
               mem.swap_total.known() ? mem.swap_free.why_unknown
                                      : mem.swap_total.why_unknown);
    return;
  }
  if (*mem.swap_total == 0) {
    b->Add("mem_swap", "", PlatformStatus::kOk, "no swap configured",
           "nothing can be swapped out");
    return;
  }
  const uint64_t used =
      *mem.swap_total - std::min(*mem.swap_free, *mem.swap_total);
  const std::string value =
      absl::StrCat(Bytes(used), " of ", Bytes(*mem.swap_total),
                   " swap in use (", mem.when, ")");
  const uint64_t total = mem.total.known() ? *mem.total : 0;
  if (used >= kSwapWarnBytes ||
      (total > 0 && Share(used, total) >= kSwapWarnShare)) {
    b->Add("mem_swap", "", PlatformStatus::kWarn, value,
           "memory was pushed out to swap: a thread touching it stalls on "
           "the disk",
           "Find the memory hogs (`smem`, `ps -eo pid,rss,comm --sort=-rss`); "
           "fewer workers or a smaller prefetch.");
    return;
  }
  b->Add("mem_swap", "", PlatformStatus::kOk, value, "hardly any swap in use");
}

void CheckThp(const MachineFacts& m, FindingBuilder* b) {
  const MemoryFacts& mem = m.memory;
  if (!mem.thp_enabled.known()) {
    b->Unknown("mem_thp", "", mem.thp_enabled.why_unknown);
    return;
  }
  const std::string defrag = mem.thp_defrag.known() ? *mem.thp_defrag : "?";
  const std::string value = absl::StrCat("transparent huge pages ",
                                         *mem.thp_enabled, ", defrag ", defrag);
  if (*mem.thp_enabled == "always" && defrag == "always") {
    b->Add("mem_thp", "", PlatformStatus::kWarn, value,
           "page faults may compact memory synchronously: allocating threads "
           "stall for milliseconds",
           "`echo defer+madvise | sudo tee "
           "/sys/kernel/mm/transparent_hugepage/defrag`.");
    return;
  }
  b->Add("mem_thp", "", PlatformStatus::kOk, value,
         *mem.thp_enabled == "never"
             ? "no huge pages: large buffers use 4 KiB pages (more TLB misses, "
               "no compaction stalls)"
             : "huge pages without synchronous compaction on every fault");
}

void CheckMemlock(const MachineFacts& m, FindingBuilder* b) {
  const std::string subject = m.process.Label();
  if (!m.process.memlock.known()) {
    b->Unknown("mem_locked_limit", subject, m.process.memlock.why_unknown);
    return;
  }
  const ResourceLimit& l = *m.process.memlock;
  const std::string value = l.unlimited
                                ? "ulimit -l unlimited"
                                : absl::StrCat("ulimit -l ", Bytes(l.value));
  if (l.unlimited) {
    b->Add("mem_locked_limit", subject, PlatformStatus::kOk, value,
           "memory registration and mlock are not capped");
    return;
  }
  const bool rdma = m.rdma_devices.known() && *m.rdma_devices;
  if (rdma) {
    b->Add("mem_locked_limit", subject, PlatformStatus::kWarn, value,
           "RDMA devices are present: NCCL over InfiniBand or RoCE and "
           "GPUDirect RDMA register (lock) their buffers under this limit, "
           "and registration fails or falls back to slower paths past it",
           "`ulimit -l unlimited` (limits.conf memlock, docker --ulimit "
           "memlock=-1, systemd LimitMEMLOCK=infinity).");
    return;
  }
  b->Add("mem_locked_limit", subject, PlatformStatus::kOk, value,
         "caps mlock and RDMA registration; there is no RDMA device here, "
         "and the NVIDIA driver's pinned host memory (cudaHostAlloc, "
         "pin_memory) is not charged to it");
}

void CheckCgroupMemory(const MachineFacts& m, FindingBuilder* b) {
  const CgroupFacts& g = m.cgroup;
  if (!g.memory_limit.known()) {
    b->Unknown("cgroup_memory", "", g.memory_limit.why_unknown);
    return;
  }
  if (*g.memory_limit == 0) {
    b->Add("cgroup_memory", "", PlatformStatus::kOk, "no memory limit",
           "the cgroup does not cap memory");
    return;
  }
  std::string value = absl::StrCat("limit ", Bytes(*g.memory_limit));
  if (g.memory_usage) {
    absl::StrAppend(&value, ", in use ", Bytes(*g.memory_usage), " (",
                    Percent(Share(*g.memory_usage, *g.memory_limit)), ")");
  }
  if (!g.memory_limit_file.empty()) {
    absl::StrAppend(&value, " (", g.memory_limit_file, ")");
  }
  if (g.memory_usage &&
      Share(*g.memory_usage, *g.memory_limit) >= kCgroupUsageWarn) {
    b->Add("cgroup_memory", "", PlatformStatus::kWarn, value,
           "near the limit: the kernel reclaims the cgroup's page cache (the "
           "dataset's cached files) first and kills the job when that is "
           "not enough",
           "Raise the limit (docker --memory, Kubernetes limits.memory) or "
           "use fewer workers and smaller prefetch queues.");
    return;
  }
  b->Add("cgroup_memory", "", PlatformStatus::kOk, value,
         "the limit leaves room; page cache counts against it too");
}

}  // namespace

void CheckMemory(const MachineFacts& m, std::vector<PlatformFinding>* out) {
  FindingBuilder b(out, "memory");
  CheckAvailable(m, &b);
  CheckDirty(m, &b);
  CheckSwap(m, &b);
  CheckThp(m, &b);
  CheckMemlock(m, &b);
  CheckCgroupMemory(m, &b);
}

}  // namespace feedprof::platform
