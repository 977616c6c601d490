// The text report: a one-screen summary (verdict, evidence, top findings,
// next steps), the what-if table when asked for, then details per device,
// launches, sync points, copies, host threads, steps and ranks.
//
// The summary is what a user reads first on a terminal, so it fits in about
// 30 lines; the details carry the numbers behind every sentence.
#include <algorithm>
#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/rounded_units.h"
#include "common/units.h"
#include "feedprof/report.h"
#include "report/platform_block.h"
#include "report/what_if_wording.h"

namespace feedprof {
namespace {

using common::Counted;
using common::FormatBytes;
using common::FormatDuration;
using common::FormatPercent;
using common::ShortKernelName;

constexpr const char* kNotAvailable = "not available";

void Line(std::string* out, std::string_view text) {
  out->append(text);
  out->push_back('\n');
}

// How the input was read: each role's read calls, the disks and network
// file systems under the data.
void IoText(const IoReport& io, std::string* out) {
  if (!io.available) {
    Line(out, absl::StrCat("I/O: ", kNotAvailable, " (", io.unavailable_reason,
                           ")"));
    return;
  }
  Line(out, absl::StrCat("I/O (read calls from /proc/PID/io; pattern ",
                         IoPatternName(io.pattern), "):"));
  if (io.includes_profiler_io) {
    Line(out,
         "  (recorded before feedprof counted its own calls: the figures "
         "include its sampler's /proc reads and its trace writes)");
  }
  for (const RoleIo& role : io.roles) {
    std::string line =
        absl::StrFormat("  %-7s %s: reads %s (%s/s", IoRoleName(role.role),
                        common::Counted(role.processes, "process", "processes"),
                        common::FormatCount(role.reads),
                        common::FormatRoundedCount(role.reads_per_s));
    if (role.reads_per_step) {
      absl::StrAppend(
          &line, ", ", common::FormatRoundedCount(*role.reads_per_step),
          " and ",
          common::FormatRoundedBytes(role.read_bytes_per_step.value_or(0)),
          " a step");
    }
    absl::StrAppend(
        &line, "), ", common::FormatRoundedBytes(role.mean_read_bytes),
        " on average, from storage ", common::FormatPercent(role.storage_share),
        role.mapped_reads ? " (and more through memory maps)" : "", "; writes ",
        common::FormatCount(role.writes), " (",
        common::FormatBytes(role.write_chars), ")");
    Line(out, line);
  }
  for (const DiskIo& d : io.disks) {
    Line(
        out,
        absl::StrCat(
            "  disk ", d.device,
            d.mount_point.empty() ? "" : absl::StrCat(" (", d.mount_point, ")"),
            ": ", common::FormatRoundedCount(d.reads_per_s), " reads/s of ",
            common::FormatRoundedBytes(d.mean_read_bytes), ", r_await ",
            d.read_await_ms ? absl::StrFormat("%.2f ms", *d.read_await_ms)
                            : std::string("-"),
            ", util ", common::FormatPercent(d.utilization), ", at most ",
            d.max_in_flight, " in flight (whole disk: every process's I/O)"));
  }
  if (io.disks.empty() && !io.disks_unavailable_reason.empty()) {
    Line(out, absl::StrCat("  disks: ", kNotAvailable, " (",
                           io.disks_unavailable_reason, ")"));
  }
  for (const NetworkFsIo& n : io.network_fs) {
    Line(out, absl::StrCat(
                  "  ", n.fs_type.empty() ? "nfs" : n.fs_type, " ",
                  n.source.empty() ? n.mount_point : n.source, " on ",
                  n.mount_point, ": ", common::FormatCount(n.ops), " RPCs, ",
                  common::FormatCount(n.retransmissions), " retransmitted, ",
                  common::FormatCount(n.major_timeouts), " timed out, RTT ",
                  n.mean_rtt_ms ? absl::StrFormat("%.2f ms", *n.mean_rtt_ms)
                                : std::string("-"),
                  ", READ ", common::FormatCount(n.read_ops), " (",
                  common::FormatBytes(n.read_bytes), ")"));
  }
}

// "pid/tid name: CUDA …, sync …, cpu …" for one thread.
std::string ThreadLine(const ThreadReport& t) {
  const std::string cpu =
      t.samples
          ? absl::StrCat("cpu ", common::FormatPercent(t.cpu_share), " (user ",
                         common::FormatDuration(t.cpu_user_ns), ", sys ",
                         common::FormatDuration(t.cpu_system_ns), "), running ",
                         common::FormatPercent(t.running_share), ", D-state ",
                         common::FormatPercent(t.disk_wait_share))
          : absl::StrCat("cpu ", kNotAvailable);
  return absl::StrCat("  ", t.pid, "/", t.tid,
                      t.name.empty() ? "" : " " + t.name, ": CUDA ",
                      common::FormatDuration(t.cuda_api_ns), ", sync ",
                      common::FormatDuration(t.sync_blocked_ns), ", ", cpu);
}

void Summary(const Report& r, std::string* out) {
  Line(out, r.rank_digests > 0
                ? absl::StrCat("feedprof analysis of ", r.source_path, " (",
                               r.rank_digests, " rank digest",
                               r.rank_digests == 1 ? "" : "s", " of ",
                               SourceFormatName(r.source_format), " traces)")
                : absl::StrCat("feedprof analysis of ", r.source_path, " (",
                               SourceFormatName(r.source_format), ", ",
                               r.events, " events)"));
  if (r.window.restricted || r.rank_filter.has_value()) {
    std::string scope = absl::StrCat(
        "window ",
        common::FormatDuration(r.window.start - r.window.trace_start), " .. ",
        common::FormatDuration(r.window.end - r.window.trace_start),
        " from trace start");
    if (r.rank_filter) absl::StrAppend(&scope, ", rank ", *r.rank_filter);
    Line(out, scope);
  }
  Line(out, "");
  const Verdict& v = r.verdict;
  Line(out, absl::StrCat("Verdict: ", VerdictClassName(v.primary),
                         "  (confidence ", v.confidence_label, ", ",
                         absl::StrFormat("%.2f", v.confidence), ")",
                         v.basis == VerdictBasis::kLateRank
                             ? "  from the rank the others wait for"
                             : ""));
  if (v.runner_up) {
    Line(out, absl::StrCat("Runner-up: ", VerdictClassName(*v.runner_up)));
  }
  Line(out, "");
  Line(out, "Evidence:");
  for (const std::string& e : v.evidence) Line(out, absl::StrCat("  - ", e));

  // Top findings: the largest idle causes and the worst sync point.
  IdleByCause idle;
  TimeNs span = 0;
  for (const DeviceReport& d : r.devices) {
    span += d.span_ns;
    idle += d.idle_by_cause;
  }
  if (span > 0) {
    Line(out, "");
    Line(out, "Top findings:");
    std::vector<int> order(kIdleCauses);
    for (int c = 0; c < kIdleCauses; ++c) order[static_cast<size_t>(c)] = c;
    std::sort(order.begin(), order.end(), [&idle](int a, int b) {
      return idle.ns[static_cast<size_t>(a)] > idle.ns[static_cast<size_t>(b)];
    });
    for (size_t i = 0; i < 3; ++i) {
      const int cause = order[i];
      const TimeNs ns = idle.ns[static_cast<size_t>(cause)];
      if (ns <= 0) break;
      Line(out, absl::StrCat("  - idle ",
                             IdleCauseName(static_cast<IdleCause>(cause)), ": ",
                             common::FormatDuration(ns), " (",
                             common::FormatPercent(static_cast<double>(ns) /
                                                   static_cast<double>(span)),
                             " of GPU span)"));
    }
    if (const SyncPoint* top = TopHostSyncPoint(r.sync_points)) {
      const SyncPoint& p = *top;
      Line(out, absl::StrCat("  - sync point ", p.api, " (", p.reason,
                             "): ", common::Counted(p.count, "call"),
                             ", blocked ", common::FormatDuration(p.blocked_ns),
                             ", GPU idle after ",
                             common::FormatDuration(p.idle_after_ns)));
    }
    if (r.steps.available) {
      Line(out, absl::StrCat(
                    "  - ", common::Counted(r.steps.count, "step"), " (",
                    r.steps.source, "), median ",
                    common::FormatDuration(r.steps.median_ns), ", GPU busy ",
                    common::FormatPercent(r.steps.median_gpu_busy_share),
                    " of a step"));
    }
  }
  Line(out, "");
  Line(out, "Next steps:");
  for (const std::string& s : v.next_steps) Line(out, absl::StrCat("  - ", s));
  if (!r.warnings.empty()) {
    Line(out, "");
    Line(out, "Warnings:");
    for (const std::string& w : r.warnings) Line(out, absl::StrCat("  ! ", w));
  }
}

// `text` right-aligned in `width` columns (UTF-8 characters, not bytes:
// "µs" is one column wider than its two bytes print).
std::string PadLeft(const std::string& text, size_t width) {
  size_t columns = 0;
  for (char c : text) {
    columns += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  }
  return columns >= width ? text : std::string(width - columns, ' ') + text;
}

// Every what-if scenario in one row: predicted median, saving, edits;
// per-rank rows when several processes were replayed. The header says what
// the figures are (estimates), their basis, the self-check and the
// parameters as applied.
void WhatIfTable(const Report& r, std::string* out) {
  const WhatIf& w = r.what_if;
  Line(out, "");
  if (!w.available) {
    Line(out, absl::StrCat("What-if: not available (",
                           report::WhatIfUnavailableReason(w), ")"));
    return;
  }
  Line(out, absl::StrCat("What-if: what each change is worth (",
                         report::kWhatIfEstimateNote, ")"));
  const std::string mean =
      w.basis == WhatIfBasis::kSteps
          ? absl::StrCat(" (mean ", common::FormatDuration(w.observed_mean_ns),
                         ")")
          : std::string();
  Line(out,
       absl::StrCat("  basis: ", report::WhatIfBasis(w), "; observed ",
                    common::FormatDuration(w.observed_median_ns), mean,
                    ", replayed ", common::FormatDuration(w.replayed_median_ns),
                    ", self-check error ",
                    common::FormatPercent(w.self_check_error)));
  const std::vector<std::string> assumptions = report::WhatIfAssumptions(w);
  for (size_t i = 0; i < assumptions.size(); ++i) {
    Line(out,
         absl::StrCat(i == 0 ? "  assumes: " : "           ", assumptions[i]));
  }
  if (w.scenarios.empty()) {
    Line(out, "  no scenario applies to this run");
    return;
  }
  auto row = [out](const std::string& predicted, const std::string& saving,
                   const std::string& share, const std::string& edits,
                   const std::string& scenario) {
    Line(out, absl::StrCat("  ", PadLeft(predicted, 10), " ",
                           PadLeft(saving, 10), " ", PadLeft(share, 7), " ",
                           PadLeft(edits, 8), "  ", scenario));
  };
  row("predicted", "saving", "", "edits", "scenario");
  for (const WhatIfScenario& s : w.scenarios) {
    row(common::FormatDuration(s.predicted_median_ns),
        common::FormatDuration(s.saving_ns),
        common::FormatPercent(s.saving_share), absl::StrCat(s.edits),
        absl::StrCat(report::WhatIfScenarioLabel(s),
                     s.edits == 0 ? " (nothing to change)" : ""));
  }
  bool per_rank = false;
  for (const WhatIfScenario& s : w.scenarios) per_rank |= s.ranks.size() > 1;
  if (!per_rank) return;
  Line(out, w.coupled_ranks
                ? "  per process, replayed alone (the job's figure: each "
                  "one's prediction less its waits at collectives, the "
                  "slowest of those):"
                : "  per process (the run's figure is the slowest one's):");
  for (const WhatIfScenario& s : w.scenarios) {
    if (s.ranks.size() <= 1) continue;
    Line(out, absl::StrCat("    ", report::WhatIfScenarioLabel(s), ":"));
    for (const WhatIfRank& k : s.ranks) {
      Line(out,
           absl::StrCat(
               "      ",
               k.rank >= 0 ? absl::StrCat("rank ", k.rank, " (pid ", k.pid, ")")
                           : absl::StrCat("pid ", k.pid),
               ": ", common::FormatDuration(k.observed_median_ns), " -> ",
               common::FormatDuration(k.predicted_median_ns), " median, ",
               common::FormatDuration(k.observed_mean_ns), " -> ",
               common::FormatDuration(k.predicted_mean_ns), " mean",
               w.coupled_ranks
                   ? absl::StrCat(", waits ",
                                  common::FormatDuration(k.collective_wait_ns),
                                  " at collectives")
                   : ""));
    }
  }
}

// Medians of empty sets print "not available", never "0 ns".
std::string DurationOr(bool known, TimeNs ns) {
  return known ? common::FormatDuration(ns) : std::string(kNotAvailable);
}

std::string LaunchLine(const LaunchStats& l) {
  const uint64_t kernel_launches = l.count - l.graph_launches;
  std::string line = absl::StrCat(
      "Launches: ", l.count, " calls, ", l.kernels, " kernels; median call ",
      DurationOr(kernel_launches > 0, l.median_api_ns), ", median kernel ",
      DurationOr(l.kernels > 0, l.median_kernel_ns), ", shorter than launch ",
      common::FormatPercent(l.share_kernels_shorter_than_launch));
  if (l.graph_launches > 0) {
    absl::StrAppend(&line, "; ", l.graph_launches, " graph launches ran ",
                    l.graph_kernels, " kernels (median graph launch call ",
                    common::FormatDuration(l.median_graph_launch_api_ns), ")");
  }
  const bool delays = l.launch_delays > 0;
  absl::StrAppend(&line, "; launch delay median ",
                  DurationOr(delays, l.median_launch_delay_ns), ", p90 ",
                  DurationOr(delays, l.p90_launch_delay_ns));
  return line;
}

void Devices(const Report& r, std::string* out) {
  for (const DeviceReport& d : r.devices) {
    Line(out, "");
    Line(out, absl::StrCat("Device ", d.device, d.name.empty() ? "" : " (",
                           d.name, d.name.empty() ? "" : ")", ", pid ", d.pid));
    Line(out, absl::StrCat("  span ", common::FormatDuration(d.span_ns),
                           ", busy ", common::FormatDuration(d.busy_ns),
                           ", idle ", common::FormatDuration(d.idle_ns), " (",
                           common::FormatPercent(d.idle_share), ")"));
    Line(out,
         absl::StrCat("  compute ", common::FormatDuration(d.compute_ns),
                      ", memcpy ", common::FormatDuration(d.memcpy_ns),
                      " (exposed ", common::FormatDuration(d.exposed_memcpy_ns),
                      "), memset ", common::FormatDuration(d.memset_ns), "; ",
                      d.kernel_count, " kernels, ", d.memcpy_count, " copies, ",
                      d.memset_count, " memsets"));
    if (d.communication_kernel_count > 0) {
      Line(out, absl::StrCat("  of compute, communication ",
                             common::FormatDuration(d.communication_ns),
                             " (exposed ",
                             common::FormatDuration(d.exposed_communication_ns),
                             ", overlapped by other kernels ",
                             common::FormatDuration(d.communication_ns -
                                                    d.exposed_communication_ns),
                             "); ", d.communication_kernel_count,
                             " communication kernels (NCCL and the like)"));
    }
    if (d.excluded_ops.count > 0) {
      Line(out, absl::StrCat("  excluded ", d.excluded_ops.count,
                             " ops launched before recording began (",
                             common::FormatDuration(d.excluded_ops.busy_ns),
                             " busy); --include-pre-window keeps them"));
    }
    std::string hist = absl::StrCat("  gaps ", d.gaps.count, ":");
    for (int b = 0; b < kGapBuckets; ++b) {
      absl::StrAppend(&hist, " ", GapBucketLabel(b), "=",
                      d.gaps.histogram[static_cast<size_t>(b)]);
    }
    Line(out, hist);
    Line(out, "  idle by cause:");
    for (int c = 0; c < kIdleCauses; ++c) {
      const TimeNs ns = d.idle_by_cause.ns[static_cast<size_t>(c)];
      if (ns == 0) continue;
      Line(out,
           absl::StrFormat(
               "    %-24s %12s  %6s", IdleCauseName(static_cast<IdleCause>(c)),
               common::FormatDuration(ns),
               common::FormatPercent(d.span_ns > 0
                                         ? static_cast<double>(ns) /
                                               static_cast<double>(d.span_ns)
                                         : 0)));
    }
    Line(out, absl::StrCat("  launch-overhead share ",
                           common::FormatPercent(d.launch_overhead_share)));
    Line(out, "  per stream (HTA idle breakdown):");
    Line(out, absl::StrFormat("    %8s %10s %10s %11s %10s", "stream", "busy",
                              "host_wait", "kernel_wait", "other"));
    for (const StreamIdle& s : d.streams) {
      Line(out, absl::StrFormat("    %8d %10s %10s %11s %10s", s.stream,
                                common::FormatDuration(s.busy_ns),
                                common::FormatDuration(s.host_wait_ns),
                                common::FormatDuration(s.kernel_wait_ns),
                                common::FormatDuration(s.other_ns)));
    }
  }
}

// Where the launching threads were while the GPU waited for them.
void IdleByCodeLines(const Report& r, const TextReportOptions& o,
                     std::string* out) {
  const IdleByCode& c = r.idle_by_code;
  if (!c.available || c.host_wait_ns <= 0) return;
  Line(out, "");
  Line(out, absl::StrCat("GPU idle by code location (",
                         common::FormatDuration(c.located_ns), " of the ",
                         common::FormatDuration(c.host_wait_ns),
                         " the GPU waited for the host, by where the launching "
                         "thread was):"));
  for (size_t i = 0; i < c.top.size() && i < static_cast<size_t>(o.max_rows);
       ++i) {
    const CodeIdle& row = c.top[i];
    Line(out, absl::StrFormat(
                  "  %10s %6s of idle  %s", common::FormatDuration(row.idle_ns),
                  common::FormatPercent(row.idle_share), row.location));
  }
}

// Each role's top locations: where the time went, not only that it went.
void HostCodeLines(const Report& r, const TextReportOptions& o,
                   std::string* out) {
  const HostCode& c = r.host_code;
  if (!c.available) return;
  const bool sampled = c.basis == CodeProfileBasis::kStackSamples;
  for (const RoleCodeProfile& role : c.roles) {
    Line(out, "");
    Line(out,
         absl::StrCat(
             "Where the ", ThreadRoleName(role.role), " threads (",
             role.threads, ") spent ", common::FormatDuration(role.located_ns),
             sampled ? " of sampled CPU time" : " of time in traced code",
             " (self, total):"));
    for (size_t i = 0;
         i < role.top.size() && i < static_cast<size_t>(o.max_rows); ++i) {
      const CodeLocationTime& row = role.top[i];
      Line(out, absl::StrFormat(
                    "  %10s %10s  %s", common::FormatDuration(row.self_ns),
                    common::FormatDuration(row.total_ns), row.location));
    }
    if (!role.user_lines.empty()) {
      Line(out, "  in the user's code, by the innermost line of it:");
      for (size_t i = 0;
           i < role.user_lines.size() && i < static_cast<size_t>(o.max_rows);
           ++i) {
        const CodeLocationTime& row = role.user_lines[i];
        Line(out, absl::StrFormat(
                      "  %10s %6s  %s", common::FormatDuration(row.self_ns),
                      common::FormatPercent(
                          role.located_ns > 0
                              ? static_cast<double>(row.self_ns) /
                                    static_cast<double>(role.located_ns)
                              : 0),
                      row.location));
      }
    }
  }
}

// Per step, the rank the others waited for most (the first and last few
// steps when there are many).
void RankStepsText(const Report& r, std::string* out) {
  const std::vector<StepStraggler>& steps = r.straggler.steps;
  if (steps.empty()) return;
  Line(out, "  waited for, per step:");
  constexpr size_t kShown = 8;
  for (size_t i = 0; i < steps.size(); ++i) {
    if (steps.size() > kShown && i == kShown / 2) {
      Line(out, absl::StrCat("    ... ", steps.size() - kShown, " more"));
      i = steps.size() - kShown / 2;
    }
    const StepStraggler& s = steps[i];
    Line(out, absl::StrCat(
                  "    step ", s.step, ": rank ", s.rank,
                  ", the others waited ", common::FormatDuration(s.wait_ns),
                  s.late_start_ns > 0
                      ? absl::StrCat(", it started ",
                                     common::FormatDuration(s.late_start_ns),
                                     " late")
                      : ""));
  }
}

// The ranks table, with the collectives matched across them and the rank
// the others wait for, per step.
void RanksText(const Report& r, std::string* out) {
  if (!r.ranks.empty()) {
    Line(out, "");
    Line(out, "Ranks:");
    const CollectivesReport& c = r.collectives;
    if (c.available) {
      Line(out,
           absl::StrCat(
               "  collectives: ", c.matched, " matched across ", c.ranks,
               " ranks",
               c.unaligned > 0
                   ? absl::StrCat(", ", c.unaligned, " not lining up")
                   : "",
               c.unmatched > 0
                   ? absl::StrCat(", ", c.unmatched, " on one rank only")
                   : "",
               "; ends within ", common::FormatDuration(c.median_end_spread_ns),
               " (median)",
               c.clocks_aligned
                   ? absl::StrCat(
                         "; the ranks waited ",
                         common::FormatDuration(c.wait_ns), " in them (",
                         common::FormatPercent(c.wait_share), " of their time)")
                   : "; clocks not aligned, waits not computed"));
    }
    const bool straggler_named = !r.straggler.pids.empty();
    for (const RankReport& k : r.ranks) {
      std::string mark;
      if (k.straggler) {
        mark = "  <- waited for";
      } else if (k.slowest && !straggler_named) {
        mark = "  <- slowest";
      }
      Line(
          out,
          absl::StrCat(
              "  ",
              k.rank >= 0 ? absl::StrCat("rank ", k.rank)
                          : absl::StrCat("pid ", k.pids.front()),
              ": busy ", common::FormatDuration(k.busy_ns), " of ",
              common::FormatDuration(k.span_ns), " (idle ",
              common::FormatPercent(k.idle_share), ")",
              k.median_step_ns > 0
                  ? ", median step " + common::FormatDuration(k.median_step_ns)
                  : "",
              k.communication_ns > 0
                  ? absl::StrCat(
                        ", communication ",
                        common::FormatDuration(k.communication_ns),
                        " (exposed ",
                        common::FormatDuration(k.exposed_communication_ns), ")")
                  : "",
              k.collectives > 0
                  ? absl::StrCat(", waited ",
                                 common::FormatDuration(k.collective_wait_ns),
                                 " in collectives, last at ", k.arrived_last,
                                 " of ", k.collectives)
                  : "",
              k.verdict ? absl::StrCat(", ", VerdictClassName(*k.verdict)) : "",
              mark));
    }
    RankStepsText(r, out);
  }
}

void Details(const Report& r, const TextReportOptions& o, std::string* out) {
  Line(out, "");
  Line(out, "---- details ----");
  // A report from rank digests holds the ranks only: no events.
  if (r.rank_digests > 0) {
    RanksText(r, out);
    return;
  }
  Devices(r, out);
  IdleByCodeLines(r, o, out);
  HostCodeLines(r, o, out);
  const LaunchStats& l = r.launch;
  if (r.has_gpu_activity) {
    Line(out, "");
    Line(out, LaunchLine(l));
    for (const KernelTotal& k : l.top_kernels) {
      Line(out, absl::StrFormat("  %10s %6d x  %s",
                                common::FormatDuration(k.total_ns), k.count,
                                common::ShortKernelName(k.name, 100)));
    }
    if (!l.sites.empty()) Line(out, "  launched from:");
    for (const LaunchSite& site : l.sites) {
      Line(out, absl::StrFormat("  %10s %6d x  %s",
                                common::FormatDuration(site.api_ns), site.count,
                                site.location));
    }
    Line(out, "");
    Line(out, absl::StrCat("Sync points (",
                           common::Counted(r.sync_points.size(), "group"), ", ",
                           r.gpu_side_waits,
                           " GPU-side stream waits not counted):"));
    int rows = 0;
    for (const SyncPoint& p : r.sync_points) {
      if (rows++ >= o.max_rows) break;
      Line(out, absl::StrCat(
                    "  ", p.api, " [", SyncKindName(p.kind), ": ", p.reason,
                    "] ", p.call_site.empty() ? "" : p.call_site + " ", p.count,
                    p.blocks_host ? "x blocked " : "x held back on the GPU ",
                    common::FormatDuration(p.blocked_ns), " (",
                    common::FormatPercent(p.wall_share),
                    " of wall), GPU idle after ",
                    common::FormatDuration(p.idle_after_ns)));
    }
    const CopyReport& c = r.copies;
    Line(out, "");
    Line(out,
         absl::StrCat("Copies: ", c.count, ", ", common::FormatBytes(c.bytes),
                      " in ", common::FormatDuration(c.time_ns), ", pageable ",
                      common::FormatPercent(c.pageable_share), "; PCIe link ",
                      c.link_known ? absl::StrFormat("gen%g x%d (%.1f GB/s)",
                                                     c.link_gen, c.link_width,
                                                     c.link_theoretical_gbps)
                                   : std::string(kNotAvailable)));
    for (const CopyDirectionStats& d : c.directions) {
      Line(out,
           absl::StrFormat("  %-5s %6d copies %10s %10s %8.2f GB/s pageable %s",
                           CopyDirectionName(d.direction), d.count,
                           common::FormatBytes(d.bytes),
                           common::FormatDuration(d.time_ns), d.achieved_gbps,
                           common::FormatPercent(d.pageable_share)));
    }
  }
  const HostReport& h = r.host;
  Line(out, "");
  Line(out, absl::StrCat(
                "Host: CUDA calls ", common::FormatDuration(h.cuda_api_ns),
                ", blocked in syncs ",
                common::FormatDuration(h.sync_blocked_ns), "; program CPU ",
                h.samples_available ? common::FormatDuration(h.program_cpu_ns)
                                    : std::string(kNotAvailable)));
  int rows = 0;
  for (const ThreadReport& t : h.threads) {
    if (rows++ >= o.max_rows) break;
    Line(out, ThreadLine(t));
  }
  if (!h.profiler_threads.empty()) {
    Line(out,
         absl::StrCat(
             "  profiler overhead (not counted above): ",
             h.samples_available
                 ? absl::StrCat(common::FormatDuration(h.profiler_cpu_ns),
                                " CPU in ", h.profiler_threads.size(),
                                " profiler threads (",
                                common::FormatPercent(h.profiler_core_share),
                                " of one core over the window)")
                 : absl::StrCat(h.profiler_threads.size(),
                                " profiler threads, CPU ", kNotAvailable)));
    for (const ThreadReport& t : h.profiler_threads) {
      Line(out, absl::StrCat("  ", ThreadLine(t)));
    }
  }
  for (const WorkerProcess& w : h.workers) {
    Line(out, absl::StrCat("  worker ", w.pid, " (", w.command, "): cpu ",
                           w.samples ? common::FormatDuration(w.cpu_user_ns +
                                                              w.cpu_system_ns)
                                     : std::string(kNotAvailable)));
  }
  IoText(r.io, out);
  Line(out, "");
  if (r.steps.available) {
    Line(out, absl::StrCat(
                  "Steps (", r.steps.source, "): ", r.steps.count, ", median ",
                  common::FormatDuration(r.steps.median_ns), ", p90 ",
                  common::FormatDuration(r.steps.p90_ns), ", median GPU busy ",
                  common::FormatPercent(r.steps.median_gpu_busy_share)));
  } else {
    Line(out, absl::StrCat("Steps: ", kNotAvailable,
                           " (no ProfilerStep#N or step-like range; name one "
                           "with --step-range)"));
  }
  RanksText(r, out);
}

}  // namespace

std::string WriteTextReport(const Report& report,
                            const TextReportOptions& options) {
  std::string out;
  Summary(report, &out);
  AppendPlatformText(report, options.details, &out);
  if (options.what_if) WhatIfTable(report, &out);
  if (options.details) Details(report, options, &out);
  return out;
}

}  // namespace feedprof
