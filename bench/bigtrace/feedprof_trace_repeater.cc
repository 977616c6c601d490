#include "bench/bigtrace/feedprof_trace_repeater.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <numeric>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "feedprof.pb.h"
#include "feedprof/trace_loader.h"

namespace feedprof::bench {
namespace {

constexpr size_t kEventsPerBatch = 1000;
constexpr TimeNs kGapNs = 1'000'000;

// One repetition's offsets.
struct Shift {
  TimeNs time = 0;
  uint64_t correlation = 0;
  uint64_t Correlation(uint64_t id) const {
    return id == 0 ? 0 : id + correlation;
  }
};

// Indices into the timeline's vectors of one host thread's events.
struct ThreadEvents {
  std::vector<size_t> api_calls;  // by start
  std::vector<size_t> ranges;     // by end, as NVTX pops emit them
  std::vector<size_t> marks;      // by time
};

class PacketFile {
 public:
  explicit PacketFile(std::FILE* file) : file_(file) {}
  void Write(const trace::Packet& packet) {
    packet.SerializeToString(&bytes_);
    char frame[11];
    size_t n = 0;
    frame[n++] = '\x0A';  // Trace.packet, length-delimited
    uint64_t length = bytes_.size();
    while (length >= 0x80) {
      frame[n++] = static_cast<char>((length & 0x7F) | 0x80);
      length >>= 7;
    }
    frame[n++] = static_cast<char>(length);
    ok_ = ok_ && std::fwrite(frame, 1, n, file_) == n &&
          std::fwrite(bytes_.data(), 1, bytes_.size(), file_) == bytes_.size();
    written_ += n + bytes_.size();
  }
  uint64_t written() const { return written_; }
  bool ok() const { return ok_; }

 private:
  std::FILE* file_;
  std::string bytes_;
  uint64_t written_ = 0;
  bool ok_ = true;
};

void WriteHeader(const Timeline& t, int32_t pid, PacketFile& out) {
  trace::Packet packet;
  trace::Header* header = packet.mutable_header();
  header->set_format_version(1);
  header->set_pid(static_cast<uint32_t>(pid));
  header->set_hostname("bench-host");
  header->add_argv(t.processes.empty() || t.processes[0].command.empty()
                       ? std::string("train.py")
                       : t.processes[0].command);
  header->set_rank(-1);
  header->set_local_rank(-1);
  header->set_origin("start");
  out.Write(packet);

  trace::Packet strings;
  for (StringId id = 1; id < t.strings.size(); ++id) {
    trace::InternedString* s = strings.mutable_strings()->add_strings();
    s->set_id(id);
    s->set_value(std::string(t.strings.Get(id)));
  }
  out.Write(strings);
  for (const Device& d : t.devices) {
    trace::Packet device;
    device.mutable_device()->set_device_id(static_cast<uint32_t>(d.id));
    device.mutable_device()->set_name(d.name);
    device.mutable_device()->set_sm_count(d.sm_count);
    device.mutable_device()->set_global_memory_bytes(d.memory_bytes);
    out.Write(device);
  }
  for (const Thread& th : t.threads) {
    trace::Packet thread;
    thread.mutable_thread()->set_tid(static_cast<uint32_t>(th.tid));
    thread.mutable_thread()->set_name(th.name);
    thread.mutable_thread()->set_is_main(th.is_main);
    out.Write(thread);
  }
}

// Delta-encodes one repeated field of a batch: each start relative to the
// previous one, the first to the batch base.
class DeltaChain {
 public:
  explicit DeltaChain(TimeNs base) : previous_(base) {}
  int64_t Next(TimeNs ts) {
    const int64_t delta = ts - previous_;
    previous_ = ts;
    return delta;
  }

