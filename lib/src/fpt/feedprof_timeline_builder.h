// Maps the packets of feedprof trace files onto the timeline model.
//
// Every file has its own interned-string and call-site ids, its own pid, and
// times delta-encoded per batch; the timeline has one string table, one
// call-site table and absolute times for all processes of a run. The builder
// takes packets one at a time (it never needs a whole file in memory),
// appends events with their file-local ids, and when a file section ends —
// end of file, or a new Header in a concatenated file — rewrites those ids
// to timeline ids in one pass. Deferring the rewrite keeps the per-event
// path to a delta decode and a push_back, and tolerates a writer that
// defines a string after the batch that first used it.
#ifndef FEEDPROF_FPT_FEEDPROF_TIMELINE_BUILDER_H_
#define FEEDPROF_FPT_FEEDPROF_TIMELINE_BUILDER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "feedprof.pb.h"
#include "feedprof/timeline.h"
#include "fpt/event_batch_decoder.h"
#include "timeline/timeline_append.h"

namespace feedprof::fpt {

class FeedprofTimelineBuilder {
 public:
  explicit FeedprofTimelineBuilder(Timeline* timeline);

  // Starts the packets of the file at `path`.
  void BeginFile(const std::string& path);
  void AddPacket(const trace::Packet& packet);
  // Takes the events that DecodeEventBatch decoded elsewhere from one or
  // more consecutive EventBatch packets of the current section, as
  // AddPacket of those packets would have (the events get the section's
  // pid here). `events` is left as it was, for the caller to reuse.
  void AddDecodedEvents(const DecodedEvents& events);
  // Resolves the ids of the file's events; call after its last packet.
  void EndFile();
  // Appends what `part` built from the files that follow this builder's
  // (each ended with EndFile; `part` not Finished), so that this builder's
  // timeline becomes exactly what one builder fed all of those files in
  // turn builds, once Finished: the part's strings and call sites
  // re-interned and shifted (timeline/timeline_append.h), its threads and
  // devices merged with the ones earlier files reported as AddThread and
  // AddDevice would have, the platform taken from the first file that
  // described one; its events are kept apart until Finish merges every
  // part's. Empties `part`'s timeline. This is how a session read in
  // parallel is put together.
  void AppendFile(FeedprofTimelineBuilder& part);
  // Sorts every event vector by time, as Finish does first, the vectors
  // side by side on up to `threads` threads. A part's builder calls it on
  // its worker thread after EndFile: the timeline it is appended to then
  // holds sorted runs, which Finish merges (log2 of the files' count
  // passes) instead of sorting everything again.
  void SortEvents(size_t threads = 1);
  // Sorts every event vector by time (merges the appended parts' runs),
  // the vectors side by side on up to `threads` threads, and sets the
  // availability flags.
  void Finish(size_t threads = 1);

 private:
  // Events from one Header to the next (or to the end of the file): one
  // process, one id space.
  struct Section {
    std::string path;
    int32_t pid = 0;
    bool has_header = false;
    bool has_packets = false;
    size_t process_index = 0;
    bool has_footer = false;
    // The span of its events, and those skipped because their times lie
    // outside [0, timeline::kMaxAbsTimeNs].
    EventTimes times;
    // Where this section's events begin in the timeline's vectors.
    size_t api_calls_begin = 0;
    size_t gpu_ops_begin = 0;
    size_t ranges_begin = 0;
    size_t marks_begin = 0;
    size_t counters_begin = 0;
    size_t disk_samples_begin = 0;
    size_t nfs_samples_begin = 0;
    size_t call_sites_begin = 0;
    size_t native_modules_begin = 0;
    size_t nvtx_categories_begin = 0;
    size_t streams_begin = 0;
    // File-local string id -> timeline id; kUndefined where not (yet)
    // defined. Ids past kDenseStringIds go to the sparse map.
    std::vector<StringId> dense_strings;
    std::unordered_map<uint32_t, StringId> sparse_strings;
    std::unordered_map<uint32_t, uint32_t> call_sites;  // local -> index
    // Python stacks: nodes by local id, the call site each sampled node
    // became, the CPU time each thread had at its previous sample, and the
    // samples waiting for their stacks (made when the section ends).
    struct StackNodeRecord {
      uint32_t parent = 0;
      uint32_t file = 0;  // local string ids
      uint32_t function = 0;
      uint32_t line = 0;
    };
    struct PendingStackSample {
      TimeNs ts = 0;
      int32_t tid = 0;
      uint32_t node = 0;
      TimeNs cpu_ns = 0;  // the thread's CPU time since its previous sample
    };
    std::unordered_map<uint32_t, StackNodeRecord> stack_nodes;
    std::unordered_map<uint64_t, int64_t> thread_cpu_ns;  // ThreadKey ->
    std::vector<PendingStackSample> stack_samples;
    // Thread names only known from samples: (pid << 32 | tid) -> local id.
    std::unordered_map<uint64_t, uint32_t> sampled_thread_names;
    std::vector<size_t> devices;  // indices of devices this section added
    // CUDA context id -> device, from DeviceInfo packets that name one.
    std::unordered_map<uint32_t, int32_t> context_devices;
    // (context << 32 | stream id) -> index into Timeline::streams.
    std::unordered_map<uint64_t, size_t> stream_index;
    trace::Platform platform;
    // The section's last DropCounts packet; zeros when it has none.
    DropCounts drops;
    uint64_t unknown_string_refs = 0;
  };

