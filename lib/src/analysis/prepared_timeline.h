// The analyzer's view of a Timeline: the selected processes and window, GPU
// ops joined to their launching API calls, sorted once.
//
// Every metric needs the same groundwork: which ops fall in the window,
// which call launched each op (correlation id within a process), which ops
// were launched before recording began, the calls of each host thread in time
// order and its CPU samples. Doing it once here keeps each metric a linear
// sweep and keeps allocations per analysis, never per event: the arrays below
// are sized once from the event counts.
#ifndef FEEDPROF_ANALYSIS_PREPARED_TIMELINE_H_
#define FEEDPROF_ANALYSIS_PREPARED_TIMELINE_H_

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/api_classifier.h"
#include "analysis/code_profile.h"
#include "analysis/code_spans.h"
#include "analysis/input_production.h"
#include "analysis/range_digest.h"
#include "analysis/record_prefetch.h"
#include "common/parallel_for.h"
#include "feedprof/analysis_report.h"
#include "feedprof/timeline.h"
#include "timeline/thread_key.h"

namespace feedprof::analysis {

// A GPU op as the analyzer sees it: clipped to the window, joined to its
// launching call (index into Timeline::api_calls, -1 when none).
struct OpRef {
  TimeNs start = 0;
  TimeNs end = 0;
  uint32_t op = 0;
  int32_t api = -1;
};

// The ops one process ran on one device, sorted by start.
struct DeviceView {
  int32_t pid = 0;
  int32_t device = 0;
  std::vector<OpRef> ops;
  std::vector<OpRef> excluded;  // launched before recording began
};

// A top-level API call of a thread (nested calls folded into it). CUPTI and
// Nsight record a runtime call and the driver calls it makes; folding keeps
// their time counted once. A sync is named by the outermost call that
// blocks (cudaStreamSynchronize, not the cuStreamSynchronize inside it).
// (A view holds one per top-level call, so it packs into 24 bytes: the
// rare call whose `sync` comes from a call nested in it keeps that call's
// index in its thread's view, and PreparedTimeline::SyncApiOf finds it.)
struct ThreadCall {
  TimeNs start = 0;
  TimeNs end = 0;
  uint32_t api = 0;
  SyncReason sync = SyncReason::kNone;
  bool sync_from_nested = false;  // `sync` is a nested call's, not `api`'s
};

struct ThreadView {
  int32_t pid = 0;
  int32_t tid = 0;
  std::vector<ThreadCall> calls;  // top-level, sorted, non-overlapping
  // (api, the nested call that gives its sync) for the calls with
  // sync_from_nested, by api.
  std::vector<std::pair<uint32_t, uint32_t>> nested_sync_apis;
  uint64_t api_count = 0;     // all calls in the window, nested too
  uint32_t sample_begin = 0;  // range in PreparedTimeline::samples
  uint32_t sample_end = 0;
};

class PreparedTimeline {
 public:
  // `pids`: restrict to these processes (empty: all, or the options' rank).
  // `releasable`: `timeline` itself, where its owner has no further use
  // for it (Analyze(Timeline&&)): its ranges and marks are freed once their
  // digest is taken, before the views are built, and
  // ReleaseUnreplayedEvents may free more later. Null: the timeline is
  // never changed.
  static absl::StatusOr<PreparedTimeline> Build(
      const Timeline& timeline, const AnalysisOptions& options,
      const std::vector<int32_t>& pids = {}, Timeline* releasable = nullptr);

  const Timeline& timeline() const { return *timeline_; }
  const Window& window() const { return window_; }
  bool Selected(int32_t pid) const;
  const std::vector<int32_t>& pids() const { return pids_; }
  // What the analysis needs of the ranges (steps, DataLoader time, counts),
  // taken while preparing: no pass reads Timeline::ranges after Build.
  const RangeDigest& range_digest() const { return range_digest_; }
  // Where each thread's Python code was over time (empty without Python
  // function ranges), taken with the digest.
  const CodeSpans& code_spans() const { return code_spans_; }
  const CodeProfiles& code_profiles() const { return code_profiles_; }
  // Where the selected threads produced their own input (the what-if's
  // input_ready cuts it).
  const InputProduction& input_production() const { return input_production_; }
  // Which code is the user's (AnalysisOptions::user_code).
  const UserCodeRule& user_code() const { return user_code_; }