 private:
  TimeNs previous_;
};

uint64_t Duration(TimeNs start, TimeNs end) {
  return end > start ? static_cast<uint64_t>(end - start) : 0;
}

void WriteThreadBatches(const Timeline& t, int32_t tid,
                        const ThreadEvents& events, const Shift& shift,
                        PacketFile& out) {
  const size_t batches = std::max({events.api_calls.size(),
                                   events.ranges.size(), events.marks.size()}) /
                             kEventsPerBatch +
                         1;
  for (size_t b = 0; b < batches; ++b) {
    const size_t from = b * kEventsPerBatch;
    trace::Packet packet;
    trace::EventBatch* batch = packet.mutable_events();
    batch->set_tid(static_cast<uint32_t>(tid));
    TimeNs base = INT64_MAX;
    if (from < events.api_calls.size()) {
      base = std::min(base, t.api_calls[events.api_calls[from]].start);
    }
    if (from < events.ranges.size()) {
      base = std::min(base, t.ranges[events.ranges[from]].start);
    }
    if (from < events.marks.size()) {
      base = std::min(base, t.marks[events.marks[from]].ts);
    }
    if (base == INT64_MAX) continue;
    batch->set_base_ts_ns(static_cast<uint64_t>(base + shift.time));

    DeltaChain calls(base);
    uint64_t previous_correlation = 0;
    for (size_t i = from;
         i < std::min(events.api_calls.size(), from + kEventsPerBatch); ++i) {
      const ApiCall& c = t.api_calls[events.api_calls[i]];
      trace::ApiCall* call = batch->add_api_calls();
      call->set_start_delta(calls.Next(c.start));
      call->set_duration_ns(Duration(c.start, c.end));
      call->set_name_id(c.name);
      call->set_domain(c.domain == ApiDomain::kDriver
                           ? trace::API_DOMAIN_DRIVER
                           : trace::API_DOMAIN_RUNTIME);
      call->set_bytes(c.bytes);
      // As the recorder writes it: each id relative to the previous one.
      const uint64_t correlation = shift.Correlation(c.correlation);
      if (i == from) {
        batch->set_base_correlation_id(correlation);
      } else {
        call->set_correlation_delta(
            static_cast<int64_t>(correlation - previous_correlation));
      }
      previous_correlation = correlation;
    }
    DeltaChain ranges(base);
    for (size_t i = from;
         i < std::min(events.ranges.size(), from + kEventsPerBatch); ++i) {
      const Range& r = t.ranges[events.ranges[i]];
      trace::NvtxRange* range = batch->add_ranges();
      range->set_start_delta(ranges.Next(r.start));
      range->set_duration_ns(Duration(r.start, r.end));
      range->set_name_id(r.name);
      range->set_domain_id(r.domain);
      range->set_depth(r.depth);
    }
    DeltaChain marks(base);
    for (size_t i = from;
         i < std::min(events.marks.size(), from + kEventsPerBatch); ++i) {
      const Mark& m = t.marks[events.marks[i]];
      trace::NvtxMark* mark = batch->add_marks();
      mark->set_ts_delta(marks.Next(m.ts));
      mark->set_name_id(m.name);
      mark->set_domain_id(m.domain);
    }
    out.Write(packet);
  }
}

void WriteGpuBatches(const Timeline& t, const Shift& shift, PacketFile& out) {
  const size_t total = std::max(t.gpu_ops.size(), t.syncs.size());
  for (size_t from = 0; from < total; from += kEventsPerBatch) {
    trace::Packet packet;
    trace::EventBatch* batch = packet.mutable_events();
    batch->set_tid(0);  // the GPU activity stream
    const size_t ops_end = std::min(t.gpu_ops.size(), from + kEventsPerBatch);
    const size_t syncs_end = std::min(t.syncs.size(), from + kEventsPerBatch);
    TimeNs base = INT64_MAX;
    if (from < t.gpu_ops.size()) base = t.gpu_ops[from].start;
    if (from < t.syncs.size()) base = std::min(base, t.syncs[from].start);
    batch->set_base_ts_ns(static_cast<uint64_t>(base + shift.time));
    DeltaChain kernels(base);
    DeltaChain copies(base);
    DeltaChain memsets(base);
    for (size_t i = from; i < ops_end; ++i) {
      const GpuOp& op = t.gpu_ops[i];
      const auto device = static_cast<uint32_t>(op.device);
      const auto stream = static_cast<uint32_t>(op.stream);
      const uint64_t correlation = shift.Correlation(op.correlation);
      switch (op.kind) {
        case GpuOpKind::kKernel: {
          trace::Kernel* k = batch->add_kernels();
          k->set_start_delta(kernels.Next(op.start));
          k->set_duration_ns(Duration(op.start, op.end));
          k->set_name_id(op.name);
          k->set_device_id(device);
          k->set_stream_id(stream);
          k->set_correlation_id(correlation);
          const LaunchShape& launch = t.LaunchOf(op);
          k->set_grid_x(launch.grid[0]);
          k->set_grid_y(launch.grid[1]);
          k->set_grid_z(launch.grid[2]);
          k->set_block_x(launch.block[0]);
          k->set_block_y(launch.block[1]);
          k->set_block_z(launch.block[2]);
          k->set_graph_id(launch.graph_id);
          break;
        }
        case GpuOpKind::kMemcpy: {
          trace::Memcpy* m = batch->add_memcpys();
          m->set_start_delta(copies.Next(op.start));
          m->set_duration_ns(Duration(op.start, op.end));
          m->set_device_id(device);
          m->set_stream_id(stream);
          m->set_correlation_id(correlation);
          m->set_bytes(op.bytes);
          m->set_copy_kind(static_cast<trace::CopyKind>(op.copy_kind));
          m->set_src_kind(static_cast<trace::MemoryKind>(op.src_kind));
          m->set_dst_kind(static_cast<trace::MemoryKind>(op.dst_kind));
          m->set_async(op.async);
          break;
        }
        case GpuOpKind::kMemset: {
          trace::Memset* m = batch->add_memsets();
          m->set_start_delta(memsets.Next(op.start));
          m->set_duration_ns(Duration(op.start, op.end));
          m->set_device_id(device);
          m->set_stream_id(stream);
          m->set_correlation_id(correlation);
          m->set_bytes(op.bytes);
          m->set_memory_kind(static_cast<trace::MemoryKind>(op.dst_kind));
          m->set_async(op.async);
          break;
        }
      }
    }
    DeltaChain syncs(base);
    for (size_t i = from; i < syncs_end; ++i) {
      const SyncRecord& s = t.syncs[i];
      trace::SyncRecord* sync = batch->add_syncs();
      sync->set_start_delta(syncs.Next(s.start));
      sync->set_duration_ns(Duration(s.start, s.end));
      sync->set_type(static_cast<trace::SyncType>(s.type));
      sync->set_stream_id(s.stream < 0 ? 0xFFFFFFFFu
                                       : static_cast<uint32_t>(s.stream));
      sync->set_correlation_id(shift.Correlation(s.correlation));
      sync->set_device_id(static_cast<uint32_t>(s.device));
    }
    out.Write(packet);
  }
}

absl::Status WriteError(const std::string& path) {
  return absl::InternalError(
      absl::StrCat(path, ": cannot write: ", std::strerror(errno),
                   "; free disk space or choose another directory"));
}

}  // namespace

absl::StatusOr<RepeatedTrace> WriteRepeatedFeedprofTrace(
    const std::string& source_path, uint64_t target_bytes,
    const std::string& out_path, SessionProcess process) {
  absl::StatusOr<Timeline> loaded = LoadTrace(source_path);
  if (!loaded.ok()) return loaded.status();
  const Timeline& t = *loaded;

  TimeNs first = INT64_MAX;
  TimeNs last = INT64_MIN;
  uint64_t max_correlation = 0;
  auto note = [&](TimeNs start, TimeNs end) {
    first = std::min(first, start);
    last = std::max(last, end);
  };
  std::map<int32_t, ThreadEvents> threads;
  for (size_t i = 0; i < t.api_calls.size(); ++i) {
    note(t.api_calls[i].start, t.api_calls[i].end);
    max_correlation = std::max(max_correlation, t.api_calls[i].correlation);
    threads[t.api_calls[i].tid].api_calls.push_back(i);
  }
  for (size_t i = 0; i < t.ranges.size(); ++i) {
    note(t.ranges[i].start, t.ranges[i].end);
    threads[t.ranges[i].tid].ranges.push_back(i);
  }
  for (size_t i = 0; i < t.marks.size(); ++i) {
    note(t.marks[i].ts, t.marks[i].ts);
    threads[t.marks[i].tid].marks.push_back(i);
  }
  for (const GpuOp& op : t.gpu_ops) {
    note(op.start, op.end);
    max_correlation = std::max(max_correlation, op.correlation);
  }
  for (const SyncRecord& s : t.syncs) {
    note(s.start, s.end);
    max_correlation = std::max(max_correlation, s.correlation);
  }
  if (first > last) {
    return absl::InvalidArgumentError(absl::StrCat(
        source_path, ": cannot repeat this trace: it holds no timed event"));
  }
  for (auto& [tid, events] : threads) {
    std::stable_sort(
        events.ranges.begin(), events.ranges.end(),
        [&t](size_t a, size_t b) { return t.ranges[a].end < t.ranges[b].end; });
  }
  const int32_t pid =
      (t.processes.empty() ? 1 : t.processes[0].pid) + process.pid_offset;

  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(
      std::fopen(out_path.c_str(), "wb"), &std::fclose);
  if (!file) return WriteError(out_path);
  std::setvbuf(file.get(), nullptr, _IOFBF, 4 << 20);
  PacketFile out(file.get());
  WriteHeader(t, pid, out);

  const TimeNs period = last - first + kGapNs;
  RepeatedTrace result;
  while (result.repetitions == 0 || out.written() < target_bytes) {
    const auto k = static_cast<int64_t>(result.repetitions);
    const Shift shift{process.time_offset_ns + k * period,
                      static_cast<uint64_t>(k) * (max_correlation + 1)};
    for (const auto& [tid, events] : threads) {
      WriteThreadBatches(t, tid, events, shift, out);
    }
    WriteGpuBatches(t, shift, out);
    ++result.repetitions;
  }
  const auto events_per_repetition =
      static_cast<uint64_t>(t.api_calls.size() + t.ranges.size() +
                            t.marks.size() + t.gpu_ops.size() + t.syncs.size());
  trace::Packet drops;
  drops.mutable_drops()->set_events_recorded(events_per_repetition *
                                             result.repetitions);
  out.Write(drops);
  trace::Packet footer;
  footer.mutable_footer()->set_end_ns(static_cast<uint64_t>(
      process.time_offset_ns + last +
      static_cast<TimeNs>(result.repetitions - 1) * period));
  footer.mutable_footer()->set_reason("exit");
  out.Write(footer);
  if (!out.ok() || std::fflush(file.get()) != 0) return WriteError(out_path);
  result.bytes = out.written();
  return result;
}

}  // namespace feedprof::bench
