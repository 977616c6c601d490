#include "readers/timeline_append.h"

#include <iterator>
#include <utility>
#include <vector>

namespace feedprof::readers {
namespace {

// Moves `from` to the end of `to`, calls `fix` on each moved element, and
// frees `from`.
template <typename T, typename Fix>
void MoveAppend(std::vector<T>& from, std::vector<T>& to, Fix fix) {
  if (to.empty()) {
    to = std::move(from);
    for (T& e : to) fix(e);
  } else {
    const size_t begin = to.size();
    to.insert(to.end(), std::make_move_iterator(from.begin()),
              std::make_move_iterator(from.end()));
    for (size_t i = begin; i < to.size(); ++i) fix(to[i]);
  }
  std::vector<T>().swap(from);
}

template <typename T>
void MoveAppend(std::vector<T>& from, std::vector<T>& to) {
  MoveAppend(from, to, [](T&) {});
}

template <typename T>
void ReserveScaled(std::vector<T>& events, double scale) {
  const double wanted = static_cast<double>(events.size()) * scale;
  if (wanted > static_cast<double>(events.capacity())) {
    events.reserve(static_cast<size_t>(wanted));
  }
}

}  // namespace

void ReserveForTheRest(Timeline* into, uint64_t bytes_read,
                       uint64_t total_bytes) {
  if (bytes_read == 0 || bytes_read >= total_bytes) return;
  const double scale =
      1.05 * static_cast<double>(total_bytes) / static_cast<double>(bytes_read);
  Timeline& t = *into;
  ReserveScaled(t.gpu_ops, scale);
  ReserveScaled(t.api_calls, scale);
  ReserveScaled(t.syncs, scale);
  ReserveScaled(t.ranges, scale);
  ReserveScaled(t.marks, scale);
  ReserveScaled(t.thread_samples, scale);
  ReserveScaled(t.process_samples, scale);
  ReserveScaled(t.system_samples, scale);
  ReserveScaled(t.counters, scale);
}

void AppendTimelineEvents(Timeline& part, Timeline* into) {
  Timeline& t = *into;
  // Only the empty string yet: the part's ids stay as they are.
  const bool same_ids = t.strings.size() == 1 && t.call_sites.size() == 1;
  std::vector<StringId> strings;
  uint32_t call_site_offset = 0;
  if (same_ids) {
    t.strings = std::move(part.strings);
    part.strings = StringTable();
  } else {
    strings.resize(part.strings.size());
    for (StringId id = 0; id < strings.size(); ++id) {
      strings[id] = t.strings.Intern(part.strings.Get(id));
    }
    part.strings = StringTable();
    // Index 0 of both is the empty call site.
    call_site_offset = static_cast<uint32_t>(t.call_sites.size() - 1);
  }

  if (same_ids) {
    t.call_sites = std::move(part.call_sites);
    MoveAppend(part.gpu_ops, t.gpu_ops);
    MoveAppend(part.api_calls, t.api_calls);
    MoveAppend(part.ranges, t.ranges);
    MoveAppend(part.marks, t.marks);
    MoveAppend(part.counters, t.counters);
    MoveAppend(part.nvtx_categories, t.nvtx_categories);
  } else {
    auto id = [&strings](StringId& s) { s = strings[s]; };
    for (size_t i = 1; i < part.call_sites.size(); ++i) {
      CallSite& site = part.call_sites[i];
      for (Frame& frame : site.frames) {
        id(frame.file);
        id(frame.function);
      }
      t.call_sites.push_back(std::move(site));
    }
    MoveAppend(part.gpu_ops, t.gpu_ops, [&](GpuOp& e) { id(e.name); });
    MoveAppend(part.api_calls, t.api_calls, [&](ApiCall& e) {
      id(e.name);
      if (e.call_site != 0) e.call_site += call_site_offset;
    });
    MoveAppend(part.ranges, t.ranges, [&](Range& e) {
      id(e.name);
      id(e.domain);
    });
    MoveAppend(part.marks, t.marks, [&](Mark& e) {
      id(e.name);
      id(e.domain);
    });
    MoveAppend(part.counters, t.counters,
               [&](CounterSample& e) { id(e.name); });
    MoveAppend(part.nvtx_categories, t.nvtx_categories,
               [&](NvtxCategoryName& e) {
                 id(e.domain);
                 id(e.name);
               });
  }
  std::vector<CallSite>().swap(part.call_sites);
  MoveAppend(part.syncs, t.syncs);
  MoveAppend(part.thread_samples, t.thread_samples);
  MoveAppend(part.process_samples, t.process_samples);
  MoveAppend(part.system_samples, t.system_samples);
  MoveAppend(part.streams, t.streams);
  MoveAppend(part.processes, t.processes);
  MoveAppend(part.warnings, t.warnings);

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
}

}  // namespace feedprof::readers
