// The HTML rendering of a comparison: one self-contained page (the same
// frame, CSS and render check as the single-run report, docs/diff.md) with
// the headline, the verdict change, the step-time noise test with the
// size of the change and the --fail-if-slower gate, BEFORE's
// what-if predictions against the measured change, the tables of what
// changed and both runs' device timelines on one time scale.
//
// Like the text and JSON writers it renders the model and computes nothing
// but the shared x axis (the longer of the two timelines). Every figure a
// test or script may read is also in a data-* attribute, exact, under the
// JSON diff's names; every string from the traces is escaped.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/units.h"
#include "feedprof/diff_report.h"
#include "report/html_page.h"
#include "report/svg_plot.h"
#include "report/what_if_wording.h"

namespace feedprof {
namespace {

using common::FormatBytes;
using common::FormatDuration;
using common::FormatPercent;
using common::ShortKernelName;
using report::Escaped;
using report::ExactNum;
using report::LegendEntry;

// How a figure is printed in a table cell.
enum class Fmt : uint8_t { kDuration, kShare, kCount, kBytes, kRate };

std::string Show(double v, Fmt fmt) {
  switch (fmt) {
    case Fmt::kDuration: {
      const std::string s = common::FormatDuration(
          static_cast<TimeNs>(std::llround(std::fabs(v))));
      return v < 0 ? "-" + s : s;
    }
    case Fmt::kShare:
      return common::FormatPercent(v);
    case Fmt::kCount:
      return std::fabs(v) >= 1000 ? absl::StrFormat("%.0f", v)
                                  : absl::StrFormat("%.4g", v);
    case Fmt::kBytes: {
      const std::string s = common::FormatBytes(
          static_cast<uint64_t>(std::llround(std::fabs(v))));
      return v < 0 ? "-" + s : s;
    }
    case Fmt::kRate:
      return absl::StrFormat("%.3g GB/s", v);
  }
  return "";
}

std::string Signed(double v, Fmt fmt) {
  return v > 0 ? "+" + Show(v, fmt) : Show(v, fmt);
}

// data-before/-after/-delta/-relative of a Change, prefixed.
std::string ChangeData(const char* prefix, const Change& c) {
  return absl::StrCat(" data-", prefix, "-before=\"", ExactNum(c.before),
                      "\" data-", prefix, "-after=\"", ExactNum(c.after),
                      "\" data-", prefix, "-delta=\"", ExactNum(c.delta),
                      "\" data-", prefix, "-relative=\"",
                      c.relative ? ExactNum(*c.relative) : "null", "\"");
}

// Four cells: before, after, delta, relative.
void AppendChangeCells(const Change& c, Fmt fmt, std::string* out) {
  absl::StrAppend(out, "<td>", Show(c.before, fmt), "</td><td>",
                  Show(c.after, fmt), "</td><td class=\"",
                  c.delta > 0 ? "up" : (c.delta < 0 ? "down" : "same"), "\">",
                  Signed(c.delta, fmt), "</td><td>",
                  c.relative ? absl::StrFormat("%+.1f%%", 100 * *c.relative)
                             : std::string("\xE2\x80\x94"),
                  "</td>");
}

// One table row: a label, then the change.
void AppendChangeRow(const char* key, const std::string& label, const Change& c,
                     Fmt fmt, std::string* out) {
  absl::StrAppend(out, "<tr data-key=\"", key, "\"", ChangeData("v", c),
                  "><th>", Escaped(label), "</th>");
  AppendChangeCells(c, fmt, out);
  out->append("</tr>");
}

const char* kChangeHead =
    "<th>before</th><th>after</th><th>change</th><th>relative</th>";

const char* HeadlineClass(const Comparison& c) {
  const NoiseVerdict& n = c.step_time.noise;
  if (!c.step_time.available || !n.beyond_noise) return "neutral";
  return c.step_time.median_ns.delta < 0 ? "good" : "bad";
}

void AppendHeadline(const Comparison& c, std::string* out) {
  const VerdictComparison& v = c.verdict;
  absl::StrAppend(out, "<section class=\"card verdict ", HeadlineClass(c),
                  "\" id=\"headline\" data-headline=\"", Escaped(c.headline),
                  "\" data-comparable=\"", c.comparable ? "true" : "false",
                  "\" data-unit=\"", Escaped(c.unit), "\">");
  absl::StrAppend(out, "<div class=\"headline\">", Escaped(c.headline),
                  "</div></section>");
  absl::StrAppend(out, "<section class=\"card ", v.changed ? "bad" : "neutral",
                  "\" id=\"verdict-change\" data-before-primary=\"",
                  Escaped(VerdictClassName(v.before_primary)),
                  "\" data-after-primary=\"",
                  Escaped(VerdictClassName(v.after_primary)),
                  "\" data-changed=\"", v.changed ? "true" : "false", "\"",
                  ChangeData("confidence", v.confidence), ">");
  absl::StrAppend(
      out,
      "<div class=\"verdict-head\"><span class=\"label\">"
      "Verdict</span><span class=\"primary\">",
      Escaped(VerdictClassName(v.before_primary)), " \xE2\x86\x92 ",
      Escaped(VerdictClassName(v.after_primary)),
      "</span><span class=\"conf\">confidence ", Escaped(v.before_label), " (",
      absl::StrFormat("%.2f", v.confidence.before), ") \xE2\x86\x92 ",
      Escaped(v.after_label), " (", absl::StrFormat("%.2f", v.confidence.after),
      ")</span></div>");
  if (v.before_runner_up || v.after_runner_up) {
    absl::StrAppend(
        out, "<p class=\"note\">runner-up: ",
        !v.before_runner_up ? "none"
                            : Escaped(VerdictClassName(*v.before_runner_up)),
        " \xE2\x86\x92 ",
        !v.after_runner_up ? "none"
                           : Escaped(VerdictClassName(*v.after_runner_up)),
        "</p>");
  }
  if (v.named_cause_score) {
    const bool shrank = v.named_cause_shrank.value_or(false);
    absl::StrAppend(
        out, "<p class=\"named-cause\" data-named-cause-shrank=\"",
        shrank ? "true" : "false", "\"",
        ChangeData("score", *v.named_cause_score), ">The cause BEFORE named (",
        Escaped(VerdictClassName(v.before_primary)), ") explains ",
        common::FormatPercent(v.named_cause_score->before),
        " of the span before and ",
        common::FormatPercent(v.named_cause_score->after),
        " after: ", shrank ? "it shrank." : "it did not shrink.", "</p>");
  }
  out->append("</section>");
}

void AppendStepTime(const Comparison& c, std::string* out) {
  const StepTimeComparison& s = c.step_time;
  const NoiseVerdict& n = s.noise;
  absl::StrAppend(out, "<section id=\"step-time\" data-available=\"",
                  s.available ? "true" : "false", "\" data-judged=\"",
                  n.judged ? "true" : "false", "\" data-beyond-noise=\"",
                  n.beyond_noise ? "true" : "false", "\" data-alternative=\"",
                  AlternativeName(n.alternative), "\"");
  if (n.judged) {
    absl::StrAppend(out, " data-p-value=\"", ExactNum(n.test.p_value),
                    "\" data-shift=\"", ExactNum(n.shift_ns.estimate),
                    "\" data-interval-low=\"",
                    n.shift_ns.low ? ExactNum(*n.shift_ns.low) : "null",
                    "\" data-interval-high=\"",
                    n.shift_ns.high ? ExactNum(*n.shift_ns.high) : "null",
                    "\" data-interval-confidence=\"",
                    ExactNum(n.shift_ns.confidence), "\"");
  }
  absl::StrAppend(out, ChangeData("median", s.median_ns), ">");
  absl::StrAppend(out, "<p class=\"noise ",
                  n.beyond_noise ? "beyond" : "within", "\">",
                  Escaped(n.explanation));
  if (n.judged) {
    absl::StrAppend(out, "; significance ",
                    absl::StrFormat("%.3g", n.significance),
                    ". Change: ", Escaped(n.effect), ".");
  }
  out->append("</p>");
  if (c.gate) {
    absl::StrAppend(out, "<p class=\"note\" id=\"gate\" data-outcome=\"",
                    GateOutcomeName(c.gate->outcome),
                    "\" data-threshold-percent=\"",
                    ExactNum(c.gate->threshold_percent), "\">--fail-if-slower ",
                    absl::StrFormat("%g", c.gate->threshold_percent), ": ",
                    GateOutcomeName(c.gate->outcome), ": ",
                    Escaped(c.gate->explanation), "</p>");
  }
  absl::StrAppend(out, "<table class=\"num\"><tr><th></th>", kChangeHead,
                  "</tr>");
  if (s.available) {
    absl::StrAppend(out, "<tr><th>steps</th><td>", s.before.count, "</td><td>",
                    s.after.count, "</td><td></td><td></td></tr>");
    AppendChangeRow("median_ns", "median step", s.median_ns, Fmt::kDuration,
                    out);
    AppendChangeRow("p10_ns", "p10 step", s.p10_ns, Fmt::kDuration, out);
    AppendChangeRow("p90_ns", "p90 step", s.p90_ns, Fmt::kDuration, out);
    AppendChangeRow("mean_ns", "mean step", s.mean_ns, Fmt::kDuration, out);
  }
  AppendChangeRow("gpu_busy_share", "GPU busy share", s.gpu_busy_share,
                  Fmt::kShare, out);
  AppendChangeRow("span_ns", "analysed window", s.span_ns, Fmt::kDuration, out);
  AppendChangeRow("idle_share", "GPU idle share", c.idle.idle_share,
                  Fmt::kShare, out);
  AppendChangeRow("idle_per_unit_ns", "GPU idle per " + c.unit,
                  c.idle.idle_per_unit_ns, Fmt::kDuration, out);
  out->append("</table></section>");
}

// BEFORE's scenarios: predicted change, measured change, and the mark on
// the one that stands for the cause that fell most.
void AppendWhatIfCheck(const Comparison& c, std::string* out) {
  const WhatIfCheck& w = c.what_if;
  if (!w.available) {
    if (w.unavailable_reason.empty()) return;
    absl::StrAppend(out,
                    "<h2>Predicted and measured</h2><p class=\"note\" "
                    "id=\"what-if-check\" data-available=\"false\">BEFORE's "
                    "what-if is not available: ",
                    Escaped(w.unavailable_reason), ".</p>");
    return;
  }
  absl::StrAppend(
      out,
      "<h2>Predicted and measured</h2><section id=\"what-if-check\" "
      "data-available=\"true\" data-basis=\"",
      Escaped(WhatIfBasisName(w.basis)), "\" data-measured-comparable=\"",
      w.measured_comparable ? "true" : "false", "\" data-measured-change=\"",
      w.measured_comparable ? ExactNum(w.measured_change) : "null", "\">");
  absl::StrAppend(
      out,
      "<p class=\"estimate\"><b>Predictions are estimates, not "
      "measurements:</b> BEFORE's what-if replay, one change at a time, "
      "next to what AFTER measured. ",
      w.measured_comparable
          ? std::string("Both are changes of the median step time.")
          : absl::StrCat("Measured: not comparable (",
                         Escaped(w.not_comparable_reason), ")."),
      "</p>");
  absl::StrAppend(out,
                  "<table class=\"num\" id=\"what-if-scenarios\"><tr><th>"
                  "scenario (BEFORE)</th><th>predicted median</th>"
                  "<th>predicted change</th><th>measured change</th><th>"
                  "</th></tr>");
  for (const ScenarioCheck& k : w.scenarios) {
    absl::StrAppend(
        out, "<tr data-scenario=\"", Escaped(WhatIfScenarioName(k.scenario)),
        "\" data-sync-api=\"", Escaped(k.sync_api),
        "\" data-predicted-change=\"", ExactNum(k.predicted_change),
        "\" data-matches=\"", k.matches_largest_fall ? "true" : "false", "\"",
        k.matches_largest_fall ? " class=\"matched\"" : "",
        "><td class=\"scenario\">",
        Escaped(report::WhatIfScenarioLabel(k.scenario, k.title, k.sync_api,
                                            k.sync_call_site)),
        "</td><td>", common::FormatDuration(k.predicted_median_ns), "</td><td>",
        report::SignedPercent(k.predicted_change), "</td><td>",
        w.measured_comparable ? report::SignedPercent(w.measured_change)
                              : std::string("not comparable"),
        "</td><td>",
        k.matches_largest_fall ? "\xE2\x86\x90 the cause that fell most" : "",
        "</td></tr>");
  }
  if (w.scenarios.empty()) {
    out->append("<tr><td colspan=\"5\">no scenario in BEFORE</td></tr>");
  }
  out->append("</table>");
  if (w.has_largest_fall) {
    const CauseFall& top = w.falls.front();
    absl::StrAppend(out, "<p class=\"note\" data-largest-fall-scenario=\"",
                    Escaped(WhatIfScenarioName(top.scenario)),
                    "\" data-largest-fall-ns=\"",
                    ExactNum(top.fall_per_unit_ns),
                    "\">The cause that fell most: ", Escaped(top.cause), ", ",
                    Show(top.fall_per_unit_ns, Fmt::kDuration), " less per ",
                    Escaped(c.unit), ".</p>");
  } else {
    absl::StrAppend(out,
                    "<p class=\"note\">No cause a scenario edits fell by 1% "
                    "of a ",
                    Escaped(c.unit), " or more.</p>");
  }
  out->append("</section>");
}

void AppendIdleCauses(const Comparison& c, int max_rows, std::string* out) {
  absl::StrAppend(out,
                  "<table class=\"num\" id=\"idle-causes\"><tr><th>cause "
                  "(idle per ",
                  Escaped(c.unit), ")</th>", kChangeHead, "</tr>");
  int rows = 0;
  for (int index : c.idle.largest) {
    if (rows++ >= max_rows) break;
    const IdleCauseChange& ch = c.idle.causes[static_cast<size_t>(index)];
    absl::StrAppend(out, "<tr data-cause=\"", Escaped(ch.name), "\"",
                    ChangeData("v", ch.per_unit_ns),
                    "><th><i class=\"sw\" style=\"background:",
                    report::StyleOf(static_cast<int>(ch.cause)).color,
                    "\"></i>", Escaped(ch.name), "</th>");
    AppendChangeCells(ch.per_unit_ns, Fmt::kDuration, out);
    out->append("</tr>");
  }
  out->append("</table>");
}

void AppendKernelTable(const char* id, const char* title,
                       const std::vector<KernelChange>& rows,
                       const std::string& unit, int max_rows,
                       std::string* out) {
  absl::StrAppend(out, "<h3>", title, " (", rows.size(), ")</h3>");
  if (rows.empty()) {
    out->append("<p class=\"note\">none</p>");
    return;
  }
  absl::StrAppend(out, "<table class=\"num\" id=\"", id,
                  "\"><tr><th>kernel (time per ", Escaped(unit), ")</th>",
                  kChangeHead, "<th>launches per ", Escaped(unit),
                  " before \xE2\x86\x92 after</th></tr>");
  int n = 0;
  for (const KernelChange& k : rows) {
    if (n++ >= max_rows) break;
    absl::StrAppend(out, "<tr data-name=\"", Escaped(k.name),
                    "\" data-presence=\"", PresenceName(k.presence), "\"",
                    ChangeData("time", k.time_per_unit_ns),
                    "><td class=\"name\" title=\"", Escaped(k.name), "\">",
                    Escaped(common::ShortKernelName(k.name)), "</td>");
    AppendChangeCells(k.time_per_unit_ns, Fmt::kDuration, out);
    absl::StrAppend(out, "<td>", Show(k.count_per_unit.before, Fmt::kCount),
                    " \xE2\x86\x92 ", Show(k.count_per_unit.after, Fmt::kCount),
                    "</td></tr>");
  }
  out->append("</table>");
}

void AppendSyncTable(const char* id, const char* title,
                     const std::vector<SyncPointChange>& rows,
                     const std::string& unit, int max_rows, std::string* out) {
  absl::StrAppend(out, "<h3>", title, " (", rows.size(), ")</h3>");
  if (rows.empty()) {
    out->append("<p class=\"note\">none</p>");
    return;
  }
  absl::StrAppend(out, "<table class=\"num\" id=\"", id,
                  "\"><tr><th>call (blocked per ", Escaped(unit),
                  ")</th><th>call site</th>", kChangeHead, "<th>calls per ",
                  Escaped(unit), " before \xE2\x86\x92 after</th></tr>");
  int n = 0;
  for (const SyncPointChange& p : rows) {
    if (n++ >= max_rows) break;
    absl::StrAppend(out, "<tr data-api=\"", Escaped(p.api),
                    "\" data-presence=\"", PresenceName(p.presence), "\"",
                    ChangeData("blocked", p.blocked_per_unit_ns), "><td>",
                    Escaped(p.api), " <span class=\"note\">", Escaped(p.kind),
                    p.reason.empty() ? "" : ", ", Escaped(p.reason),
                    "</span></td><td class=\"name\">", Escaped(p.call_site),
                    p.moved_from.empty()
                        ? std::string()
                        : absl::StrCat(" <span class=\"note\">moved from ",
                                       Escaped(p.moved_from), "</span>"),
                    "</td>");
    AppendChangeCells(p.blocked_per_unit_ns, Fmt::kDuration, out);
    absl::StrAppend(out, "<td>", Show(p.count_per_unit.before, Fmt::kCount),
                    " \xE2\x86\x92 ", Show(p.count_per_unit.after, Fmt::kCount),
                    "</td></tr>");
  }
  out->append("</table>");
}

// Code locations before and after: their time per unit, and whether each
// is new, vanished or moved.
void AppendCodeTable(const char* id, const char* title,
                     const std::vector<CodeLocationChange>& rows,
                     const std::string& unit, int max_rows, std::string* out) {
  if (rows.empty()) return;
  absl::StrAppend(out, "<h3>", title, "</h3><table class=\"num\" id=\"", id,
                  "\"><tr><th>location</th><th>in the runs</th>", kChangeHead,
                  "</tr>");
  int n = 0;
  for (const CodeLocationChange& row : rows) {
    if (n++ >= max_rows) break;
    absl::StrAppend(out, "<tr data-presence=\"", PresenceName(row.presence),
                    "\"", ChangeData("time", row.per_unit_ns),
                    "><td class=\"name\">", Escaped(row.location), "</td><td>",
                    PresenceName(row.presence),
                    row.moved_from.empty()
                        ? std::string()
                        : absl::StrCat(" from ", Escaped(row.moved_from)),
                    "</td>");
    AppendChangeCells(row.per_unit_ns, Fmt::kDuration, out);
    out->append("</tr>");
  }
  absl::StrAppend(out, "</table><p class=\"note\">Per ", Escaped(unit),
                  "; each run's top ten locations.</p>");
}

void AppendCopies(const Comparison& c, std::string* out) {
  const CopyComparison& k = c.copies;
  absl::StrAppend(out, "<table class=\"num\" id=\"copies\"><tr><th>per ",
                  Escaped(c.unit), "</th>", kChangeHead, "</tr>");
  AppendChangeRow("count_per_unit", "copies", k.count_per_unit, Fmt::kCount,
                  out);
  AppendChangeRow("bytes_per_unit", "bytes", k.bytes_per_unit, Fmt::kBytes,
                  out);
  AppendChangeRow("time_per_unit_ns", "copy time", k.time_per_unit_ns,
                  Fmt::kDuration, out);
  out->append("</table>");
  if (k.directions.empty()) return;
  absl::StrAppend(out,
                  "<table class=\"num\" id=\"copy-directions\"><tr><th>"
                  "direction</th><th>figure</th>",
                  kChangeHead, "</tr>");
  for (const CopyDirectionChange& d : k.directions) {
    const std::string label = absl::StrCat(CopyDirectionName(d.direction), " (",
                                           PresenceName(d.presence), ")");
    struct Row {
      const char* what;
      const Change* change;
      Fmt fmt;
    };
    for (const Row& row :
         {Row{"time", &d.time_per_unit_ns, Fmt::kDuration},
          Row{"bytes", &d.bytes_per_unit, Fmt::kBytes},
          Row{"achieved", &d.achieved_gbps, Fmt::kRate},
          Row{"pageable share", &d.pageable_share, Fmt::kShare}}) {
      absl::StrAppend(out, "<tr data-direction=\"",
                      Escaped(CopyDirectionName(d.direction)), "\"",
                      ChangeData("v", *row.change), "><td>", Escaped(label),
                      "</td><td>", row.what, "</td>");
      AppendChangeCells(*row.change, row.fmt, out);
      out->append("</tr>");
    }
  }
  out->append("</table>");
}

void AppendHost(const Comparison& c, std::string* out) {
  const HostComparison& h = c.host;
  absl::StrAppend(out, "<table class=\"num\" id=\"host\"><tr><th>per ",
                  Escaped(c.unit), "</th>", kChangeHead, "</tr>");
  AppendChangeRow("cuda_api_per_unit_ns", "time in CUDA calls",
                  h.cuda_api_per_unit_ns, Fmt::kDuration, out);
  AppendChangeRow("sync_blocked_per_unit_ns", "blocked in syncs",
                  h.sync_blocked_per_unit_ns, Fmt::kDuration, out);
  if (h.samples_before || h.samples_after) {
    AppendChangeRow("launching_threads_cpu_per_unit_ns",
                    "CPU of launching threads",
                    h.launching_threads_cpu_per_unit_ns, Fmt::kDuration, out);
    AppendChangeRow("other_threads_cpu_per_unit_ns", "CPU of other threads",
                    h.other_threads_cpu_per_unit_ns, Fmt::kDuration, out);
    AppendChangeRow("workers_cpu_per_unit_ns", "CPU of worker processes",
                    h.workers_cpu_per_unit_ns, Fmt::kDuration, out);
  }
  out->append("</table>");
  if (!h.samples_before || !h.samples_after) {
    absl::StrAppend(out, "<p class=\"note\">CPU samples: before ",
                    h.samples_before ? "yes" : "no", ", after ",
                    h.samples_after ? "yes" : "no", ".</p>");
  }
}

void AppendPlatform(const Comparison& c, std::string* out) {
  if (!c.warnings.empty()) {
    out->append(
        "<section class=\"card bad\" id=\"warnings\"><b>Warnings</b><ul>");
    for (const std::string& w : c.warnings) {
      absl::StrAppend(out, "<li>", Escaped(w), "</li>");
    }
    out->append("</ul></section>");
  }
  if (c.platform.empty()) {
    out->append("<p class=\"note\">Both runs report the same platform.</p>");
    return;
  }
  out->append(
      "<table id=\"platform\"><tr><th>what</th><th>before</th><th>after</th>"
      "<th>hardware</th></tr>");
  for (const PlatformDifference& p : c.platform) {
    absl::StrAppend(out, "<tr data-hardware=\"", p.hardware ? "true" : "false",
                    "\"><td>", Escaped(p.what), "</td><td>", Escaped(p.before),
                    "</td><td>", Escaped(p.after), "</td><td>",
                    p.hardware ? "yes" : "no", "</td></tr>");
  }
  out->append("</table>");
}

// Devices with activity, at most kMaxPlottedDevices, that have a timeline.
std::vector<size_t> PlottedDevices(const Report& r) {
  std::vector<size_t> plotted;
  if (r.timeline.buckets == 0 ||
      r.timeline.devices.size() != r.devices.size()) {
    return plotted;
  }
  for (size_t i = 0; i < r.devices.size(); ++i) {
    if (r.devices[i].span_ns <= 0) continue;
    if (plotted.size() >= report::kMaxPlottedDevices) break;
    plotted.push_back(i);
  }
  return plotted;
}

void AppendTimelines(const Comparison& c, std::string* out) {
  const Report& b = c.before_report;
  const Report& a = c.after_report;
  const std::vector<size_t> plotted_before = PlottedDevices(b);
  const std::vector<size_t> plotted_after = PlottedDevices(a);
  if (plotted_before.empty() && plotted_after.empty()) {
    out->append("<p class=\"note\">No device timeline in either run.</p>");
    return;
  }
  // One time scale: the longer run's timeline sets the x axis.
  const TimeNs axis_ns =
      std::max(report::TimelineLength(b), report::TimelineLength(a));
  absl::StrAppend(
      out, "<p class=\"note\" id=\"timeline-scale\" data-axis-ns=\"", axis_ns,
      "\">Both runs on one time scale (", common::FormatDuration(axis_ns),
      " across, from each run's window start): BEFORE above, AFTER below. "
      "Each column is the share of its time the GPU was busy (green) and "
      "idle, coloured by why it waited.</p>");
  IdleByCause present;
  for (size_t i : plotted_before) present += b.devices[i].idle_by_cause;
  for (size_t i : plotted_after) present += a.devices[i].idle_by_cause;
  std::vector<LegendEntry> legend = {{report::kBusyColor, "GPU busy"}};
  for (const LegendEntry& e : report::CauseLegend(present)) legend.push_back(e);
  legend.push_back({report::kOutsideColor, "outside the device's span"});
  report::AppendLegend(legend, out);
  for (size_t i : plotted_before) {
    report::AppendDeviceTimeline(
        b, i, axis_ns, absl::StrCat("before-device-", i), "BEFORE", out);
  }
  for (size_t i : plotted_after) {
    report::AppendDeviceTimeline(
        a, i, axis_ns, absl::StrCat("after-device-", i), "AFTER", out);
  }
}

void AppendLaunches(const Comparison& c, std::string* out) {
  const LaunchComparison& l = c.launch;
  absl::StrAppend(out, "<table class=\"num\" id=\"launches\"><tr><th></th>",
                  kChangeHead, "</tr>");
  AppendChangeRow("launches_per_unit", "launches per " + c.unit,
                  l.launches_per_unit, Fmt::kCount, out);
  AppendChangeRow("kernels_per_unit", "kernels per " + c.unit,
                  l.kernels_per_unit, Fmt::kCount, out);
  AppendChangeRow("median_launch_api_ns", "median launch call",
                  l.median_launch_api_ns, Fmt::kDuration, out);
  AppendChangeRow("median_kernel_ns", "median kernel", l.median_kernel_ns,
                  Fmt::kDuration, out);
  AppendChangeRow("launch_overhead_share", "launch-overhead idle share",
                  l.launch_overhead_share, Fmt::kShare, out);
  out->append("</table>");
}

void AppendDevices(const Comparison& c, std::string* out) {
  if (c.devices.empty()) return;
  out->append(
      "<h3>Devices</h3><table class=\"num\" id=\"devices\"><tr><th>device"
      "</th><th>figure</th>");
  absl::StrAppend(out, kChangeHead, "</tr>");
  for (const DeviceChange& d : c.devices) {
    const std::string label =
        absl::StrCat(d.rank >= 0 ? absl::StrCat("rank ", d.rank, " ") : "",
                     "GPU ", d.device, " (", PresenceName(d.presence), ")");
    struct Row {
      std::string what;
      const Change* change;
      Fmt fmt;
    };
    for (const Row& row :
         {Row{"busy share", &d.busy_share, Fmt::kShare},
          Row{"idle per " + c.unit, &d.idle_per_unit_ns, Fmt::kDuration},
          Row{"kernels per " + c.unit, &d.kernels_per_unit, Fmt::kCount}}) {
      absl::StrAppend(out, "<tr data-device=\"", d.device, "\"",
                      ChangeData("v", *row.change), "><td>", Escaped(label),
                      "</td><td>", Escaped(row.what), "</td>");
      AppendChangeCells(*row.change, row.fmt, out);
      out->append("</tr>");
    }
  }
  out->append("</table>");
}

void AppendSide(const char* label, const RunSide& s, std::string* out) {
  absl::StrAppend(out, "<tr><th>", label, "</th><td class=\"name\">",
                  Escaped(s.source_path), "</td><td>",
                  Escaped(SourceFormatName(s.source_format)), "</td><td>",
                  s.events, "</td><td>", s.steps, "</td><td>",
                  common::FormatDuration(s.window_ns), "</td></tr>");
}

}  // namespace

std::string WriteHtmlDiff(const Comparison& c) {
  constexpr int kMaxRows = 10;
  std::string out;
  out.reserve(256 * 1024);
  report::AppendPageStart(absl::StrCat("feedprof diff: ", c.headline),
                          Comparison::kSchema, &out);
  out.append("<h1>feedprof diff</h1>");
  out.append(
      "<table id=\"runs\"><tr><th></th><th>trace</th><th>format</th>"
      "<th>events</th><th>steps</th><th>window</th></tr>");
  AppendSide("BEFORE", c.before, &out);
  AppendSide("AFTER", c.after, &out);
  absl::StrAppend(&out, "</table><p class=\"note\">Figures per ",
                  Escaped(c.unit), " of each run.</p>");

  AppendHeadline(c, &out);
  AppendPlatform(c, &out);
  out.append("<h2>Step time</h2>");
  AppendStepTime(c, &out);
  AppendWhatIfCheck(c, &out);
  out.append("<h2>Timelines</h2>");
  AppendTimelines(c, &out);
  AppendDevices(c, &out);
  out.append("<h2>Largest idle-cause changes</h2>");
  AppendIdleCauses(c, kMaxRows, &out);
  absl::StrAppend(&out, "<h2>Kernels</h2><p class=\"note\">",
                  c.kernels.names_before, " kernel names before, ",
                  c.kernels.names_after, " after.</p>");
  AppendLaunches(c, &out);
  AppendKernelTable("kernel-gains", "Most time gained", c.kernels.gains, c.unit,
                    kMaxRows, &out);
  AppendKernelTable("kernel-losses", "Most time lost", c.kernels.losses, c.unit,
                    kMaxRows, &out);
  AppendKernelTable("kernel-new", "New in AFTER", c.kernels.added, c.unit,
                    kMaxRows, &out);
  AppendKernelTable("kernel-vanished", "Vanished", c.kernels.vanished, c.unit,
                    kMaxRows, &out);
  out.append("<h2>Sync points</h2><table class=\"num\"><tr><th></th>");
  absl::StrAppend(&out, kChangeHead, "</tr>");
  AppendChangeRow("blocked_per_unit_ns", "host blocked per " + c.unit,
                  c.syncs.blocked_per_unit_ns, Fmt::kDuration, &out);
  out.append("</table>");
  AppendSyncTable("sync-new", "New in AFTER", c.syncs.added, c.unit, kMaxRows,
                  &out);
  AppendSyncTable("sync-vanished", "Vanished", c.syncs.vanished, c.unit,
                  kMaxRows, &out);
  AppendSyncTable("sync-moved", "Moved to another line", c.syncs.moved, c.unit,
                  kMaxRows, &out);
  AppendSyncTable("sync-changed", "Changed most", c.syncs.points, c.unit,
                  kMaxRows, &out);
  if (c.code.available) {
    out.append("<h2>Code locations</h2>");
    AppendCodeTable("code-idle", "GPU idle by code location", c.code.idle,
                    c.unit, kMaxRows, &out);
    AppendCodeTable("code-lines", "Launching threads' time by line",
                    c.code.launching_lines, c.unit, kMaxRows, &out);
  }
  out.append("<h2>Copies</h2>");
  AppendCopies(c, &out);
  out.append("<h2>Host</h2>");
  AppendHost(c, &out);
  out.append(
      "<p class=\"note\">Made by feedprof from the same comparison model as "
      "<code>feedprof diff --format json</code>.</p>");
  report::AppendPageEnd(&out);
  return out;
}

}  // namespace feedprof
