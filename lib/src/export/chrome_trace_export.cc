// Runs the export passes in order and writes the Kineto top-level fields.
//
// The window and rank are the analysis's: the same PreparedTimeline the
// report was computed from selects the processes, and events overlapping
// [window start, window end] are written whole (a slice that began before
// the window is not cut). Steps become a window through the report's own
// step list, so `--steps 3:5` exports exactly what the report calls steps
// 3 to 5.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>

#include "absl/strings/str_cat.h"
#include "common/json_writer.h"
#include "export/export_context.h"
#include "feedprof/analysis.h"

namespace feedprof {

namespace exporter {

void WriteTopLevelFields(ExportContext& ctx) {
  TraceEventWriter& out = ctx.out;
  out.EndEvents();
  {
    // deviceProperties as PyTorch's profiler writes them.
    std::string json;
    common::JsonWriter w(&json);
    w.BeginArray();
    std::set<int32_t> seen;
    for (const Device& d : ctx.tl.devices) {
      if (d.pid >= 0 && !ctx.Selected(d.pid)) continue;
      if (!seen.insert(d.id).second) continue;
      w.BeginObject();
      w.Key("id").Int(d.id);
      w.Key("name").String(d.name);
      w.Key("totalGlobalMem").Uint(d.memory_bytes);
      w.Key("numSms").Uint(d.sm_count);
      if (!d.pci_bus_id.empty()) w.Key("pciBusId").String(d.pci_bus_id);
      w.EndObject();
    }
    w.EndArray();
    out.TopLevelKey("deviceProperties");
    out.Raw(json);
  }
  // distributedInfo when the exported processes belong to one rank.
  std::set<std::pair<int32_t, int32_t>> ranks;
  for (const Process& p : ctx.tl.processes) {
    if (ctx.Selected(p.pid) && p.rank >= 0) {
      ranks.emplace(p.rank, p.world_size);
    }
  }
  if (ranks.size() == 1) {
    out.TopLevelKey("distributedInfo");
    out.Raw(absl::StrCat("{\"rank\":", ranks.begin()->first, ",\"world_size\":",
                         std::max(ranks.begin()->second, 1), "}"));
  }
  // The times are written as read; where they count from a base (newer
  // Kineto traces), the base goes with them, so that base + ts stays the
  // epoch time for every tool that reads the export.
  if (ctx.tl.time_base_ns != 0) {
    out.TopLevelKey("baseTimeNanoseconds");
    out.Raw(absl::StrCat(ctx.tl.time_base_ns));
  }
  out.TopLevelKey("displayTimeUnit");
  out.Raw("\"ns\"");
  out.TopLevelKey("schemaVersion");
  out.Raw("1");
  std::string source;
  common::AppendJsonString(ctx.tl.source_path, &source);
  out.TopLevelKey("traceName");
  out.Raw(source);
}

}  // namespace exporter

absl::StatusOr<AnalysisOptions> ResolveExportWindow(
    const Timeline& timeline, const ExportOptions& options) {
  if (!options.first_step && !options.last_step) return options.analysis;
  const uint64_t first = options.first_step.value_or(1);
  return WindowOfSteps(timeline, options.analysis, first,
                       options.last_step.value_or(first));
}

uint64_t EstimateExportBytes(const Timeline& tl, const Report& report) {
  const TimeNs ws = report.window.start;
  const TimeNs we = report.window.end;
  auto in = [&](TimeNs s, TimeNs e) { return e >= ws && s <= we; };
  uint64_t bytes = 0;
  // Typical sizes of one event of each kind as written, args included.
  for (const GpuOp& op : tl.gpu_ops) {
    if (in(op.start, op.end))
      bytes += op.kind == GpuOpKind::kKernel ? 420 : 330;
    if (in(op.start, op.end) && op.correlation != 0) bytes += 190;  // flow
  }
  for (const ApiCall& c : tl.api_calls) {
    if (in(c.start, c.end)) bytes += 150;
  }
  for (const Range& r : tl.ranges) {
    if (in(r.start, r.end)) bytes += 140;
  }
  for (const ThreadSample& s : tl.thread_samples) {
    if (in(s.ts, s.ts)) bytes += 60;  // state runs merge many samples
  }
  for (const SyncRecord& s : tl.syncs) {
    if (in(s.start, s.end)) bytes += 200;
  }
  for (const DeviceReport& d : report.devices) {
    bytes += d.gaps.count * 2 * 220;
  }
  bytes += tl.counters.size() * 90 + tl.marks.size() * 100;
  // Busy counters: 1 ms buckets, at most 10,000 per device.
  for (const DeviceReport& d : report.devices) {
    bytes += std::min<uint64_t>(
                 10'000, static_cast<uint64_t>(d.span_ns) / 1'000'000 + 1) *
             90;
  }
  return bytes;
}

absl::StatusOr<ExportStats> ExportChromeTrace(const Timeline& timeline,
                                              const Report& report,
                                              const AnalysisOptions& analysis,
                                              const ExportOptions& options,
                                              ByteSink& sink) {
  absl::StatusOr<analysis::PreparedTimeline> prepared =
      analysis::PreparedTimeline::Build(timeline, analysis);
  if (!prepared.ok()) return prepared.status();
  exporter::TraceEventWriter out(&sink);
  exporter::ExportContext ctx(timeline, report, *prepared, options, analysis,
                              out);
  ctx.window_start = report.window.start;
  ctx.window_end = report.window.end;
  out.BeginTrace();
  exporter::AssignTracks(ctx);
  exporter::CollectSyncNotes(ctx);
  exporter::WriteProcessMetadata(ctx);
  exporter::WriteHostThreads(ctx);
  exporter::WriteGpuStreams(ctx);
  exporter::WriteSyncRecords(ctx);
  exporter::WriteIdleGaps(ctx);
  exporter::WriteCounters(ctx);
  exporter::WriteTopLevelFields(ctx);
  if (absl::Status s = out.Finish(); !s.ok()) return s;
  ExportStats stats;
  stats.events = out.events();
  stats.bytes = out.bytes();
  return stats;
}

absl::StatusOr<ExportStats> ExportChromeTraceToFile(
    const Timeline& timeline, const Report& report,
    const AnalysisOptions& analysis, const ExportOptions& options,
    const std::string& path) {
  const bool gzip = path.size() >= 3 && path.ends_with(".gz");
  const std::string tmp = absl::StrCat(path, ".tmp-", ::getpid());
  absl::StatusOr<std::unique_ptr<ByteSink>> sink = OpenFileByteSink(tmp, gzip);
  if (!sink.ok()) {
    // Name the file the user asked for, not the temporary one.
    return absl::UnavailableError(absl::StrCat(
        "cannot write ", path, ": ", std::string(sink.status().message())));
  }
  absl::StatusOr<ExportStats> stats =
      ExportChromeTrace(timeline, report, analysis, options, **sink);
  sink->reset();
  if (!stats.ok()) {
    std::remove(tmp.c_str());
    return absl::Status(
        stats.status().code(),
        absl::StrCat("cannot write ", path, ": ", stats.status().message()));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    return absl::UnavailableError(absl::StrCat(
        "cannot write ", path, ": rename failed: ", std::strerror(err)));
  }
  return stats;
}

}  // namespace feedprof
