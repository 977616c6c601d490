#include "ingest/kineto_directory_reader.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/in_order_parallel_reads.h"
#include "common/parallel_for.h"
#include "common/read_progress.h"
#include "common/stable_time_sort.h"
#include "feedprof/kineto_reader.h"
#include "ingest/rank_files_one_run_check.h"
#include "kineto/kineto_read_options.h"
#include "platform/usable_cores.h"
#include "timeline/time_extent.h"
#include "timeline/timeline_append.h"

namespace feedprof::ingest {
namespace {

// Appends the timelines of a directory's files in name order, each on the
// first file's clock.
class KinetoRunMerge {
 public:
  explicit KinetoRunMerge(Timeline* into) : into_(into) {}

  // `facts` (the file's, taken before) has its time range moved with it.
  void Append(Timeline&& part, RankFileFacts* facts) {
    Timeline& t = *into_;
    const std::string& file = facts->file;
    PutOnTheRunsClock(part, facts);
    RenumberCollidingPids(part, file);
    timeline::ForEachPid(
        part, [&](int32_t& pid) { pid_files_.try_emplace(pid, file); });

    if (first_) t.platform = std::move(part.platform);
    for (Thread& thread : part.threads) t.threads.push_back(std::move(thread));
    for (Device& device : part.devices) t.devices.push_back(std::move(device));
    Availability& a = t.available;
    const Availability& p = part.available;
    a.api_calls = a.api_calls || p.api_calls;
    a.correlation = a.correlation || p.correlation;
    a.sync_records = a.sync_records || p.sync_records;
    a.host_samples = a.host_samples || p.host_samples;
    a.system_samples = a.system_samples || p.system_samples;
    a.process_io = a.process_io || p.process_io;
    a.call_sites = a.call_sites || p.call_sites;
    a.gpu_counters = a.gpu_counters || p.gpu_counters;
    a.ranges = a.ranges || p.ranges;
    parts_.push_back(timeline::TakeTimelineTables(part, &t));
    if (first_) first_file_ = file;
    first_ = false;
  }

  // Merges the files' events (each file's sorted as the Kineto reader
  // sorts) into the order one sorted file has, the vectors side by side on
  // up to `threads` threads. Samples and counters, which no Kineto file
  // has, are appended in file order.
  void Finish(size_t threads) {
    Timeline& t = *into_;
    // A big vector's merge also runs on its share of the threads.
    std::vector<size_t> sizes;
    std::vector<std::function<void(unsigned)>> jobs;
    auto merge = [&](auto& events, auto less) {
      using Event = typename std::decay_t<decltype(events)>::value_type;
      sizes.push_back(timeline::PartEventCount<Event>(parts_));
      jobs.emplace_back([this, &events, less](unsigned merge_threads) {
        timeline::MergePartEvents(parts_, &events, less, merge_threads);
      });
    };
    merge(t.gpu_ops, common::StartsFirstLongerFirst<GpuOp>);
    merge(t.api_calls, common::StartsFirstLongerFirst<ApiCall>);
    merge(t.syncs, common::StartsFirstLongerFirst<SyncRecord>);
    merge(t.ranges, common::StartsFirstLongerFirst<Range>);
    merge(t.marks, [](const Mark& x, const Mark& y) { return x.ts < y.ts; });
    sizes.push_back(timeline::PartEventCount<ThreadSample>(parts_) +
                    timeline::PartEventCount<ProcessSample>(parts_) +
                    timeline::PartEventCount<SystemSample>(parts_) +
                    timeline::PartEventCount<DiskSample>(parts_) +
                    timeline::PartEventCount<NfsSample>(parts_) +
                    timeline::PartEventCount<CounterSample>(parts_) +
                    timeline::PartEventCount<StackSample>(parts_));
    jobs.emplace_back([this, &t](unsigned) {
      timeline::AppendPartEvents(parts_, &t.thread_samples);
      timeline::AppendPartEvents(parts_, &t.process_samples);
      timeline::AppendPartEvents(parts_, &t.system_samples);
      timeline::AppendPartEvents(parts_, &t.disk_samples);
      timeline::AppendPartEvents(parts_, &t.nfs_samples);
      timeline::AppendPartEvents(parts_, &t.counters);
      timeline::AppendPartEvents(parts_, &t.stack_samples);
    });
    common::ParallelForLongestFirstSharing(
        sizes, threads,
        [&jobs](size_t job, unsigned share) { jobs[job](share); });
    parts_.clear();
    AddRenumberingWarnings();
  }

 private:
  std::vector<timeline::PartEvents>
      parts_;  // each file's events, in file order

