// The JSON rendering of a comparison, schema "feedprof.diff/2"
// (docs/diff.md). Every before/after figure is an object {before, after,
// delta, relative}; relative is null when BEFORE is 0. Writes the model as
// it is.
#include <optional>
#include <string>

#include "common/json_writer.h"
#include "feedprof/diff_report.h"

namespace feedprof {
namespace {

using common::JsonWriter;

void WriteChange(JsonWriter& w, const char* key, const Change& c) {
  w.Key(key).BeginObject();
  w.Key("before").Double(c.before);
  w.Key("after").Double(c.after);
  w.Key("delta").Double(c.delta);
  w.Key("relative")
      .DoubleOrNull(c.relative.has_value(), c.relative.value_or(0));
  w.EndObject();
}

void WriteSide(JsonWriter& w, const char* key, const RunSide& s) {
  w.Key(key).BeginObject();
  w.Key("path").String(s.source_path);
  w.Key("format").String(SourceFormatName(s.source_format));
  w.Key("events").Uint(s.events);
  w.Key("steps").Uint(s.steps);
  w.Key("window_ns").Int(s.window_ns);
  w.Key("divisor").Double(s.divisor);
  w.Key("rank").IntOrNull(s.rank_filter.has_value(), s.rank_filter.value_or(0));
  w.EndObject();
}

void WriteStats(JsonWriter& w, const char* key, const StepTimeStats& s) {
  w.Key(key).BeginObject();
  w.Key("count").Uint(s.count);
  w.Key("median_ns").Int(s.median_ns);
  w.Key("p10_ns").Int(s.p10_ns);
  w.Key("p90_ns").Int(s.p90_ns);
  w.Key("mean_ns").Double(s.mean_ns);
  w.EndObject();
}

void WriteStepTime(JsonWriter& w, const StepTimeComparison& s) {
  w.Key("step_time").BeginObject();
  w.Key("available").Bool(s.available);
  w.Key("before_source").String(s.before_source);
  w.Key("after_source").String(s.after_source);
  WriteStats(w, "before", s.before);
  WriteStats(w, "after", s.after);
  WriteChange(w, "median_ns", s.median_ns);
  WriteChange(w, "p10_ns", s.p10_ns);
  WriteChange(w, "p90_ns", s.p90_ns);
  WriteChange(w, "mean_ns", s.mean_ns);
  WriteChange(w, "gpu_busy_share", s.gpu_busy_share);
  WriteChange(w, "span_ns", s.span_ns);
  const NoiseVerdict& n = s.noise;
  w.Key("noise").BeginObject();
  w.Key("judged").Bool(n.judged);
  w.Key("explanation").String(n.explanation);
  w.Key("significance").Double(n.significance);
  w.Key("alternative").String(AlternativeName(n.alternative));
  if (n.judged) {
    w.Key("method").String(n.method);
    w.Key("beyond_noise").Bool(n.beyond_noise);
    w.Key("u_before").Double(n.test.u_before);
    w.Key("u_after").Double(n.test.u_after);
    w.Key("z").Double(n.test.z);
    w.Key("p_value").Double(n.test.p_value);
    w.Key("smallest_p_value").Double(n.test.smallest_p_value);
    w.Key("exact").Bool(n.test.exact);
    w.Key("effect").String(n.effect);
    const ShiftEstimate& shift = n.shift_ns;
    w.Key("shift_ns").BeginObject();
    w.Key("estimate").Double(shift.estimate);
    w.Key("alternative").String(AlternativeName(shift.alternative));
    w.Key("low").DoubleOrNull(shift.low.has_value(), shift.low.value_or(0));
    w.Key("high").DoubleOrNull(shift.high.has_value(), shift.high.value_or(0));
    w.Key("confidence").Double(shift.confidence);
    w.Key("coverage").Double(shift.coverage);
    w.Key("order").Uint(shift.order);
    w.Key("exact").Bool(shift.exact);
    w.EndObject();
  } else {
    w.Key("beyond_noise").Null();
  }
  w.EndObject();
  w.EndObject();
}

void WriteGate(JsonWriter& w, const std::optional<SlowerGate>& gate) {
  w.Key("gate");
  if (!gate) {
    w.Null();
    return;
  }
  w.BeginObject();
  w.Key("threshold_percent").Double(gate->threshold_percent);
  w.Key("outcome").String(GateOutcomeName(gate->outcome));
  w.Key("explanation").String(gate->explanation);
  w.EndObject();
}

void WriteIdle(JsonWriter& w, const IdleComparison& idle) {
  w.Key("idle").BeginObject();
  WriteChange(w, "idle_per_unit_ns", idle.idle_per_unit_ns);
  WriteChange(w, "host_wait_per_unit_ns", idle.host_wait_per_unit_ns);
  WriteChange(w, "idle_share", idle.idle_share);
  w.Key("by_cause").BeginObject();
  for (const IdleCauseChange& k : idle.causes) {
    WriteChange(w, k.name.c_str(), k.per_unit_ns);
  }
  w.EndObject();
  w.Key("largest").BeginArray();
  for (int i : idle.largest) {
    w.String(idle.causes[static_cast<size_t>(i)].name);
  }
  w.EndArray();
  w.EndObject();
}

void WriteVerdict(JsonWriter& w, const VerdictComparison& v) {
  w.Key("verdict").BeginObject();
  w.Key("before").BeginObject();
  w.Key("primary").String(VerdictClassName(v.before_primary));
  w.Key("runner_up").String(VerdictClassName(v.before_runner_up));
  w.Key("confidence").Double(v.confidence.before);
  w.Key("confidence_label").String(v.before_label);
  w.EndObject();
  w.Key("after").BeginObject();
  w.Key("primary").String(VerdictClassName(v.after_primary));
  w.Key("runner_up").String(VerdictClassName(v.after_runner_up));
  w.Key("confidence").Double(v.confidence.after);
  w.Key("confidence_label").String(v.after_label);
  w.EndObject();
  w.Key("changed").Bool(v.changed);
  if (v.named_cause_score) {
    WriteChange(w, "named_cause_score", *v.named_cause_score);
    w.Key("named_cause_shrank").Bool(*v.named_cause_shrank);
  } else {
    w.Key("named_cause_score").Null();
    w.Key("named_cause_shrank").Null();
  }
  w.EndObject();
}

void WriteKernelList(JsonWriter& w, const char* key,
                     const std::vector<KernelChange>& list) {
  w.Key(key).BeginArray();
  for (const KernelChange& k : list) {
    w.BeginObject();
    w.Key("name").String(k.name);
    w.Key("presence").String(PresenceName(k.presence));
    WriteChange(w, "count_per_unit", k.count_per_unit);
    WriteChange(w, "time_per_unit_ns", k.time_per_unit_ns);
    w.EndObject();
  }
  w.EndArray();
}

void WriteSyncList(JsonWriter& w, const char* key,
                   const std::vector<SyncPointChange>& list) {
  w.Key(key).BeginArray();
  for (const SyncPointChange& s : list) {
    w.BeginObject();
    w.Key("api").String(s.api);
    w.Key("kind").String(s.kind);
    w.Key("reason").String(s.reason);
    w.Key("call_site").String(s.call_site);
    w.Key("presence").String(PresenceName(s.presence));
    if (s.presence == Presence::kMoved) {
      w.Key("moved_from").String(s.moved_from);
    }
    WriteChange(w, "count_per_unit", s.count_per_unit);
    WriteChange(w, "blocked_per_unit_ns", s.blocked_per_unit_ns);
    WriteChange(w, "idle_after_per_unit_ns", s.idle_after_per_unit_ns);
    w.EndObject();
  }
  w.EndArray();
}

void WriteCodeLocationList(JsonWriter& w, const char* key,
                           const std::vector<CodeLocationChange>& list) {
  w.Key(key).BeginArray();
  for (const CodeLocationChange& row : list) {
    w.BeginObject();
    w.Key("location").String(row.location);
    w.Key("presence").String(PresenceName(row.presence));
    if (row.presence == Presence::kMoved) {
      w.Key("moved_from").String(row.moved_from);
    }
    WriteChange(w, "per_unit_ns", row.per_unit_ns);
    w.EndObject();
  }
  w.EndArray();
}

// Null when neither run says where its code was.
void WriteCodeComparison(JsonWriter& w, const CodeComparison& c) {
  if (!c.available) {
    w.Null();
    return;
  }
  w.BeginObject();
  WriteCodeLocationList(w, "idle", c.idle);
  WriteCodeLocationList(w, "launching_lines", c.launching_lines);
  w.EndObject();
}

// A string that may be absent (no call site, no reason): null.
void StringOrNull(JsonWriter& w, const char* key, const std::string& v) {
  w.Key(key);
  if (v.empty()) {
    w.Null();
  } else {
    w.String(v);
  }
}

void WriteWhatIf(JsonWriter& w, const WhatIfCheck& k) {
  w.Key("what_if").BeginObject();
  w.Key("available").Bool(k.available);
  StringOrNull(w, "unavailable_reason",
               k.available ? std::string() : k.unavailable_reason);
  StringOrNull(w, "basis", WhatIfBasisName(k.basis));
  w.Key("measured_comparable").Bool(k.measured_comparable);
  w.Key("measured_change")
      .DoubleOrNull(k.measured_comparable, k.measured_change);
  StringOrNull(w, "not_comparable_reason", k.not_comparable_reason);
  w.Key("scenarios").BeginArray();
  for (const ScenarioCheck& s : k.scenarios) {
    w.BeginObject();
    w.Key("id").String(WhatIfScenarioName(s.scenario));
    w.Key("title").String(s.title);
    StringOrNull(w, "sync_api", s.sync_api);
    StringOrNull(w, "sync_reason", s.sync_reason);
    StringOrNull(w, "sync_call_site", s.sync_call_site);
    w.Key("edits").Uint(s.edits);
    w.Key("predicted_median_ns").Int(s.predicted_median_ns);
    w.Key("predicted_change").Double(s.predicted_change);
    w.Key("measured_change")
        .DoubleOrNull(k.measured_comparable, k.measured_change);
    w.Key("matches_largest_fall").Bool(s.matches_largest_fall);
    w.EndObject();
  }
  w.EndArray();
  w.Key("min_fall_per_unit_ns").Double(k.min_fall_per_unit_ns);
  w.Key("largest_fall_counts").Bool(k.has_largest_fall);
  w.Key("falls").BeginArray();
  for (const CauseFall& f : k.falls) {
    w.BeginObject();
    w.Key("scenario").String(WhatIfScenarioName(f.scenario));
    StringOrNull(w, "sync_api", f.sync_api);
    StringOrNull(w, "sync_reason", f.sync_reason);
    StringOrNull(w, "sync_call_site", f.sync_call_site);
    w.Key("cause").String(f.cause);
    w.Key("fall_per_unit_ns").Double(f.fall_per_unit_ns);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

}  // namespace

std::string WriteJsonDiff(const Comparison& c) {
  JsonWriter w(JsonWriter::Style::kPretty);
  w.BeginObject();
  w.Key("schema").String(Comparison::kSchema);
  WriteSide(w, "before", c.before);
  WriteSide(w, "after", c.after);
  w.Key("unit").String(c.unit);
  w.Key("headline").String(c.headline);
  w.Key("comparable").Bool(c.comparable);
  WriteStepTime(w, c.step_time);
  WriteGate(w, c.gate);
  WriteIdle(w, c.idle);
  WriteVerdict(w, c.verdict);
  WriteWhatIf(w, c.what_if);

  w.Key("launch").BeginObject();
  WriteChange(w, "launches_per_unit", c.launch.launches_per_unit);
  WriteChange(w, "kernels_per_unit", c.launch.kernels_per_unit);
  WriteChange(w, "median_launch_api_ns", c.launch.median_launch_api_ns);
  WriteChange(w, "median_kernel_ns", c.launch.median_kernel_ns);
  WriteChange(w, "launch_overhead_share", c.launch.launch_overhead_share);
  w.EndObject();

  w.Key("kernels").BeginObject();
  w.Key("names_before").Uint(c.kernels.names_before);
  w.Key("names_after").Uint(c.kernels.names_after);
  WriteKernelList(w, "gains", c.kernels.gains);
  WriteKernelList(w, "losses", c.kernels.losses);
  WriteKernelList(w, "new", c.kernels.added);
  WriteKernelList(w, "vanished", c.kernels.vanished);
  WriteKernelList(w, "all", c.kernels.kernels);
  w.EndObject();

  w.Key("copies").BeginObject();
  WriteChange(w, "count_per_unit", c.copies.count_per_unit);
  WriteChange(w, "bytes_per_unit", c.copies.bytes_per_unit);
  WriteChange(w, "time_per_unit_ns", c.copies.time_per_unit_ns);
  w.Key("directions").BeginArray();
  for (const CopyDirectionChange& d : c.copies.directions) {
    w.BeginObject();
    w.Key("direction").String(CopyDirectionName(d.direction));
    w.Key("presence").String(PresenceName(d.presence));
    WriteChange(w, "count_per_unit", d.count_per_unit);
    WriteChange(w, "bytes_per_unit", d.bytes_per_unit);
    WriteChange(w, "time_per_unit_ns", d.time_per_unit_ns);
    WriteChange(w, "achieved_gbps", d.achieved_gbps);
    WriteChange(w, "pageable_share", d.pageable_share);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();

  w.Key("sync_points").BeginObject();
  WriteChange(w, "blocked_per_unit_ns", c.syncs.blocked_per_unit_ns);
  WriteSyncList(w, "points", c.syncs.points);
  WriteSyncList(w, "new", c.syncs.added);
  WriteSyncList(w, "vanished", c.syncs.vanished);
  WriteSyncList(w, "moved", c.syncs.moved);
  w.EndObject();

  w.Key("code");
  WriteCodeComparison(w, c.code);

  w.Key("host").BeginObject();
  w.Key("samples_before").Bool(c.host.samples_before);
  w.Key("samples_after").Bool(c.host.samples_after);
  WriteChange(w, "launching_threads_cpu_per_unit_ns",
              c.host.launching_threads_cpu_per_unit_ns);
  WriteChange(w, "other_threads_cpu_per_unit_ns",
              c.host.other_threads_cpu_per_unit_ns);
  WriteChange(w, "workers_cpu_per_unit_ns", c.host.workers_cpu_per_unit_ns);
  WriteChange(w, "cuda_api_per_unit_ns", c.host.cuda_api_per_unit_ns);
  WriteChange(w, "sync_blocked_per_unit_ns", c.host.sync_blocked_per_unit_ns);
  w.EndObject();

  w.Key("devices").BeginArray();
  for (const DeviceChange& d : c.devices) {
    w.BeginObject();
    w.Key("rank").Int(d.rank);
    w.Key("index").Int(d.device);
    w.Key("before_name").String(d.before_name);
    w.Key("after_name").String(d.after_name);
    w.Key("presence").String(PresenceName(d.presence));
    WriteChange(w, "busy_share", d.busy_share);
    WriteChange(w, "idle_per_unit_ns", d.idle_per_unit_ns);
    WriteChange(w, "kernels_per_unit", d.kernels_per_unit);
    w.EndObject();
  }
  w.EndArray();

  w.Key("ranks").BeginArray();
  for (const RankChange& r : c.ranks) {
    w.BeginObject();
    w.Key("rank").IntOrNull(r.rank >= 0, r.rank);
    w.Key("presence").String(PresenceName(r.presence));
    WriteChange(w, "median_step_ns", r.median_step_ns);
    WriteChange(w, "idle_share", r.idle_share);
    WriteChange(w, "sync_blocked_ns", r.sync_blocked_ns);
    WriteChange(w, "collective_wait_ns", r.collective_wait_ns);
    w.Key("straggler_before").Bool(r.straggler_before);
    w.Key("straggler_after").Bool(r.straggler_after);
    w.EndObject();
  }
  w.EndArray();
  w.Key("straggler");
  if (!c.straggler.available) {
    w.Null();
  } else {
    w.BeginObject();
    w.Key("presence").String(PresenceName(c.straggler.presence));
    w.Key("before_ranks").BeginArray();
    for (int32_t rank : c.straggler.before_ranks) w.Int(rank);
    w.EndArray();
    w.Key("after_ranks").BeginArray();
    for (int32_t rank : c.straggler.after_ranks) w.Int(rank);
    w.EndArray();
    WriteChange(w, "wait_ns", c.straggler.wait_ns);
    w.EndObject();
  }

  w.Key("platform").BeginArray();
  for (const PlatformDifference& p : c.platform) {
    w.BeginObject();
    w.Key("what").String(p.what);
    w.Key("before").String(p.before);
    w.Key("after").String(p.after);
    w.Key("hardware").Bool(p.hardware);
    w.EndObject();
  }
  w.EndArray();

  w.Key("warnings").BeginArray();
  for (const std::string& s : c.warnings) w.String(s);
  w.EndArray();
  w.EndObject();
  std::string out = w.str();
  out.push_back('\n');
  return out;
}

}  // namespace feedprof
