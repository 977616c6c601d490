#include "timeline/timeline_append.h"

#include <algorithm>
#include <iterator>
#include <utility>
#include <vector>

#include "timeline/time_extent.h"
#include "timeline/time_limits.h"

namespace feedprof::timeline {
namespace {

// Moves `from` to the end of `to` and frees `from`; moved whole into an
// empty `to`.
template <typename T>
void MoveAppend(std::vector<T>& from, std::vector<T>& to) {
  if (to.empty()) {
    to = std::move(from);
  } else {
    to.insert(to.end(), std::make_move_iterator(from.begin()),
              std::make_move_iterator(from.end()));
  }
  std::vector<T>().swap(from);
}

}  // namespace

PartEvents TakeTimelineTables(Timeline& part, Timeline* into) {
  Timeline& t = *into;
  PartEvents taken;
  PartIds& ids = taken.ids;
  // Only the empty string yet: the part's ids stay as they are.
  const bool same_ids = t.strings.size() == 1 && t.call_sites.size() == 1;
  if (same_ids) {
    t.strings = std::move(part.strings);
    t.call_sites = std::move(part.call_sites);
  } else {
    ids.strings.resize(part.strings.size());
    for (StringId id = 0; id < ids.strings.size(); ++id) {
      ids.strings[id] = t.strings.Intern(part.strings.Get(id));
    }
    // Index 0 of both is the empty call site.
    ids.call_site_offset = static_cast<uint32_t>(t.call_sites.size() - 1);
    for (size_t i = 1; i < part.call_sites.size(); ++i) {
      CallSite& site = part.call_sites[i];
      for (Frame& frame : site.frames) {
        frame.file = ids.strings[frame.file];
        frame.function = ids.strings[frame.function];
        frame.module = ids.strings[frame.module];
      }
      t.call_sites.push_back(std::move(site));
    }
    for (NvtxCategoryName& e : part.nvtx_categories) {
      e.domain = ids.strings[e.domain];
      e.name = ids.strings[e.name];
    }
  }
  for (NativeModule& module : part.native_modules) {
    if (!ids.strings.empty()) module.path = ids.strings[module.path];
    const bool known = std::any_of(
        t.native_modules.begin(), t.native_modules.end(),
        [&module](const NativeModule& m) {
          return m.path == module.path && m.build_id == module.build_id;
        });
    if (!known) t.native_modules.push_back(std::move(module));
  }
  std::vector<NativeModule>().swap(part.native_modules);
  part.strings = StringTable();
  std::vector<CallSite>().swap(part.call_sites);

  if (t.launch_shapes.size() == 1) {
    t.launch_shapes = std::move(part.launch_shapes);
  } else {
    ids.launches = t.launch_shapes.InternAll(part.launch_shapes);
  }
  part.launch_shapes = LaunchShapeTable();

  taken.Of<GpuOp>() = std::move(part.gpu_ops);
  taken.Of<ApiCall>() = std::move(part.api_calls);
  taken.Of<SyncRecord>() = std::move(part.syncs);
  taken.Of<Range>() = std::move(part.ranges);
  taken.Of<Mark>() = std::move(part.marks);
  taken.Of<ThreadSample>() = std::move(part.thread_samples);
  taken.Of<ProcessSample>() = std::move(part.process_samples);
  taken.Of<SystemSample>() = std::move(part.system_samples);
  taken.Of<DiskSample>() = std::move(part.disk_samples);
  taken.Of<NfsSample>() = std::move(part.nfs_samples);
  taken.Of<CounterSample>() = std::move(part.counters);
  taken.Of<StackSample>() = std::move(part.stack_samples);

  MoveAppend(part.nvtx_categories, t.nvtx_categories);
  MoveAppend(part.streams, t.streams);
  MoveAppend(part.processes, t.processes);
  MoveAppend(part.warnings, t.warnings);
  t.warned_no_gpu_activity |= part.warned_no_gpu_activity;

  DropCounts& d = t.drops;
  const DropCounts& p = part.drops;
  d.events_dropped += p.events_dropped;
  d.cupti_records_dropped += p.cupti_records_dropped;
  d.zero_timestamp_records += p.zero_timestamp_records;
  d.samples_dropped += p.samples_dropped;
  d.cupti_buffers_dropped += p.cupti_buffers_dropped;
  d.strings_dropped += p.strings_dropped;
  d.events_recorded += p.events_recorded;
  d.packets_dropped += p.packets_dropped;
  return taken;
}

bool ShiftTimes(Timeline& timeline, TimeNs shift) {
  if (shift == 0) return true;
  timeline::TimeExtent extent;
  ForEachTime(timeline, [&extent](TimeNs& time) { extent.Add(time, time); });
  if (extent.any && (!timeline::TimeInRange(extent.first + shift) ||
                     !timeline::TimeInRange(extent.last + shift))) {
    return false;
  }
  ForEachTime(timeline, [shift](TimeNs& time) { time += shift; });
  return true;
}

}  // namespace feedprof::timeline