  ApiClass ClassOf(const ApiCall& call) const {
    return call.name < api_class_.size() ? api_class_[call.name]
                                         : ApiClass::kOther;
  }
  // The op a call launched (first one by correlation), -1 when none.
  int32_t OpOf(uint32_t api) const { return api_op_[api]; }
  // Whether `op` is the first op of its launching call: false for the
  // second and later kernels of a graph launch (they were submitted with
  // the graph, not by a call of their own).
  bool FirstOpOfCall(const OpRef& op) const {
    return op.api < 0 ||
           api_op_[static_cast<size_t>(op.api)] == static_cast<int32_t>(op.op);
  }
  // Asks for what FirstOpOfCall(op) will read (always inlined: see
  // record_prefetch.h).
  [[gnu::always_inline]] void PrefetchFirstOpOfCall(const OpRef& ahead) const {
    if (ahead.api >= 0) {
      __builtin_prefetch(&api_op_[static_cast<size_t>(ahead.api)]);
    }
  }
  // The top-level call of the thread that contains call `api` (itself when
  // not nested), -1 for calls outside the window or the selection.
  int32_t TopOf(uint32_t api) const { return api_top_[api]; }
  // The call that gives `call.sync` (valid when blocking): `call.api`
  // itself unless the sync comes from a call nested in it.
  uint32_t SyncApiOf(const ThreadCall& call) const;
  SyncReason SyncReasonOf(uint32_t api) const;

  const std::vector<DeviceView>& devices() const { return devices_; }
  const std::vector<ThreadView>& threads() const { return threads_; }
  const ThreadView* FindThread(int32_t pid, int32_t tid) const;
  // Indices into Timeline::thread_samples sorted by (pid, tid, ts).
  const std::vector<uint32_t>& samples() const { return samples_; }
  // API calls in the window of selected processes (indices), by start.
  const std::vector<uint32_t>& api_in_window() const { return api_window_; }
  // Start of the first GPU op of a process (steady-state boundary).
  TimeNs FirstGpuStart(int32_t pid) const;

  // Every event of the timeline (CountEvents), whatever the window.
  uint64_t event_count() const { return events_; }

  // Frees the views (devices, threads, the correlation join, the calls in
  // the window, the samples): the what-if replay calls it once its models
  // hold what they need, so that the views and the replay's arrays are not
  // resident together. Afterwards devices() and threads() are empty and
  // only timeline(), window(), pids(), Selected() and event_count()
  // answer as before.
  void ReleaseViews();
  // Frees the timeline's events that the what-if replay does not read: its
  // sync records and host and counter samples (the ranges and marks went
  // in Build), when Build was given the timeline as `releasable`; does
  // nothing otherwise. The replay calls it before it builds its models, so
  // that they take those events' place instead of adding to them.
  // Afterwards nothing may read those vectors or samples(): only the calls,
  // GPU ops, processes, strings and the views of the calls and ops answer
  // as before.
  void ReleaseUnreplayedEvents();
  // From this many events on, passes that do not depend on each other run
  // side by side.
  static constexpr uint64_t kParallelPassesMinEvents =
      common::kSideBySideFromEvents;
  // The threads a pass over `events` events may use: the cores this
  // process may use from kParallelPassesMinEvents on, else 1.
  static size_t PassThreads(uint64_t events);
  // The events of `timeline` the analysis counts (Report::events): GPU
  // ops, API calls, syncs, ranges, marks, samples and counters.
  static uint64_t CountEvents(const Timeline& timeline);

 private:
  PreparedTimeline() = default;
  void ClassifyNames();
  void JoinCorrelations();
  void BuildDevices(bool exclude_unmatched);
  void BuildThreads();
  // Puts the window calls in the analysis' order (by start, the longer
  // first, ties as held), each call's entry of `thread_of_call` moving with
  // it: the whole window where it is not `by_start`, else each group of
  // calls that start together around one of `ties` (positions of calls
  // longer than the one before them). Then numbers the threads in the
  // order of their first calls, as if they had been taken in that order.
  void OrderWindow(bool by_start, const std::vector<size_t>& ties,
                   std::vector<uint32_t>& thread_of_call);
  // The calls of the threads whose group_of is `group`, into their views;
  // thread_of_call[k] is the thread of api_window_[k].
  void FillThreadCalls(uint32_t group, const std::vector<uint32_t>& group_of,
                       const std::vector<uint32_t>& thread_of_call);

  const Timeline* timeline_ = nullptr;
  Timeline* releasable_ = nullptr;  // timeline_, when its events may go
  Window window_;
  RangeDigest range_digest_;
  CodeSpans code_spans_;
  CodeProfiles code_profiles_;
  InputProduction input_production_;
  UserCodeRule user_code_;
  std::vector<int32_t> pids_;  // sorted; empty: all processes
  std::vector<ApiClass> api_class_;
  std::vector<int32_t> op_api_;
  std::vector<int32_t> api_op_;
  std::vector<int32_t> api_top_;
  std::vector<DeviceView> devices_;
  std::vector<ThreadView> threads_;
  std::unordered_map<uint64_t, uint32_t> thread_index_;
  std::vector<uint32_t> samples_;
  std::vector<uint32_t> api_window_;
  std::unordered_map<int32_t, TimeNs> first_gpu_start_;
  uint64_t events_ = 0;
};

using timeline::ThreadKey;

}  // namespace feedprof::analysis

#endif  // FEEDPROF_ANALYSIS_PREPARED_TIMELINE_H_