  void StartSection();
  void EndSection();
  void AddHeader(const trace::Header& header);
  void AddStrings(const trace::InternedStrings& strings);
  void AddCallSites(const trace::CallSites& call_sites);
  void AddStackNodes(const trace::StackNodes& nodes);
  void AddPythonStackStatus(const trace::PythonStackStatus& status);
  // Turns the section's sampled Python stacks into call sites and stack
  // samples (before the section's string ids are resolved).
  void AddSectionStackSamples();
  void AddEvents(const trace::EventBatch& batch);
  // Names the copies and memsets from `first_op` on (their kind's name,
  // interned here on first use).
  void NameCopiesAndMemsets(size_t first_op);
  void AddHostSamples(const trace::HostSampleBatch& batch);
  void AddCounters(const trace::CounterBatch& batch);
  void AddDrops(const trace::DropCounts& drops);
  void AddDevice(const trace::DeviceInfo& device);
  void AddThread(const trace::ThreadInfo& thread);
  void AddFooter(const trace::Footer& footer);
  void AddNvtxCategory(const trace::NvtxCategoryName& category);
  void AddStream(const trace::StreamInfo& stream);
  void AddGpuCollection(const trace::GpuCollection& status);
  // Gives the section's streams their process and, where a DeviceInfo
  // packet named their context, their device.
  void ResolveSectionStreams();

  StringId ResolveString(uint32_t local_id);
  void ResolveSectionIds();
  void ApplyPcieLinks();
  Thread& ThreadFor(int32_t pid, int32_t tid);
  StringId CopyKindName(CopyKind kind);

  Timeline* timeline_;
  Section section_;
  std::unordered_map<uint64_t, size_t> thread_index_;  // (pid, tid) -> index
  std::unordered_map<uint64_t, size_t> device_index_;  // (pid, id) -> index
  // Threads a ThreadInfo packet gave a name, (pid, tid): in a later file,
  // such a name replaces the one an earlier file gave, while a name known
  // only from samples fills in a missing one.
  std::unordered_set<uint64_t> threads_named_by_packet_;
  std::vector<StringId> copy_kind_names_;
  StringId memset_name_ = 0;
  // Calls visit(events, key, tie) for each event vector of `t` with its
  // time order: by key(e), ties by tie(e), then as read (an enclosing range
  // first when two start together). SortEvents, AppendFile and Finish all
  // go through it, so the vectors and their order are named once.
  template <typename Visit>
  static void ForEachEventVector(Timeline& t, Visit visit);

  // A host's wall clock against its monotonic clock, which every time in
  // its files is on: realtime - monotonic at a header's ClockSnapshot.
  // Processes of one host share their monotonic clock; those of different
  // hosts (ranks on several nodes writing to one shared directory) do not.
  struct HostClock {
    bool known = false;
    std::string host;
    int64_t wall_minus_monotonic_ns = 0;
  };
  // How far the times of a file whose first header gave `file` move to be
  // on the first file's host's clock: 0 for that host (and for files
  // without a clock, and for offsets less than 1 ms apart), else the
  // difference between the file's host's first offset and that host's.
  TimeNs HostClockShift(const HostClock& file);

  HostClock file_clock_;  // the first header's, of the file read here
  // The session's: the host of the first file with a clock, and each
  // host's offset from its first file.
  std::string reference_host_;
  std::unordered_map<std::string, int64_t> host_offsets_;

  // The appended parts' events, in file order, for Finish to merge (while
  // every part came sorted and this builder read no file itself) or append
  // and sort.
  std::vector<timeline::PartEvents> parts_;
  bool runs_sorted_ = true;
  bool events_sorted_ = false;  // SortEvents ran and nothing was added since
  bool platform_set_ = false;
  bool any_header_ = false;
  bool any_call_sites_ = false;
};

template <typename Visit>
void FeedprofTimelineBuilder::ForEachEventVector(Timeline& t, Visit visit) {
  auto start = [](const auto& e) { return e.start; };
  auto ts = [](const auto& e) { return e.ts; };
  auto as_read = [](const auto&) { return int64_t{0}; };
  visit(t.api_calls, start, as_read);
  visit(t.gpu_ops, start, as_read);
  visit(t.syncs, start, as_read);
  visit(t.ranges, start,
        [](const Range& e) { return static_cast<int64_t>(e.depth); });
  visit(t.marks, ts, as_read);
  visit(t.thread_samples, ts, as_read);
  visit(t.process_samples, ts, as_read);
  visit(t.system_samples, ts, as_read);
  visit(t.disk_samples, ts, as_read);
  visit(t.nfs_samples, ts, as_read);
  visit(t.counters, ts, as_read);
  visit(t.stack_samples, ts, as_read);
}

}  // namespace feedprof::fpt

#endif  // FEEDPROF_FPT_FEEDPROF_TIMELINE_BUILDER_H_
