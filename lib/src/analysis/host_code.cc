// Each thread role's time by code location (see analysis_passes.h).
#include <algorithm>
#include <string_view>
#include <unordered_set>

#include "analysis/analysis_passes.h"
#include "analysis/prepared_timeline.h"
#include "timeline/thread_key.h"

namespace feedprof::analysis {
namespace {

// A thread of the input pipeline by its name: PyTorch names its pin-memory
// thread, and DataLoader worker processes carry the loader's name.
bool NamedLikeDataLoader(std::string_view name) {
  return name.find("pt_data") != std::string_view::npos ||
         name.find("DataLoader") != std::string_view::npos ||
         name.find("pin_memory") != std::string_view::npos;
}

}  // namespace

HostCode ComputeHostCode(const PreparedTimeline& prepared,
                         const HostReport& host) {
  const CodeProfiles& profiles = prepared.code_profiles();
  if (profiles.empty()) return HostCode{};
  const Timeline& timeline = prepared.timeline();
  // The threads whose calls launched the window's GPU work.
  std::unordered_set<uint64_t> launching;
  for (const DeviceView& d : prepared.devices()) {
    uint64_t last = ~uint64_t{0};
    for (const OpRef& op : d.ops) {
      if (op.api < 0) continue;
      const ApiCall& call = timeline.api_calls[static_cast<size_t>(op.api)];
      const uint64_t key = timeline::ThreadKey(call.pid, call.tid);
      if (key != last) launching.insert(key);
      last = key;
    }
  }
  std::unordered_set<int32_t> workers;
  for (const WorkerProcess& w : host.workers) workers.insert(w.pid);
  std::unordered_set<uint64_t> loader_threads;
  for (const Thread& t : timeline.threads) {
    if (NamedLikeDataLoader(t.name)) {
      loader_threads.insert(timeline::ThreadKey(t.pid, t.tid));
    }
  }
  return profiles.Finish([&](int32_t pid, int32_t tid) {
    const uint64_t key = timeline::ThreadKey(pid, tid);
    if (launching.contains(key)) return ThreadRole::kLaunching;
    if (workers.contains(pid) || loader_threads.contains(key)) {
      return ThreadRole::kDataLoader;
    }
    return ThreadRole::kOther;
  });
}

}  // namespace feedprof::analysis
