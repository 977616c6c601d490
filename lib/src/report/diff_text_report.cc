// The text rendering of a comparison: a one-screen summary (headline, step
// time with its noise verdict, the size of the change and the
// --fail-if-slower gate, the verdict change, BEFORE's what-if
// predictions against the measured change, the three largest idle cause
// changes, new and vanished sync points and kernels, warnings), then the
// details section by section. Every number comes from the comparison
// model as it is.
#include <algorithm>
#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/units.h"
#include "feedprof/diff_report.h"
#include "report/what_if_wording.h"

namespace feedprof {
namespace {

using common::FormatBytes;
using common::FormatDuration;
using common::FormatPercent;
using common::ShortKernelName;

void Line(std::string* out, std::string_view text) {
  out->append(text);
  out->push_back('\n');
}

std::string Duration(double ns) {
  return common::FormatDuration(static_cast<TimeNs>(std::llround(ns)));
}
std::string Count(double v) { return absl::StrFormat("%.4g", v); }
std::string Bytes(double v) {
  const std::string size =
      common::FormatBytes(static_cast<uint64_t>(std::llround(std::abs(v))));
  return v < 0 ? "-" + size : size;
}
std::string Share(double v) { return common::FormatPercent(v); }
std::string Gbps(double v) { return absl::StrFormat("%.3g GB/s", v); }

std::string Relative(const Change& c) {
  return c.relative ? absl::StrFormat("%+.1f%%", *c.relative * 100)
                    : std::string("new");
}

// "41 ms -> 3 ms (-38 ms, -92.7%)"
template <typename Format>
std::string Pair(const Change& c, Format format) {
  if (c.delta == 0) return absl::StrCat(format(c.before), " (unchanged)");
  const std::string sign = c.delta > 0 ? "+" : "";
  return absl::StrCat(format(c.before), " -> ", format(c.after), " (", sign,
                      format(c.delta), ", ", Relative(c), ")");
}
// Shares change by points, not by a relative amount.
std::string SharePair(const Change& c) {
  return absl::StrFormat("%s -> %s (%+.1f points)", Share(c.before),
                         Share(c.after), c.delta * 100);
}

// "Waited for: rank 7 -> rank 3 (moved); the ranks' wait at collectives
// 96 ms -> 12 ms".
std::string StragglerLine(const StragglerChange& s) {
  const auto named = [](const std::vector<int32_t>& ranks) {
    if (ranks.empty()) return std::string("none");
    return absl::StrCat(ranks.size() == 1 ? "rank " : "ranks ",
                        absl::StrJoin(ranks, ", "));
  };
  return absl::StrCat(
      "  waited for: ", named(s.before_ranks), " -> ", named(s.after_ranks),
      " (",
      s.presence == Presence::kBoth ? "the same" : PresenceName(s.presence),
      "); the ranks' wait at collectives ", Pair(s.wait_ns, Duration));
}

std::string SideLine(const RunSide& s, const std::string& unit) {
  std::string steps =
      unit == "step"
          ? absl::StrCat(s.steps, " steps")
          : absl::StrCat("window ", common::FormatDuration(s.window_ns));
  return absl::StrCat(s.source_path, " (", SourceFormatName(s.source_format),
                      ", ", s.events, " events, ", steps, ")");
}

std::string SyncName(const SyncPointChange& s) {
  return absl::StrCat(
      s.api, " (", s.reason, ")",
      s.call_site.empty() ? "" : " at " + s.call_site,
      s.moved_from.empty() ? "" : " (moved from " + s.moved_from + ")");
}

// A code location's row: "location [presence]: before -> after".
std::string CodeLocationLine(const CodeLocationChange& row) {
  return absl::StrCat("  ", row.location, " [", PresenceName(row.presence), "]",
                      row.moved_from.empty() ? "" : " from " + row.moved_from,
                      ": ", Pair(row.per_unit_ns, Duration));
}

void CodeLines(const Comparison& c, const std::string& per, size_t rows,
               std::string* out) {
  if (!c.code.available) return;
  const auto section = [&](const std::vector<CodeLocationChange>& list,
                           const std::string& title) {
    if (list.empty()) return;
    Line(out, "");
    Line(out, title);
    for (size_t i = 0; i < list.size() && i < rows; ++i) {
      Line(out, CodeLocationLine(list[i]));
    }
  };
  section(c.code.idle, absl::StrCat("GPU idle by code location", per,
                                    " (each run's top ten):"));
  section(c.code.launching_lines,
          absl::StrCat("Launching threads' time by line of the user's code",
                       per, " (each run's top ten):"));
}

void StepLines(const Comparison& c, std::string* out) {
  const StepTimeComparison& s = c.step_time;
  if (s.available) {
    Line(out,
         absl::StrCat("Step time (median): ", Pair(s.median_ns, Duration)));
    Line(out, absl::StrCat("  p10 ", Pair(s.p10_ns, Duration)));
    Line(out, absl::StrCat("  p90 ", Pair(s.p90_ns, Duration)));
    Line(out, absl::StrCat("  mean ", Pair(s.mean_ns, Duration)));
  } else {
    Line(out, "Step time: not available (the runs do not both have steps)");
  }
  Line(out, absl::StrCat("  noise: ", s.noise.explanation));
  if (s.noise.judged) Line(out, absl::StrCat("  change: ", s.noise.effect));
  if (c.gate) {
    Line(out, absl::StrFormat("  gate (--fail-if-slower %g): %s: %s",
                              c.gate->threshold_percent,
                              GateOutcomeName(c.gate->outcome),
                              c.gate->explanation));
  }
  Line(out, absl::StrCat("GPU busy: ", SharePair(s.gpu_busy_share)));
  Line(out, absl::StrCat("Analysed window: ", Pair(s.span_ns, Duration)));
}

void VerdictLines(const VerdictComparison& v, std::string* out) {
  auto runner = [](const std::optional<VerdictClass>& r) {
    return r ? VerdictClassName(*r) : "none";
  };
  Line(out,
       absl::StrFormat("Verdict: %s (%s, %.2f) -> %s (%s, %.2f)%s",
                       VerdictClassName(v.before_primary), v.before_label,
                       v.confidence.before, VerdictClassName(v.after_primary),
                       v.after_label, v.confidence.after,
                       v.changed ? "" : ", unchanged"));
  Line(out, absl::StrCat("  runner-up: ", runner(v.before_runner_up), " -> ",
                         runner(v.after_runner_up)));
  if (v.named_cause_score) {
    Line(out,
         absl::StrCat("  ", VerdictClassName(v.before_primary), " explains ",
                      SharePair(*v.named_cause_score), " of the span: ",
                      *v.named_cause_shrank ? "shrank" : "did not shrink"));
  }
}

// "predicted -31.0%, measured -28.4%" per BEFORE scenario; the one that
// stands for the cause that fell most is marked.
void WhatIfLines(const Comparison& c, std::string* out) {
  const WhatIfCheck& w = c.what_if;
  if (!w.available) {
    if (!w.unavailable_reason.empty()) {
      Line(out, "");
      Line(out, absl::StrCat("What-if: not available for BEFORE (",
                             w.unavailable_reason, ")"));
    }
    return;
  }
  Line(out, "");
  Line(out, absl::StrCat("What-if: BEFORE's predictions (",
                         report::kWhatIfEstimateNote, ") against the measured ",
                         w.measured_comparable
                             ? "median step time:"
                             : absl::StrCat("change: measured not comparable (",
                                            w.not_comparable_reason, ")")));
  for (const ScenarioCheck& k : w.scenarios) {
    std::string line =
        absl::StrCat("  ", k.matches_largest_fall ? "* " : "- ",
                     report::WhatIfScenarioLabel(k.scenario, k.title,
                                                 k.sync_api, k.sync_call_site),
                     ": predicted ", report::SignedPercent(k.predicted_change));
    if (w.measured_comparable) {
      absl::StrAppend(&line, ", measured ",
                      report::SignedPercent(w.measured_change));
    }
    Line(out, line);
  }
  if (w.has_largest_fall) {
    const CauseFall& top = w.falls.front();
    bool matched = false;
    for (const ScenarioCheck& k : w.scenarios)
      matched |= k.matches_largest_fall;
    Line(out, absl::StrCat("  ", matched ? "* " : "",
                           "the cause that fell most: ", top.cause, ", ",
                           Duration(top.fall_per_unit_ns), " less per ", c.unit,
                           matched ? ""
                                   : " (BEFORE's what-if has no scenario "
                                     "for it)"));
  } else {
    Line(out, absl::StrCat("  no cause a scenario edits fell by 1% of a ",
                           c.unit, " or more"));
  }
}

void Summary(const Comparison& c, std::string* out) {
  Line(out, absl::StrCat("feedprof diff (", Comparison::kSchema, ")"));
  Line(out, absl::StrCat("  before: ", SideLine(c.before, c.unit)));
  Line(out, absl::StrCat("  after:  ", SideLine(c.after, c.unit)));
  Line(out, absl::StrCat("  figures per ", c.unit,
                         c.unit == "step" ? "" : " of the analysed window"));
  Line(out, "");
  Line(out, c.headline);
  Line(out, "");
  StepLines(c, out);
  VerdictLines(c.verdict, out);
  WhatIfLines(c, out);
  Line(out, "");
  Line(out, absl::StrCat("Largest idle changes (per ", c.unit, "):"));
  for (size_t i = 0; i < c.idle.largest.size() && i < 3; ++i) {
    const IdleCauseChange& k =
        c.idle.causes[static_cast<size_t>(c.idle.largest[i])];
    Line(out,
         absl::StrCat("  - ", k.name, ": ", Pair(k.per_unit_ns, Duration)));
  }
  auto syncs = [out, &c](const std::vector<SyncPointChange>& list,
                         const char* title) {
    if (list.empty()) return;
    Line(out, title);
    for (size_t i = 0; i < list.size() && i < 5; ++i) {
      const SyncPointChange& s = list[i];
      const double count = s.presence == Presence::kNew
                               ? s.count_per_unit.after
                               : s.count_per_unit.before;
      const double blocked = s.presence == Presence::kNew
                                 ? s.blocked_per_unit_ns.after
                                 : s.blocked_per_unit_ns.before;
      Line(out, absl::StrCat("  - ", SyncName(s), ": ", Count(count),
                             " calls, blocked ", Duration(blocked), " per ",
                             c.unit));
    }
  };
  syncs(c.syncs.added, "New sync points:");
  syncs(c.syncs.vanished, "Vanished sync points:");
  syncs(c.syncs.moved, "Moved sync points:");
  auto kernels = [out, &c](const std::vector<KernelChange>& list,
                           const char* title) {
    if (list.empty()) return;
    Line(out, absl::StrCat(title, " (", list.size(), "):"));
    for (size_t i = 0; i < list.size() && i < 5; ++i) {
      const KernelChange& k = list[i];
      const double t = k.presence == Presence::kNew ? k.time_per_unit_ns.after
                                                    : k.time_per_unit_ns.before;
      Line(out, absl::StrCat("  - ", common::ShortKernelName(k.name, 70), ": ",
                             Duration(t), " per ", c.unit));
    }
  };
  kernels(c.kernels.added, "New kernels");
  kernels(c.kernels.vanished, "Vanished kernels");
  if (!c.warnings.empty()) {
    Line(out, "");
    Line(out, "Warnings:");
    for (const std::string& w : c.warnings) Line(out, absl::StrCat("  - ", w));
  }
}

void Details(const Comparison& c, const DiffTextOptions& options,
             std::string* out) {
  const auto rows = static_cast<size_t>(std::max(0, options.max_rows));
  const std::string per = absl::StrCat(" per ", c.unit);
  Line(out, "");
  Line(out, "== Details ==");
  Line(out, "");
  Line(out, absl::StrCat("Idle by cause", per, ":"));
  Line(out, absl::StrCat("  total: ", Pair(c.idle.idle_per_unit_ns, Duration)));
  Line(out, absl::StrCat("  host wait: ",
                         Pair(c.idle.host_wait_per_unit_ns, Duration)));
  Line(out, absl::StrCat("  idle share: ", SharePair(c.idle.idle_share)));
  for (const IdleCauseChange& k : c.idle.causes) {
    Line(out, absl::StrCat("  ", k.name, ": ", Pair(k.per_unit_ns, Duration)));
  }
  Line(out, "");
  Line(out, "Launches:");
  Line(out, absl::StrCat("  launch calls", per, ": ",
                         Pair(c.launch.launches_per_unit, Count)));
  Line(out, absl::StrCat("  kernels", per, ": ",
                         Pair(c.launch.kernels_per_unit, Count)));
  Line(out, absl::StrCat("  median launch call: ",
                         Pair(c.launch.median_launch_api_ns, Duration)));
  Line(out, absl::StrCat("  median kernel: ",
                         Pair(c.launch.median_kernel_ns, Duration)));
  Line(out, absl::StrCat("  launch-overhead share: ",
                         SharePair(c.launch.launch_overhead_share)));
  Line(out, "");
  Line(out, absl::StrCat("Kernels (GPU time", per, "; ", c.kernels.names_before,
                         " -> ", c.kernels.names_after, " names):"));
  auto kernel_rows = [&](const std::vector<KernelChange>& list,
                         const char* title) {
    if (list.empty()) return;
    Line(out, absl::StrCat("  ", title, ":"));
    for (size_t i = 0; i < list.size() && i < rows; ++i) {
      const KernelChange& k = list[i];
      Line(out, absl::StrCat("    ", common::ShortKernelName(k.name, 70), ": ",
                             Pair(k.time_per_unit_ns, Duration), "; launches ",
                             Pair(k.count_per_unit, Count)));
    }
  };
  kernel_rows(c.kernels.gains, "most time added");
  kernel_rows(c.kernels.losses, "most time removed");
  kernel_rows(c.kernels.added, "new");
  kernel_rows(c.kernels.vanished, "vanished");
  Line(out, "");
  Line(out, absl::StrCat("Copies", per, ":"));
  Line(out, absl::StrCat("  count ", Pair(c.copies.count_per_unit, Count),
                         "; bytes ", Pair(c.copies.bytes_per_unit, Bytes),
                         "; time ", Pair(c.copies.time_per_unit_ns, Duration)));
  for (const CopyDirectionChange& d : c.copies.directions) {
    Line(out, absl::StrCat("  ", CopyDirectionName(d.direction), " (",
                           PresenceName(d.presence), "): bytes ",
                           Pair(d.bytes_per_unit, Bytes), "; time ",
                           Pair(d.time_per_unit_ns, Duration)));
    Line(out, absl::StrCat("    bandwidth ", Pair(d.achieved_gbps, Gbps),
                           "; pageable ", SharePair(d.pageable_share)));
  }
  Line(out, "");
  Line(out, absl::StrCat("Sync points", per, " (blocked ",
                         Pair(c.syncs.blocked_per_unit_ns, Duration), "):"));
  for (size_t i = 0; i < c.syncs.points.size() && i < rows; ++i) {
    const SyncPointChange& s = c.syncs.points[i];
    Line(out,
         absl::StrCat("  ", SyncName(s), " [", PresenceName(s.presence), "]"));
    Line(out,
         absl::StrCat("    calls ", Pair(s.count_per_unit, Count), "; blocked ",
                      Pair(s.blocked_per_unit_ns, Duration), "; idle after ",
                      Pair(s.idle_after_per_unit_ns, Duration)));
  }
  CodeLines(c, per, rows, out);
  if (c.what_if.available) {
    Line(out, "");
    Line(out, absl::StrCat("Causes the what-if scenarios edit, fall", per,
                           " (counts from ",
                           Duration(c.what_if.min_fall_per_unit_ns), "):"));
    for (const CauseFall& f : c.what_if.falls) {
      Line(out,
           absl::StrCat("  ", WhatIfScenarioName(f.scenario), ": ", f.cause,
                        f.fall_per_unit_ns >= 0 ? " fell " : " grew ",
                        Duration(std::abs(f.fall_per_unit_ns))));
    }
  }
  Line(out, "");
  Line(out, absl::StrCat("Host", per, ":"));
  auto cpu = [&](const Change& ch) {
    return c.host.samples_before && c.host.samples_after
               ? Pair(ch, Duration)
               : std::string("not available (no CPU samples in both runs)");
  };
  Line(out, absl::StrCat("  launching threads CPU: ",
                         cpu(c.host.launching_threads_cpu_per_unit_ns)));
  Line(out, absl::StrCat("  other threads CPU: ",
                         cpu(c.host.other_threads_cpu_per_unit_ns)));
  Line(out, absl::StrCat("  worker processes CPU: ",
                         cpu(c.host.workers_cpu_per_unit_ns)));
  Line(out, absl::StrCat("  in CUDA calls: ",
                         Pair(c.host.cuda_api_per_unit_ns, Duration)));
  Line(out, absl::StrCat("  blocked in syncs: ",
                         Pair(c.host.sync_blocked_per_unit_ns, Duration)));
  if (!c.devices.empty()) {
    Line(out, "");
    Line(out, "Devices (matched by position):");
    for (const DeviceChange& d : c.devices) {
      Line(out,
           absl::StrCat(
               "  ", d.rank >= 0 ? absl::StrCat("rank ", d.rank, " ") : "", "#",
               d.device, " ", d.before_name, " -> ", d.after_name, " [",
               PresenceName(d.presence), "]: busy ", SharePair(d.busy_share),
               "; idle", per, " ", Pair(d.idle_per_unit_ns, Duration)));
    }
  }
  if (!c.ranks.empty()) {
    Line(out, "");
    Line(out, "Ranks:");
    for (const RankChange& r : c.ranks) {
      Line(out,
           absl::StrCat(
               "  ",
               r.rank >= 0 ? absl::StrCat("rank ", r.rank)
                           : std::string("process"),
               " [", PresenceName(r.presence), "]: median step ",
               Pair(r.median_step_ns, Duration), "; idle ",
               SharePair(r.idle_share), "; sync blocked ",
               Pair(r.sync_blocked_ns, Duration),
               r.collective_wait_ns.before > 0 || r.collective_wait_ns.after > 0
                   ? "; waited in collectives " +
                         Pair(r.collective_wait_ns, Duration)
                   : "",
               r.straggler_before || r.straggler_after
                   ? absl::StrCat(
                         "  (waited for: ", r.straggler_before ? "before" : "",
                         r.straggler_before && r.straggler_after ? " and " : "",
                         r.straggler_after ? "after" : "", ")")
                   : ""));
    }
  }
  if (c.straggler.available) {
    Line(out, StragglerLine(c.straggler));
  }
  Line(out, "");
  if (c.platform.empty()) {
    Line(out, "Platform: no difference the traces show");
  } else {
    Line(out, "Platform differences:");
    for (const PlatformDifference& p : c.platform) {
      Line(out, absl::StrCat("  ", p.what, ": ", p.before, " -> ", p.after,
                             p.hardware ? " (hardware)" : ""));
    }
  }
}

}  // namespace

std::string WriteTextDiff(const Comparison& comparison,
                          const DiffTextOptions& options) {
  std::string out;
  Summary(comparison, &out);
  if (options.details) Details(comparison, options, &out);
  return out;
}

}  // namespace feedprof