  // Newer Kineto traces count `ts` from a baseTimeNanoseconds each process
  // chose for itself (base + ts is the epoch time), so files on different
  // bases are far apart as written; older ones hold epoch times (base 0).
  // Moving each file by its base less the first file's puts them all on the
  // first file's clock, where base + ts, the epoch time, says they belong. A
  // directory whose files share one base is not changed.
  void PutOnTheRunsClock(Timeline& part, RankFileFacts* facts) {
    if (first_) into_->time_base_ns = part.time_base_ns;
    const TimeNs shift = part.time_base_ns - into_->time_base_ns;
    if (shift == 0) return;
    if (!timeline::ShiftTimes(part, shift)) {
      into_->warnings.push_back(absl::StrFormat(
          "%s: its baseTimeNanoseconds (%d) is too far from %s's (%d) to "
          "put its times on that clock; they stay on their own",
          facts->file, part.time_base_ns, first_file_, into_->time_base_ns));
      return;
    }
    timeline::TimeExtent& range = facts->time_range;
    if (range.any) {
      range.first += shift;
      range.last += shift;
    }
  }
  // Real pids (>= 0) move up past every pid seen, with a warning; the
  // reader's stand-ins for string pids (< 0, numbered from -1 in each
  // file) move down past every one seen, silently: they name no process.
  void RenumberCollidingPids(Timeline& part, const std::string& file) {
    std::set<int32_t> pids;
    timeline::ForEachPid(part, [&](int32_t& pid) { pids.insert(pid); });
    if (pids.empty()) return;
    int64_t up = std::max<int64_t>(*pids.rbegin(), -1);
    int64_t down = std::min<int64_t>(*pids.begin(), 0);
    if (!pid_files_.empty()) {
      up = std::max<int64_t>(up, pid_files_.rbegin()->first);
      down = std::min<int64_t>(down, pid_files_.begin()->first);
    }
    std::map<int32_t, int32_t> renumbered;
    for (int32_t pid : pids) {
      auto earlier = pid_files_.find(pid);
      if (earlier == pid_files_.end()) continue;
      if (pid < 0) {
        if (--down < std::numeric_limits<int32_t>::min()) continue;
        renumbered[pid] = static_cast<int32_t>(down);
        continue;
      }
      if (++up > std::numeric_limits<int32_t>::max()) continue;  // no room
      renumbered[pid] = static_cast<int32_t>(up);
      moved_[pid].emplace_back(file, static_cast<int32_t>(up));
    }
    if (renumbered.empty()) return;
    timeline::ForEachPid(part, [&](int32_t& pid) {
      auto it = renumbered.find(pid);
      if (it != renumbered.end()) pid = it->second;
    });
  }

  // One warning per renumbered pid, by pid: eight copies of one
  // container's trace get one line that names them all, not seven.
  void AddRenumberingWarnings() {
    for (const auto& [pid, moves] : moved_) {
      const std::string& first = pid_files_.at(pid);
      if (moves.size() == 1) {
        into_->warnings.push_back(absl::StrFormat(
            "%s: process id %d is also in %s (ranks on different hosts, or "
            "the same trace twice?); this file's pid %d is shown as pid %d "
            "so that the two processes stay apart",
            moves[0].first, pid, first, pid, moves[0].second));
        continue;
      }
      std::vector<std::string> files, shown_as;
      for (const auto& [file, new_pid] : moves) {
        files.push_back(file);
        shown_as.push_back(absl::StrCat(new_pid));
      }
      into_->warnings.push_back(absl::StrFormat(
          "process id %d is in %d files (ranks on different hosts, or the "
          "same trace copied?): %s keeps it; in %s it is shown as pid %s "
          "respectively, so that the processes stay apart",
          pid, moves.size() + 1, first, ListWithAnd(files),
          ListWithAnd(shown_as)));
    }
  }

  Timeline* into_;
  bool first_ = true;
  std::string first_file_;
  std::map<int32_t, std::string> pid_files_;  // pid -> first file using it
  // Renumbered real pids: the later files that used one and the pid each
  // shows it as, in file order.
  std::map<int32_t, std::vector<std::pair<std::string, int32_t>>> moved_;
};

}  // namespace

absl::StatusOr<Timeline> ReadKinetoDirectory(
    const std::string& dir, const std::vector<std::string>& files) {
  uint64_t total_bytes = 0;
  for (const std::string& file : files) {
    std::error_code ignored;
    const uintmax_t size = std::filesystem::file_size(file, ignored);
    if (!ignored) total_bytes += size;
  }
  common::ReadProgress progress(dir, total_bytes);

  Timeline timeline;
  KinetoRunMerge merge(&timeline);
  std::vector<std::string> unreadable;
  size_t read = 0;
  // The cores are shared out: files read side by side each get the event
  // threads their share of the cores leaves, instead of one file's full
  // count each.
  const unsigned readers =
      common::ReadThreadCount(files.size(), platform::UsableCores());
  kineto::KinetoReadOptions per_file;
  if (readers > 1) {
    per_file.event_threads = static_cast<int>(std::min(
        kineto::kMaxKinetoEventThreads,
        common::SpareThreadsPerFile(readers, platform::UsableCores())));
  }
  // A file's rank and time range, for the check that the files are one
  // run, are taken on the worker that read it.
  struct FileRead {
    absl::StatusOr<Timeline> timeline;
    RankFileFacts facts;
  };
  std::vector<RankFileFacts> facts;
  common::ReadInParallelMergeInOrder<FileRead>(
      files.size(), readers,
      [&](size_t i) {
        // The reader's own progress line becomes a part of the directory's.
        common::ReadProgress::ScopedParent parent(&progress);
        FileRead r{kineto::ReadKinetoTraceWithOptions(files[i], per_file), {}};
        if (r.timeline.ok()) r.facts = FactsOfRankFile(*r.timeline, files[i]);
        return r;
      },
      [&](size_t, FileRead&& r) {
        absl::StatusOr<Timeline>& part = r.timeline;
        if (!part.ok()) {
          unreadable.push_back(std::string(part.status().message()));
          return;
        }
        merge.Append(std::move(*part), &r.facts);
        facts.push_back(std::move(r.facts));
        ++read;
      });

  if (read == 0) {
    return absl::InvalidArgumentError(absl::StrJoin(unreadable, "\n"));
  }
  progress.ShowStage(common::MergingFilesStage(read));
  merge.Finish(platform::UsableCores());
  for (std::string& reason : unreadable) {
    timeline.warnings.push_back(reason + " (skipped)");
  }
  for (std::string& warning : NotOneRunWarnings(facts)) {
    timeline.warnings.push_back(std::move(warning));
  }
  timeline.format = SourceFormat::kKineto;
  timeline.source_path = dir;
  return timeline;
}

}  // namespace feedprof::ingest
