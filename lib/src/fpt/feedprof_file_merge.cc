// FeedprofTimelineBuilder::AppendFile: puts a session read in parallel
// together. Each file was built by its own builder into its own timeline;
// appended in file order, the result is what one builder reading every file
// in turn builds. What crosses files in that one builder is redone here:
// the string table and call sites (timeline/timeline_append.h), threads and
// devices found again by (pid, tid) and (pid, device id), the platform of
// the first file that described one, NVML facts first-wins per (pid,
// device), and the flags Finish reads. The events wait in PartEvents for
// Finish to merge them, vector by vector, in one pass.
#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "fpt/feedprof_timeline_builder.h"
#include "timeline/thread_key.h"
#include "timeline/timeline_append.h"

namespace feedprof::fpt {
namespace {

// Offsets of two hosts closer than this are taken as one clock.
constexpr TimeNs kSameClockNs = 1'000'000;

}  // namespace

TimeNs FeedprofTimelineBuilder::HostClockShift(const HostClock& file) {
  if (!file.known) return 0;
  if (host_offsets_.empty()) reference_host_ = file.host;
  const int64_t host_offset =
      host_offsets_.try_emplace(file.host, file.wall_minus_monotonic_ns)
          .first->second;
  const TimeNs shift = host_offset - host_offsets_.at(reference_host_);
  // Hosts' wall clocks agree to about a millisecond at best, so a smaller
  // difference says nothing: it is the clock read jitter of two containers
  // (two host names) on one machine, which share the monotonic clock.
  return shift > -kSameClockNs && shift < kSameClockNs ? 0 : shift;
}

void FeedprofTimelineBuilder::AppendFile(FeedprofTimelineBuilder& part) {
  Timeline& t = *timeline_;
  Timeline& p = *part.timeline_;

  // A further host's file onto the first host's clock, where both hosts'
  // wall clocks put it (as close as they agree: NTP keeps them within
  // about a millisecond). Files of the first host are never moved.
  if (const TimeNs shift = HostClockShift(part.file_clock_);
      !timeline::ShiftTimes(p, shift)) {
    t.warnings.push_back(absl::StrFormat(
        "%s: recorded on %s, whose clock is %d ns from %s's; its times "
        "would leave the range this reader keeps, so they stay on %s's own "
        "clock",
        p.processes.empty() ? std::string() : p.processes[0].trace_path,
        part.file_clock_.host, shift, reference_host_, part.file_clock_.host));
  }

  for (Thread& from : p.threads) {
    const uint64_t key = timeline::ThreadKey(from.pid, from.tid);
    const bool named = part.threads_named_by_packet_.count(key) != 0;
    if (named) threads_named_by_packet_.insert(key);
    auto [it, inserted] = thread_index_.try_emplace(key, t.threads.size());
    if (inserted) {
      t.threads.push_back(std::move(from));
      continue;
    }
    // As AddThread and the sampled names would have done to the thread an
    // earlier file reported: a ThreadInfo name replaces, a sampled name
    // only fills in.
    Thread& to = t.threads[it->second];
    to.is_main = to.is_main || from.is_main;
    if (named || to.name.empty()) to.name = std::move(from.name);
  }
  std::vector<Thread>().swap(p.threads);

  for (Device& from : p.devices) {
    auto [it, inserted] = device_index_.try_emplace(
        timeline::ThreadKey(from.pid, from.id), t.devices.size());
    if (inserted) {
      t.devices.push_back(std::move(from));
      continue;
    }
    // As AddDevice on a device an earlier file reported: the description
    // is the later one, the PCIe link stays the one matched at that
    // earlier file's end.
    Device& to = t.devices[it->second];
    to.name = std::move(from.name);
    to.sm_count = from.sm_count;
    to.pci_bus_id = std::move(from.pci_bus_id);
    to.memory_bytes = from.memory_bytes;
  }
  std::vector<Device>().swap(p.devices);

  std::vector<Platform::NvmlDevice> nvml = std::move(p.platform.nvml_devices);
  if (!platform_set_ && part.platform_set_) {
    std::vector<Platform::NvmlDevice> kept = std::move(t.platform.nvml_devices);
    t.platform = std::move(p.platform);
    t.platform.nvml_devices = std::move(kept);
    platform_set_ = true;
  }
  for (Platform::NvmlDevice& n : nvml) {
    const bool known = std::any_of(
        t.platform.nvml_devices.begin(), t.platform.nvml_devices.end(),
        [&](const Platform::NvmlDevice& m) {
          return m.pid == n.pid && m.device == n.device;
        });
    if (!known) t.platform.nvml_devices.push_back(std::move(n));
  }
  p.platform = Platform();

  any_header_ = any_header_ || part.any_header_;
  any_call_sites_ = any_call_sites_ || part.any_call_sites_;

  // Sorted parts are merged by Finish; one unsorted part, and Finish
  // appends them all and sorts everything.
  runs_sorted_ = runs_sorted_ && part.events_sorted_;
  parts_.push_back(timeline::TakeTimelineTables(p, &t));
}

}  // namespace feedprof::fpt
