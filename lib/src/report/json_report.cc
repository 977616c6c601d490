// The JSON report, schema "feedprof.analysis/1" (docs/report-json.md).
//
// Field names are a contract with scripts and dashboards: add fields freely,
// never rename or change the meaning of one without bumping the schema
// version. Times are integer nanoseconds (`*_ns`), shares are 0..1.
#include <string>
#include <vector>

#include "common/json_writer.h"
#include "feedprof/report.h"
#include "report/platform_block.h"

namespace feedprof {
namespace {

using common::JsonWriter;

// A name that may be absent (no runner-up verdict, no call site): null.
void StringOrNull(JsonWriter& w, const char* key, const std::string& v) {
  w.Key(key);
  if (v.empty()) {
    w.Null();
  } else {
    w.String(v);
  }
}

void StringArray(JsonWriter& w, const char* key,
                 const std::vector<std::string>& items) {
  w.Key(key).BeginArray();
  for (const std::string& item : items) w.String(item);
  w.EndArray();
}

void WriteIdleByCause(JsonWriter& w, const IdleByCause& idle) {
  w.BeginObject();
  w.Key("host_wait").Int(idle.HostWait());
  for (int c = 0; c < kIdleCauses; ++c) {
    w.Key(IdleCauseName(static_cast<IdleCause>(c)))
        .Int(idle.ns[static_cast<size_t>(c)]);
  }
  w.EndObject();
}

void WriteDevice(JsonWriter& w, const DeviceReport& d) {
  w.BeginObject();
  w.Key("device").Int(d.device);
  w.Key("pid").Int(d.pid);
  w.Key("name").String(d.name);
  w.Key("span_start_ns").Int(d.span_start);
  w.Key("span_end_ns").Int(d.span_end);
  w.Key("span_ns").Int(d.span_ns);
  w.Key("busy_ns").Int(d.busy_ns);
  w.Key("idle_ns").Int(d.idle_ns);
  w.Key("idle_share").Double(d.idle_share);
  w.Key("compute_ns").Int(d.compute_ns);
  w.Key("memcpy_ns").Int(d.memcpy_ns);
  w.Key("memset_ns").Int(d.memset_ns);
  w.Key("exposed_memcpy_ns").Int(d.exposed_memcpy_ns);
  w.Key("communication_ns").Int(d.communication_ns);
  w.Key("exposed_communication_ns").Int(d.exposed_communication_ns);
  w.Key("communication_kernels").Uint(d.communication_kernel_count);
  w.Key("small_grid_kernel_ns").Int(d.small_grid_kernel_ns);
  w.Key("kernels").Uint(d.kernel_count);
  w.Key("memcpys").Uint(d.memcpy_count);
  w.Key("memsets").Uint(d.memset_count);
  w.Key("gaps").BeginObject();
  w.Key("count").Uint(d.gaps.count);
  w.Key("histogram").BeginObject();
  for (int b = 0; b < kGapBuckets; ++b) {
    w.Key(GapBucketLabel(b)).Uint(d.gaps.histogram[static_cast<size_t>(b)]);
  }
  w.EndObject();
  w.Key("histogram_idle_ns").BeginObject();
  for (int b = 0; b < kGapBuckets; ++b) {
    w.Key(GapBucketLabel(b)).Int(d.gaps.histogram_ns[static_cast<size_t>(b)]);
  }
  w.EndObject();
  w.Key("after_sync_idle_ns").Int(d.gaps.after_sync.Total());
  w.EndObject();
  w.Key("idle_by_cause_ns");
  WriteIdleByCause(w, d.idle_by_cause);
  w.Key("launch_overhead_share").Double(d.launch_overhead_share);
  w.Key("excluded_ops").BeginObject();
  w.Key("count").Uint(d.excluded_ops.count);
  w.Key("busy_ns").Int(d.excluded_ops.busy_ns);
  w.EndObject();
  w.Key("streams").BeginArray();
  for (const StreamIdle& s : d.streams) {
    w.BeginObject();
    w.Key("stream").Int(s.stream);
    w.Key("busy_ns").Int(s.busy_ns);
    w.Key("host_wait_ns").Int(s.host_wait_ns);
    w.Key("kernel_wait_ns").Int(s.kernel_wait_ns);
    w.Key("other_ns").Int(s.other_ns);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

void WriteCollectives(JsonWriter& w, const CollectivesReport& c) {
  w.BeginObject();
  w.Key("available").Bool(c.available);
  w.Key("ranks").Uint(c.ranks);
  w.Key("matched").Uint(c.matched);
  w.Key("unaligned").Uint(c.unaligned);
  w.Key("unmatched").Uint(c.unmatched);
  w.Key("clocks_aligned").Bool(c.clocks_aligned);
  w.Key("median_end_spread_ns").Int(c.median_end_spread_ns);
  w.Key("wait_ns").Int(c.wait_ns);
  w.Key("wait_share").Double(c.wait_share);
  w.EndObject();
}

void WriteStraggler(JsonWriter& w, const Straggler& s) {
  w.BeginObject();
  w.Key("kind").String(StragglerKindName(s.kind));
  w.Key("ranks").BeginArray();
  for (int32_t rank : s.ranks) w.Int(rank);
  w.EndArray();
  w.Key("pids").BeginArray();
  for (int32_t pid : s.pids) w.Int(pid);
  w.EndArray();
  w.Key("collectives").Uint(s.collectives);
  w.Key("arrived_last").Uint(s.arrived_last);
  w.Key("caused_wait_ns").Int(s.caused_wait_ns);
  w.Key("wait_per_step_ns").Int(s.wait_per_step_ns);
  w.Key("late_by_ns").Int(s.late_by_ns);
  w.Key("late_start_ns").Int(s.late_start_ns);
  w.Key("main_op").String(CollectiveOpName(s.main_op));
  w.Key("cause").String(VerdictClassName(s.cause));
  w.Key("extra_busy_ns").Int(s.extra_busy_ns);
  w.Key("extra_idle_by_cause").BeginObject();
  for (int c = 0; c < kIdleCauses; ++c) {
    w.Key(IdleCauseName(static_cast<IdleCause>(c)))
        .Int(s.extra_idle.ns[static_cast<size_t>(c)]);
  }
  w.EndObject();
  StringOrNull(w, "location", s.location);
  w.Key("explanation").String(s.explanation);
  StringArray(w, "next_steps", s.next_steps);
  w.Key("steps").BeginArray();
  for (const StepStraggler& st : s.steps) {
    w.BeginObject();
    w.Key("step").Uint(st.step);
    w.Key("rank").IntOrNull(st.rank >= 0, st.rank);
    w.Key("pid").Int(st.pid);
    w.Key("wait_ns").Int(st.wait_ns);
    w.Key("late_start_ns").Int(st.late_start_ns);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

void WriteVerdict(JsonWriter& w, const Verdict& v) {
  w.BeginObject();
  w.Key("primary").String(VerdictClassName(v.primary));
  w.Key("basis").String(VerdictBasisName(v.basis));
  StringOrNull(w, "runner_up", VerdictClassName(v.runner_up));
  w.Key("confidence").Double(v.confidence);
  w.Key("confidence_label").String(v.confidence_label);
  StringArray(w, "evidence", v.evidence);
  StringArray(w, "next_steps", v.next_steps);
  w.Key("next_step_estimates").BeginArray();
  for (const NextStepEstimate& e : v.next_step_estimates) {
    w.BeginObject();
    w.Key("step").Uint(e.step);
    w.Key("scenario").String(WhatIfScenarioName(e.scenario));
    StringOrNull(w, "no_saving_reason", e.no_saving_reason);
    StringOrNull(w, "sync_api", e.sync_api);
    StringOrNull(w, "sync_call_site", e.sync_call_site);
    w.Key("saving_ns").Int(e.saving_ns);
    w.Key("saving_share").Double(e.saving_share);
    w.EndObject();
  }
  w.EndArray();
  w.Key("scores").BeginArray();
  for (const RuleScore& r : v.scores) {
    w.BeginObject();
    w.Key("verdict").String(VerdictClassName(r.verdict));
    w.Key("score").Double(r.score);
    w.Key("threshold").Double(r.threshold);
    w.Key("triggered").Bool(r.triggered);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

void WriteLaunch(JsonWriter& w, const LaunchStats& l) {
  const bool launches = l.count > l.graph_launches;
  const bool delays = l.launch_delays > 0;
  w.BeginObject();
  w.Key("count").Uint(l.count);
  w.Key("kernels").Uint(l.kernels);
  w.Key("graph_launches").Uint(l.graph_launches);
  w.Key("graph_kernels").Uint(l.graph_kernels);
  w.Key("median_api_ns").IntOrNull(launches, l.median_api_ns);
  w.Key("median_graph_launch_api_ns")
      .IntOrNull(l.graph_launches > 0, l.median_graph_launch_api_ns);
  w.Key("median_kernel_ns").IntOrNull(l.kernels > 0, l.median_kernel_ns);
  w.Key("share_kernels_shorter_than_launch")
      .Double(l.share_kernels_shorter_than_launch);
  w.Key("launch_delays").Uint(l.launch_delays);
  w.Key("median_launch_delay_ns").IntOrNull(delays, l.median_launch_delay_ns);
  w.Key("p90_launch_delay_ns").IntOrNull(delays, l.p90_launch_delay_ns);
  w.Key("max_launch_delay_ns").IntOrNull(delays, l.max_launch_delay_ns);
  w.Key("max_launch_delay_kernel").String(l.max_launch_delay_kernel);
  w.Key("top_kernels").BeginArray();
  for (const KernelTotal& k : l.top_kernels) {
    w.BeginObject();
    w.Key("name").String(k.name);
    w.Key("count").Uint(k.count);
    w.Key("total_ns").Int(k.total_ns);
    w.EndObject();
  }
  w.EndArray();
  w.Key("sites").BeginArray();
  for (const LaunchSite& site : l.sites) {
    w.BeginObject();
    w.Key("location").String(site.location);
    w.Key("count").Uint(site.count);
    w.Key("api_ns").Int(site.api_ns);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

// One thread of host.threads or host.profiler_threads; CPU figures are null
// where the trace has no samples for it.
void WriteThread(JsonWriter& w, const ThreadReport& t) {
  w.BeginObject();
  w.Key("pid").Int(t.pid);
  w.Key("tid").Int(t.tid);
  w.Key("name").String(t.name);
  w.Key("api_calls").Uint(t.api_calls);
  w.Key("cuda_api_ns").Int(t.cuda_api_ns);
  w.Key("sync_blocked_ns").Int(t.sync_blocked_ns);
  w.Key("cpu_user_ns").IntOrNull(t.samples, t.cpu_user_ns);
  w.Key("cpu_system_ns").IntOrNull(t.samples, t.cpu_system_ns);
  w.Key("cpu_share").DoubleOrNull(t.samples, t.cpu_share);
  w.Key("running_share").DoubleOrNull(t.samples, t.running_share);
  w.Key("sleeping_share").DoubleOrNull(t.samples, t.sleeping_share);
  w.Key("disk_wait_share").DoubleOrNull(t.samples, t.disk_wait_share);
  w.EndObject();
}

void WriteHost(JsonWriter& w, const Report& r) {
  const HostReport& h = r.host;
  w.BeginObject();
  w.Key("samples_available").Bool(h.samples_available);
  w.Key("cuda_api_ns").Int(h.cuda_api_ns);
  w.Key("sync_blocked_ns").Int(h.sync_blocked_ns);
  w.Key("sync_blocked_share").Double(h.sync_blocked_share);
  w.Key("threads").BeginArray();
  for (const ThreadReport& t : h.threads) WriteThread(w, t);
  w.EndArray();
  w.Key("program_cpu_ns").IntOrNull(h.samples_available, h.program_cpu_ns);
  w.Key("profiler_threads").BeginArray();
  for (const ThreadReport& t : h.profiler_threads) WriteThread(w, t);
  w.EndArray();
  w.Key("profiler_cpu_ns").IntOrNull(h.samples_available, h.profiler_cpu_ns);
  w.Key("profiler_core_share")
      .DoubleOrNull(h.samples_available, h.profiler_core_share);
  w.Key("workers").BeginArray();
  for (const WorkerProcess& p : h.workers) {
    w.BeginObject();
    w.Key("pid").Int(p.pid);
    w.Key("ppid").Int(p.ppid);
    w.Key("command").String(p.command);
    w.Key("cpu_user_ns").IntOrNull(p.samples, p.cpu_user_ns);
    w.Key("cpu_system_ns").IntOrNull(p.samples, p.cpu_system_ns);
    w.EndObject();
  }
  w.EndArray();
  w.Key("workers_cpu_ns").Int(h.workers_cpu_ns);
  w.Key("dataloader_ns").Int(h.dataloader_ns);
  w.Key("dataloader_ranges").Uint(h.dataloader_ranges);
  w.EndObject();
}

// How the input was read; the figures are empty (and the reason said)
// where the trace has no I/O counters.
void WriteIo(JsonWriter& w, const IoReport& io) {
  const auto optional = [&w](const char* key, const std::optional<double>& v) {
    w.Key(key).DoubleOrNull(v.has_value(), v.value_or(0));
  };
  w.BeginObject();
  w.Key("available").Bool(io.available);
  w.Key("unavailable_reason");
  if (io.available) {
    w.Null();
  } else {
    w.String(io.unavailable_reason);
  }
  w.Key("pattern").String(IoPatternName(io.pattern));
  w.Key("reading_role");
  if (io.reading_role) {
    w.String(IoRoleName(*io.reading_role));
  } else {
    w.Null();
  }
  w.Key("steps").Uint(io.steps);
  w.Key("includes_profiler_io").Bool(io.includes_profiler_io);
  w.Key("roles").BeginArray();
  for (const RoleIo& r : io.roles) {
    w.BeginObject();
    w.Key("role").String(IoRoleName(r.role));
    w.Key("processes").Uint(r.processes);
    w.Key("duration_ns").Int(r.duration_ns);
    w.Key("reads").Uint(r.reads);
    w.Key("read_chars").Uint(r.read_chars);
    w.Key("storage_read_bytes").Uint(r.storage_read_bytes);
    w.Key("writes").Uint(r.writes);
    w.Key("write_chars").Uint(r.write_chars);
    w.Key("storage_write_bytes").Uint(r.storage_write_bytes);
    w.Key("reads_per_s").Double(r.reads_per_s);
    w.Key("mean_read_bytes").Double(r.mean_read_bytes);
    w.Key("storage_share").Double(r.storage_share);
    w.Key("mapped_reads").Bool(r.mapped_reads);
    optional("reads_per_step", r.reads_per_step);
    optional("read_bytes_per_step", r.read_bytes_per_step);
    w.EndObject();
  }
  w.EndArray();
  w.Key("disks").BeginArray();
  for (const DiskIo& d : io.disks) {
    w.BeginObject();
    w.Key("device").String(d.device);
    w.Key("mount_point").String(d.mount_point);
    w.Key("duration_ns").Int(d.duration_ns);
    w.Key("reads").Uint(d.reads);
    w.Key("read_bytes").Uint(d.read_bytes);
    w.Key("writes").Uint(d.writes);
    w.Key("write_bytes").Uint(d.write_bytes);
    w.Key("reads_per_s").Double(d.reads_per_s);
    w.Key("mean_read_bytes").Double(d.mean_read_bytes);
    optional("read_await_ms", d.read_await_ms);
    w.Key("utilization").Double(d.utilization);
    w.Key("max_in_flight").Uint(d.max_in_flight);
    w.EndObject();
  }
  w.EndArray();
  w.Key("disks_unavailable_reason");
  if (io.disks.empty() && !io.disks_unavailable_reason.empty()) {
    w.String(io.disks_unavailable_reason);
  } else {
    w.Null();
  }
  w.Key("network_fs").BeginArray();
  for (const NetworkFsIo& n : io.network_fs) {
    w.BeginObject();
    w.Key("mount_point").String(n.mount_point);
    w.Key("fs_type").String(n.fs_type);
    w.Key("source").String(n.source);
    w.Key("ops").Uint(n.ops);
    w.Key("retransmissions").Uint(n.retransmissions);
    w.Key("major_timeouts").Uint(n.major_timeouts);
    optional("mean_rtt_ms", n.mean_rtt_ms);
    optional("mean_execute_ms", n.mean_execute_ms);
    w.Key("read_ops").Uint(n.read_ops);
    w.Key("read_bytes").Uint(n.read_bytes);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

// null where the trace does not say where threads' code was.
void WriteIdleByCode(JsonWriter& w, const IdleByCode& c) {
  if (!c.available) {
    w.Null();
    return;
  }
  w.BeginObject();
  w.Key("idle_ns").Int(c.idle_ns);
  w.Key("host_wait_ns").Int(c.host_wait_ns);
  w.Key("located_ns").Int(c.located_ns);
  w.Key("top").BeginArray();
  for (const CodeIdle& row : c.top) {
    w.BeginObject();
    w.Key("location").String(row.location);
    w.Key("idle_ns").Int(row.idle_ns);
    w.Key("idle_share").Double(row.idle_share);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

void WriteCodeLocations(JsonWriter& w,
                        const std::vector<CodeLocationTime>& rows,
                        bool totals) {
  w.BeginArray();
  for (const CodeLocationTime& row : rows) {
    w.BeginObject();
    w.Key("location").String(row.location);
    w.Key("user_code").Bool(row.user_code);
    w.Key("kind").String(CodeFrameKindName(row.kind));
    w.Key(totals ? "self_ns" : "time_ns").Int(row.self_ns);
    if (totals) w.Key("total_ns").Int(row.total_ns);
    w.EndObject();
  }
  w.EndArray();
}

// The roles' top locations; the folded stacks stay out (--format folded
// prints them).
void WriteHostCode(JsonWriter& w, const HostCode& c) {
  if (!c.available) {
    w.Null();
    return;
  }
  w.BeginObject();
  w.Key("basis").String(CodeProfileBasisName(c.basis));
  w.Key("roles").BeginArray();
  for (const RoleCodeProfile& role : c.roles) {
    w.BeginObject();
    w.Key("role").String(ThreadRoleName(role.role));
    w.Key("threads").Uint(role.threads);
    w.Key("located_ns").Int(role.located_ns);
    w.Key("top");
    WriteCodeLocations(w, role.top, true);
    w.Key("user_lines");
    WriteCodeLocations(w, role.user_lines, false);
    w.Key("stacks").Uint(role.stacks.size());
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

void WriteCopies(JsonWriter& w, const CopyReport& c) {
  w.BeginObject();
  w.Key("count").Uint(c.count);
  w.Key("bytes").Uint(c.bytes);
  w.Key("time_ns").Int(c.time_ns);
  w.Key("pageable_share").Double(c.pageable_share);
  w.Key("link");
  if (c.link_known) {
    w.BeginObject();
    w.Key("pcie_gen").Double(c.link_gen);
    w.Key("width").Uint(c.link_width);
    w.Key("theoretical_gbps").Double(c.link_theoretical_gbps);
    w.EndObject();
  } else {
    w.Null();
  }
  w.Key("directions").BeginArray();
  for (const CopyDirectionStats& d : c.directions) {
    w.BeginObject();
    w.Key("direction").String(CopyDirectionName(d.direction));
    w.Key("count").Uint(d.count);
    w.Key("bytes").Uint(d.bytes);
    w.Key("time_ns").Int(d.time_ns);
    w.Key("achieved_gbps").Double(d.achieved_gbps);
    w.Key("pageable_share").Double(d.pageable_share);
    w.Key("link_share")
        .DoubleOrNull(d.link_share.has_value(), d.link_share.value_or(0));
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

void WriteSteps(JsonWriter& w, const StepReport& s) {
  w.BeginObject();
  w.Key("available").Bool(s.available);
  if (s.available) {
    w.Key("source").String(s.source);
    w.Key("count").Uint(s.count);
    w.Key("median_ns").Int(s.median_ns);
    w.Key("p90_ns").Int(s.p90_ns);
    w.Key("median_gpu_busy_share").Double(s.median_gpu_busy_share);
    w.Key("steps").BeginArray();
    for (const StepInfo& step : s.steps) {
      w.BeginObject();
      w.Key("name").String(step.name);
      w.Key("pid").Int(step.pid);
      w.Key("start_ns").Int(step.start);
      w.Key("duration_ns").Int(step.end - step.start);
      w.Key("gpu_busy_ns").Int(step.gpu_busy_ns);
      w.Key("compute_ns").Int(step.compute_ns);
      w.Key("copy_ns").Int(step.copy_ns);
      w.Key("idle_by_cause_ns");
      WriteIdleByCause(w, step.idle_by_cause);
      w.EndObject();
    }
    w.EndArray();
  }
  w.EndObject();
}

void WriteWhatIfScenario(JsonWriter& w, const WhatIfScenario& s) {
  w.BeginObject();
  w.Key("id").String(WhatIfScenarioName(s.id));
  w.Key("title").String(s.title);
  w.Key("assumption").String(s.assumption);
  StringOrNull(w, "sync_api", s.sync_api);
  StringOrNull(w, "sync_reason", s.sync_reason);
  StringOrNull(w, "sync_call_site", s.sync_call_site);
  w.Key("edits").Uint(s.edits);
  w.Key("predicted_median_ns").Int(s.predicted_median_ns);
  w.Key("predicted_mean_ns").Int(s.predicted_mean_ns);
  w.Key("saving_ns").Int(s.saving_ns);
  w.Key("saving_share").Double(s.saving_share);
  w.Key("ranks").BeginArray();
  for (const WhatIfRank& k : s.ranks) {
    w.BeginObject();
    w.Key("pid").Int(k.pid);
    w.Key("rank").IntOrNull(k.rank >= 0, k.rank);
    w.Key("observed_median_ns").Int(k.observed_median_ns);
    w.Key("observed_mean_ns").Int(k.observed_mean_ns);
    w.Key("predicted_median_ns").Int(k.predicted_median_ns);
    w.Key("predicted_mean_ns").Int(k.predicted_mean_ns);
    w.Key("collective_wait_ns").Int(k.collective_wait_ns);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

// The what-if replay: predictions, never measurements. Figures are null
// and `scenarios` empty when it is not available.
void WriteWhatIf(JsonWriter& w, const WhatIf& f) {
  const bool ok = f.available;
  w.BeginObject();
  w.Key("available").Bool(ok);
  StringOrNull(w, "unavailable_reason",
               ok ? std::string() : f.unavailable_reason);
  StringOrNull(w, "basis", ok ? WhatIfBasisName(f.basis) : "");
  w.Key("steps").Uint(ok ? f.steps : 0);
  w.Key("coupled_ranks").Bool(ok && f.coupled_ranks);
  w.Key("observed_median_ns").IntOrNull(ok, f.observed_median_ns);
  w.Key("observed_mean_ns").IntOrNull(ok, f.observed_mean_ns);
  w.Key("replayed_median_ns").IntOrNull(ok, f.replayed_median_ns);
  w.Key("self_check_error").DoubleOrNull(ok, f.self_check_error);
  w.Key("parameters");
  if (ok) {
    const bool fraction = f.launch_cost_fraction > 0;
    w.BeginObject();
    w.Key("gpu_speedup").Double(f.gpu_speedup);
    w.Key("launch_cost_ns").IntOrNull(!fraction, f.launch_cost_ns);
    w.Key("launch_cost_fraction")
        .DoubleOrNull(fraction, f.launch_cost_fraction);
    StringOrNull(w, "launch_cost_source", f.launch_cost_source);
    w.Key("pinned_htod_gbps")
        .DoubleOrNull(f.pinned_htod_gbps > 0, f.pinned_htod_gbps);
    w.Key("pinned_dtoh_gbps")
        .DoubleOrNull(f.pinned_dtoh_gbps > 0, f.pinned_dtoh_gbps);
    StringOrNull(w, "pinned_source", f.pinned_source);
    w.Key("launch_queue_depth")
        .IntOrNull(f.launch_queue_depth > 0, f.launch_queue_depth);
    w.Key("most_outstanding_ops").Uint(f.most_outstanding_ops);
    w.Key("enqueueing_calls").Uint(f.enqueueing_calls);
    w.Key("queue_held_calls").Uint(f.queue_held_calls);
    w.Key("input_production_ns").Int(f.input_production_ns);
    w.EndObject();
  } else {
    w.Null();
  }
  w.Key("scenarios").BeginArray();
  if (ok) {
    for (const WhatIfScenario& s : f.scenarios) WriteWhatIfScenario(w, s);
  }
  w.EndArray();
  w.EndObject();
}

// Per-bucket series as one-line integer arrays; a thread's CPU series are
// null without samples.
void WriteTimeline(JsonWriter& w, const TimelineOverview& t) {
  w.BeginObject();
  w.Key("start_ns").Int(t.start);
  w.Key("bucket_ns").Int(t.bucket_ns);
  w.Key("buckets").Uint(t.buckets);
  w.Key("devices").BeginArray();
  for (const TimelineDevice& d : t.devices) {
    w.BeginObject();
    w.Key("pid").Int(d.pid);
    w.Key("device").Int(d.device);
    w.Key("busy_ns").IntArrayOnOneLine(d.busy_ns);
    w.Key("idle_ns").BeginObject();
    std::vector<int64_t> series(d.idle_ns.size());
    for (int c = 0; c < kIdleCauses; ++c) {
      for (size_t k = 0; k < d.idle_ns.size(); ++k) {
        series[k] = d.idle_ns[k].ns[static_cast<size_t>(c)];
      }
      w.Key(IdleCauseName(static_cast<IdleCause>(c))).IntArrayOnOneLine(series);
    }
    w.EndObject();
    w.EndObject();
  }
  w.EndArray();
  w.Key("threads").BeginArray();
  for (const TimelineThread& th : t.threads) {
    w.BeginObject();
    w.Key("pid").Int(th.pid);
    w.Key("tid").Int(th.tid);
    w.Key("name").String(th.name);
    w.Key("cpu_ns");
    if (th.samples) {
      w.IntArrayOnOneLine(th.cpu_ns);
    } else {
      w.Null();
    }
    w.Key("io_wait_ns");
    if (th.samples) {
      w.IntArrayOnOneLine(th.io_wait_ns);
    } else {
      w.Null();
    }
    w.Key("cuda_api_ns").IntArrayOnOneLine(th.cuda_api_ns);
    w.Key("sync_ns").IntArrayOnOneLine(th.sync_ns);
    w.EndObject();
  }
  w.EndArray();
  w.Key("threads_total").Uint(t.threads_total);
  w.Key("syncs").BeginArray();
  for (const TimelineSync& s : t.syncs) {
    w.BeginObject();
    w.Key("start_ns").Int(s.start);
    w.Key("duration_ns").Int(s.duration_ns);
    w.Key("pid").Int(s.pid);
    w.Key("tid").Int(s.tid);
    w.Key("api").String(s.api);
    w.EndObject();
  }
  w.EndArray();
  w.Key("sync_calls").Uint(t.sync_calls);
  w.Key("step_stride").Uint(t.step_stride);
  w.EndObject();
}

}  // namespace

std::string WriteJsonReport(const Report& r) {
  JsonWriter w(JsonWriter::Style::kPretty);
  w.BeginObject();
  w.Key("schema").String(Report::kSchema);
  w.Key("source").BeginObject();
  w.Key("format").String(SourceFormatName(r.source_format));
  w.Key("path").String(r.source_path);
  w.Key("events").Uint(r.events);
  w.Key("rank_digests").Uint(r.rank_digests);
  w.EndObject();
  w.Key("window").BeginObject();
  w.Key("trace_start_ns").Int(r.window.trace_start);
  w.Key("trace_end_ns").Int(r.window.trace_end);
  w.Key("start_ns").Int(r.window.start);
  w.Key("end_ns").Int(r.window.end);
  w.Key("from_ns").Int(r.window.start - r.window.trace_start);
  w.Key("to_ns").Int(r.window.end - r.window.trace_start);
  w.Key("restricted").Bool(r.window.restricted);
  w.Key("rank").IntOrNull(r.rank_filter.has_value(), r.rank_filter.value_or(0));
  w.EndObject();
  w.Key("has_gpu_activity").Bool(r.has_gpu_activity);
  w.Key("no_gpu_activity");
  if (r.no_gpu_activity) {
    w.BeginObject();
    w.Key("cause").String(NoGpuCauseName(r.no_gpu_activity->cause));
    w.Key("explanation").String(r.no_gpu_activity->explanation);
    w.Key("recorded").String(r.no_gpu_activity->recorded);
    w.Key("next_step").String(r.no_gpu_activity->next_step);
    w.EndObject();
  } else {
    w.Null();
  }
  w.Key("verdict");
  WriteVerdict(w, r.verdict);
  w.Key("devices").BeginArray();
  for (const DeviceReport& d : r.devices) WriteDevice(w, d);
  w.EndArray();
  w.Key("launch");
  WriteLaunch(w, r.launch);
  w.Key("sync_points").BeginArray();
  for (const SyncPoint& p : r.sync_points) {
    w.BeginObject();
    w.Key("api").String(p.api);
    w.Key("kind").String(SyncKindName(p.kind));
    w.Key("reason").String(p.reason);
    StringOrNull(w, "call_site", p.call_site);
    w.Key("call_stack").BeginArray();
    for (const std::string& frame : p.call_stack) w.String(frame);
    w.EndArray();
    w.Key("count").Uint(p.count);
    w.Key("blocked_ns").Int(p.blocked_ns);
    w.Key("wall_share").Double(p.wall_share);
    w.Key("idle_after_ns").Int(p.idle_after_ns);
    w.Key("blocks_host").Bool(p.blocks_host);
    w.EndObject();
  }
  w.EndArray();
  w.Key("gpu_side_waits").Uint(r.gpu_side_waits);
  w.Key("copies");
  WriteCopies(w, r.copies);
  w.Key("host");
  WriteHost(w, r);
  w.Key("io");
  WriteIo(w, r.io);
  w.Key("idle_by_code");
  WriteIdleByCode(w, r.idle_by_code);
  w.Key("host_code");
  WriteHostCode(w, r.host_code);
  w.Key("steps");
  WriteSteps(w, r.steps);
  w.Key("timeline");
  WriteTimeline(w, r.timeline);
  w.Key("what_if");
  WriteWhatIf(w, r.what_if);
  if (!r.ranks.empty()) {
    w.Key("ranks").BeginArray();
    for (const RankReport& k : r.ranks) {
      w.BeginObject();
      w.Key("rank").IntOrNull(k.rank >= 0, k.rank);
      w.Key("pids").BeginArray();
      for (int32_t pid : k.pids) w.Int(pid);
      w.EndArray();
      w.Key("span_ns").Int(k.span_ns);
      w.Key("busy_ns").Int(k.busy_ns);
      w.Key("idle_share").Double(k.idle_share);
      w.Key("median_step_ns").IntOrNull(k.median_step_ns > 0, k.median_step_ns);
      w.Key("sync_blocked_ns").Int(k.sync_blocked_ns);
      w.Key("communication_ns").Int(k.communication_ns);
      w.Key("exposed_communication_ns").Int(k.exposed_communication_ns);
      w.Key("slowest").Bool(k.slowest);
      w.Key("collectives").Uint(k.collectives);
      w.Key("collective_wait_ns").Int(k.collective_wait_ns);
      w.Key("arrived_last").Uint(k.arrived_last);
      w.Key("caused_wait_ns").Int(k.caused_wait_ns);
      w.Key("clock_offset_ns").Int(k.clock_offset_ns);
      w.Key("straggler").Bool(k.straggler);
      StringOrNull(w, "verdict", VerdictClassName(k.verdict));
      w.EndObject();
    }
    w.EndArray();
  }
  w.Key("collectives");
  WriteCollectives(w, r.collectives);
  w.Key("straggler");
  WriteStraggler(w, r.straggler);
  WritePlatformJson(r, w);
  w.Key("available").BeginObject();
  const Availability& a = r.available;
  for (auto [key, value] :
       {std::pair<const char*, bool>{"api_calls", a.api_calls},
        {"correlation", a.correlation},
        {"sync_records", a.sync_records},
        {"host_samples", a.host_samples},
        {"system_samples", a.system_samples},
        {"process_io", a.process_io},
        {"call_sites", a.call_sites},
        {"gpu_counters", a.gpu_counters},
        {"ranges", a.ranges}}) {
    w.Key(key).Bool(value);
  }
  w.EndObject();
  w.Key("drops").BeginObject();
  w.Key("events_dropped").Uint(r.drops.events_dropped);
  w.Key("cupti_records_dropped").Uint(r.drops.cupti_records_dropped);
  w.Key("zero_timestamp_records").Uint(r.drops.zero_timestamp_records);
  w.Key("samples_dropped").Uint(r.drops.samples_dropped);
  w.EndObject();
  StringArray(w, "warnings", r.warnings);
  w.EndObject();
  return w.str();
}

}  // namespace feedprof
