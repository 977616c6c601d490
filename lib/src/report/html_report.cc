// The HTML report: one self-contained page (inline CSS and SVG, a few lines
// of script that only check the page rendered) that opens offline from
// file:// and shows the verdict, the run over time and the tables behind it
// (docs/html-report.md).
//
// Like the text and JSON writers it renders the report model and computes
// nothing: every number printed comes from a model field, and the plots draw
// the model's fixed-size timeline buckets as they are, so the page's size
// is bounded whatever the trace's length. Every string from the trace
// (kernel names, paths, call sites, thread names) is escaped.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/units.h"
#include "feedprof/report.h"
#include "report/code_location_html.h"
#include "report/html_page.h"
#include "report/io_html.h"
#include "report/platform_block.h"
#include "report/svg_plot.h"
#include "report/what_if_html.h"

namespace feedprof {
namespace {

using common::FormatBytes;
using common::FormatDuration;
using common::FormatPercent;
using common::ShortKernelName;
using report::AppendDeviceTimeline;
using report::AppendEscaped;
using report::AppendLegend;
using report::AppendStackedArea;
using report::AppendTimeAxis;
using report::AreaLayer;
using report::CauseLegend;
using report::DeviceLabel;
using report::Escaped;
using report::ExactNum;
using report::kApiColor;
using report::kBusyColor;
using report::kComputeColor;
using report::kCopyColor;
using report::kCpuColor;
using report::kIoColor;
using report::kLeft;
using report::kMaxPlottedDevices;
using report::kOutsideColor;
using report::kPlotW;
using report::kSyncColor;
using report::kWidth;
using report::LegendEntry;
using report::Num;
using report::Permille;
using report::StyleOf;
using report::Text;
using report::TimeAxis;
using report::TimelineLength;

constexpr const char* kNotAvailable = "not available";

std::string ThreadLabel(int32_t pid, int32_t tid, const std::string& name) {
  return absl::StrCat(name.empty() ? std::string("thread") : name, " (", pid,
                      "/", tid, ")");
}

std::string Cut(const std::string& s, size_t max_chars) {
  if (s.size() <= max_chars) return s;
  size_t cut = max_chars;
  // Do not cut inside a UTF-8 sequence.
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut) + "\xE2\x80\xA6";
}

// The blocking calls under the device plots: one tick per call, as wide as
// it lasted (at least a pixel), with its name in a tooltip.
void AppendSyncBand(const Report& r, std::string* out) {
  const TimelineOverview& t = r.timeline;
  const double length =
      static_cast<double>(t.buckets) * static_cast<double>(t.bucket_ns);
  constexpr int kH = 26;
  absl::StrAppend(
      out, "<svg class=\"plot\" data-plot=\"timeline-syncs\" width=\"", kWidth,
      "\" height=\"", kH, "\" viewBox=\"0 0 ", kWidth, " ", kH, "\">");
  Text(out, 4, 16, "blocking calls", " class=\"row-label\"");
  absl::StrAppend(out, "<rect x=\"", kLeft, "\" y=\"4\" width=\"", kPlotW,
                  "\" height=\"18\" fill=\"", kOutsideColor, "\"/>");
  for (const TimelineSync& s : t.syncs) {
    const double x =
        kLeft + static_cast<double>(s.start - t.start) / length * kPlotW;
    const double w =
        std::max(1.0, static_cast<double>(s.duration_ns) / length * kPlotW);
    absl::StrAppend(out, "<rect x=\"", Num(x), "\" y=\"4\" width=\"", Num(w),
                    "\" height=\"18\" fill=\"", kSyncColor, "\"><title>");
    AppendEscaped(
        absl::StrCat(s.api, " ", common::FormatDuration(s.duration_ns), " at ",
                     common::FormatDuration(s.start - r.window.trace_start),
                     " (", s.pid, "/", s.tid, ")"),
        out);
    out->append("</title></rect>");
  }
  if (t.syncs.empty()) {
    Text(out, kLeft + 6, 17, "no blocking CUDA calls in the window",
         " class=\"row-sub\"");
  }
  out->append("</svg>");
}

void AppendThreadTimelines(const Report& r, std::string* out) {
  const TimelineOverview& t = r.timeline;
  const size_t n = t.buckets;
  constexpr int kRowH = 20;
  constexpr int kGap = 8;
  const int per_thread = 2 * kRowH + kGap;
  const int height = static_cast<int>(t.threads.size()) * per_thread + 40;
  absl::StrAppend(out,
                  "<svg class=\"plot\" data-plot=\"timeline-threads\" "
                  "width=\"",
                  kWidth, "\" height=\"", height, "\" viewBox=\"0 0 ", kWidth,
                  " ", height, "\">");
  auto area = [&](int y, const std::vector<const std::vector<TimeNs>*>& series,
                  const std::vector<const char*>& colors) {
    absl::StrAppend(out, "<rect x=\"", kLeft, "\" y=\"", y, "\" width=\"",
                    kPlotW, "\" height=\"", kRowH, "\" fill=\"", kOutsideColor,
                    "\"/>");
    absl::StrAppend(out, "<svg x=\"", kLeft, "\" y=\"", y, "\" width=\"",
                    kPlotW, "\" height=\"", kRowH, "\" viewBox=\"0 0 ",
                    std::max<size_t>(n, 1),
                    " 1000\" preserveAspectRatio=\"none\">");
    std::vector<AreaLayer> layers;
    std::vector<TimeNs> cumulative(n, 0);
    for (size_t i = 0; i < series.size(); ++i) {
      AreaLayer layer;
      layer.color = colors[i];
      layer.permille.resize(n);
      for (size_t k = 0; k < n && k < series[i]->size(); ++k) {
        cumulative[k] += (*series[i])[k];
        layer.permille[k] = Permille(r, k, cumulative[k]);
      }
      layers.push_back(std::move(layer));
    }
    AppendStackedArea(layers, n, out);
    out->append("</svg>");
  };
  int y = 4;
  for (const TimelineThread& th : t.threads) {
    Text(out, 4, y + 14, Cut(th.name.empty() ? "thread" : th.name, 17),
         " class=\"row-label\"");
    Text(out, 4, y + kRowH + 13,
         Cut(absl::StrCat("pid/tid ", th.pid, "/", th.tid), 19),
         " class=\"row-sub\"");
    Text(out, kLeft - 6, y + 14, "CPU", " text-anchor=\"end\" class=\"tick\"");
    if (th.samples) {
      area(y, {&th.cpu_ns, &th.io_wait_ns}, {kCpuColor, kIoColor});
    } else {
      absl::StrAppend(out, "<rect x=\"", kLeft, "\" y=\"", y, "\" width=\"",
                      kPlotW, "\" height=\"", kRowH, "\" fill=\"",
                      kOutsideColor, "\"/>");
      Text(out, kLeft + 6, y + 14, "no CPU samples in this trace",
           " class=\"row-sub\"");
    }
    y += kRowH;
    Text(out, kLeft - 6, y + 14, "CUDA", " text-anchor=\"end\" class=\"tick\"");
    // Sync first (bottom), then the other CUDA time up to all CUDA time.
    std::vector<TimeNs> other(n, 0);
    for (size_t k = 0; k < n; ++k) other[k] = th.cuda_api_ns[k] - th.sync_ns[k];
    area(y, {&th.sync_ns, &other}, {kSyncColor, kApiColor});
    y += kRowH + kGap;
  }
  AppendTimeAxis(r, TimelineLength(r), y, out);
  out->append("</svg>");
}

// One horizontal stacked bar: segments of (color, ns, label) scaled so that
// `full_ns` spans `width` pixels.
struct Segment {
  const char* color;
  TimeNs ns;
  std::string label;
};
void AppendBar(const std::vector<Segment>& segments, TimeNs full_ns, double x,
               double y, double width, double height, std::string* out) {
  if (full_ns <= 0) return;
  for (const Segment& s : segments) {
    if (s.ns <= 0) continue;
    const double w =
        static_cast<double>(s.ns) / static_cast<double>(full_ns) * width;
    absl::StrAppend(out, "<rect x=\"", Num(x, 2), "\" y=\"", Num(y),
                    "\" width=\"", Num(w, 2), "\" height=\"", Num(height),
                    "\" fill=\"", s.color, "\"><title>");
    AppendEscaped(absl::StrCat(s.label, ": ", common::FormatDuration(s.ns)),
                  out);
    out->append("</title></rect>");
    x += w;
  }
}

std::vector<Segment> CauseSegments(const IdleByCause& idle) {
  std::vector<Segment> out;
  for (int c = 0; c < kIdleCauses; ++c) {
    out.push_back(Segment{StyleOf(c).color, idle.ns[static_cast<size_t>(c)],
                          StyleOf(c).label});
  }
  return out;
}

void AppendIdleByCause(const Report& r, const std::vector<size_t>& plotted,
                       std::string* out) {
  constexpr int kRowH = 26;
  const int height = static_cast<int>(plotted.size()) * (kRowH + 10) + 10;
  absl::StrAppend(
      out, "<svg class=\"plot\" data-plot=\"idle-by-cause\" width=\"", kWidth,
      "\" height=\"", height, "\" viewBox=\"0 0 ", kWidth, " ", height, "\">");
  int y = 6;
  for (size_t i : plotted) {
    const DeviceReport& d = r.devices[i];
    Text(out, 4, y + 17, DeviceLabel(d), " class=\"row-label\"");
    std::vector<Segment> segments = {{kBusyColor, d.busy_ns, "busy"}};
    for (const Segment& s : CauseSegments(d.idle_by_cause)) {
      segments.push_back(s);
    }
    AppendBar(segments, d.span_ns, kLeft, y, kPlotW, kRowH, out);
    y += kRowH + 10;
  }
  out->append("</svg>");
  // The numbers behind the bars.
  out->append(
      "<table class=\"num\"><tr><th>device</th><th>span</th><th>busy</th>");
  for (int c = 0; c < kIdleCauses; ++c) {
    absl::StrAppend(out,
                    "<th><i class=\"sw\" style=\"background:", StyleOf(c).color,
                    "\"></i>", StyleOf(c).label, "</th>");
  }
  out->append("</tr>");
  for (size_t i : plotted) {
    const DeviceReport& d = r.devices[i];
    absl::StrAppend(out, "<tr><td>", Escaped(DeviceLabel(d)), "</td><td>",
                    common::FormatDuration(d.span_ns), "</td><td>",
                    common::FormatDuration(d.busy_ns), "</td>");
    for (int c = 0; c < kIdleCauses; ++c) {
      absl::StrAppend(
          out, "<td>",
          common::FormatDuration(d.idle_by_cause.ns[static_cast<size_t>(c)]),
          "</td>");
    }
    out->append("</tr>");
  }
  out->append("</table>");
}

void AppendGapHistogram(const Report& r, size_t index, std::string* out) {
  const DeviceReport& d = r.devices[index];
  static constexpr const char* kBucketLabels[kGapBuckets] = {
      "\xE2\x89\xA4 10 \xC2\xB5s", "10 \xC2\xB5s \xE2\x80\x93 100 \xC2\xB5s",
      "100 \xC2\xB5s \xE2\x80\x93 1 ms", "1 ms \xE2\x80\x93 10 ms", "> 10 ms"};
  constexpr int kRowH = 18;
  constexpr int kBarW = 620;
  const int height = kGapBuckets * (kRowH + 6) + 30;
  TimeNs longest = 0;
  for (TimeNs ns : d.gaps.histogram_ns) longest = std::max(longest, ns);
  absl::StrAppend(out, "<svg class=\"plot\" data-plot=\"gap-histogram-", index,
                  "\" width=\"", kWidth, "\" height=\"", height,
                  "\" viewBox=\"0 0 ", kWidth, " ", height, "\">");
  Text(out, 4, 14, DeviceLabel(d), " class=\"row-label\"");
  Text(out, kLeft, 14,
       "idle time in gaps of each length, by cause (bar length: idle time)",
       " class=\"row-sub\"");
  int y = 22;
  for (int b = 0; b < kGapBuckets; ++b) {
    const auto ub = static_cast<size_t>(b);
    Text(out, kLeft - 8, y + 13, kBucketLabels[b],
         " text-anchor=\"end\" class=\"tick\"");
    absl::StrAppend(out, "<rect x=\"", kLeft, "\" y=\"", y, "\" width=\"",
                    kBarW, "\" height=\"", kRowH, "\" fill=\"", kOutsideColor,
                    "\"/>");
    AppendBar(CauseSegments(d.gaps.by_bucket[ub]), longest, kLeft, y, kBarW,
              kRowH, out);
    Text(out, kLeft + kBarW + 10, y + 13,
         absl::StrCat(d.gaps.histogram[ub],
                      d.gaps.histogram[ub] == 1 ? " gap, " : " gaps, ",
                      common::FormatDuration(d.gaps.histogram_ns[ub]), " idle"),
         " class=\"tick\"");
    y += kRowH + 6;
  }
  out->append("</svg>");
}

void AppendStepBars(const Report& r, std::string* out) {
  const std::vector<StepInfo>& steps = r.steps.steps;
  const size_t stride = std::max<uint32_t>(1, r.timeline.step_stride);
  std::vector<const StepInfo*> shown;
  for (size_t i = 0; i < steps.size(); i += stride) shown.push_back(&steps[i]);
  if (shown.empty()) return;
  TimeNs longest = 0;
  for (const StepInfo* s : shown) {
    longest = std::max(longest, s->end - s->start);
  }
  constexpr int kTop = 10;
  constexpr int kAreaH = 220;
  constexpr int kH = kTop + kAreaH + 46;
  const TimeAxis axis = report::MakeDurationAxis(longest);
  const double top_ns =
      axis.ticks_ns.empty()
          ? static_cast<double>(longest)
          : std::max(static_cast<double>(longest), axis.ticks_ns.back());
  absl::StrAppend(out, "<svg class=\"plot\" data-plot=\"steps\" width=\"",
                  kWidth, "\" height=\"", kH, "\" viewBox=\"0 0 ", kWidth, " ",
                  kH, "\">");
  auto y_of = [&](double ns) { return kTop + kAreaH - ns / top_ns * kAreaH; };
  for (size_t i = 0; i < axis.ticks_ns.size(); ++i) {
    const double y = y_of(axis.ticks_ns[i]);
    absl::StrAppend(out, "<path class=\"grid\" d=\"M", kLeft, " ", Num(y), "H",
                    kLeft + kPlotW, "\"/>");
    Text(out, kLeft - 7, y + 4, axis.labels[i],
         " text-anchor=\"end\" class=\"tick\"");
  }
  Text(out, 4, kTop + 14, absl::StrCat("step time (", axis.unit, ")"),
       " class=\"row-label\"");
  const double slot =
      static_cast<double>(kPlotW) / static_cast<double>(shown.size());
  const double bar_w = std::max(1.0, slot * 0.8);
  for (size_t i = 0; i < shown.size(); ++i) {
    const StepInfo& s = *shown[i];
    const double x = kLeft + slot * static_cast<double>(i) + (slot - bar_w) / 2;
    std::vector<std::pair<const char*, TimeNs>> parts = {
        {kComputeColor, s.compute_ns}, {kCopyColor, s.copy_ns}};
    for (int c = 0; c < kIdleCauses; ++c) {
      parts.push_back(
          {StyleOf(c).color, s.idle_by_cause.ns[static_cast<size_t>(c)]});
    }
    out->append("<g><title>");
    AppendEscaped(
        absl::StrCat(s.name, ": ", common::FormatDuration(s.end - s.start),
                     "; compute ", common::FormatDuration(s.compute_ns),
                     ", copies ", common::FormatDuration(s.copy_ns), ", idle ",
                     common::FormatDuration(s.idle_by_cause.Total()),
                     " (host wait ",
                     common::FormatDuration(s.idle_by_cause.HostWait()), ")"),
        out);
    out->append("</title>");
    // The step's length as an outline; inside it what the GPU did.
    const double full_y = y_of(static_cast<double>(s.end - s.start));
    absl::StrAppend(out, "<rect class=\"step\" x=\"", Num(x, 2), "\" y=\"",
                    Num(full_y), "\" width=\"", Num(bar_w, 2), "\" height=\"",
                    Num(kTop + kAreaH - full_y), "\"/>");
    double base = 0;
    for (const auto& [color, ns] : parts) {
      if (ns <= 0) continue;
      const double y1 = y_of(base + static_cast<double>(ns));
      const double y0 = y_of(base);
      absl::StrAppend(out, "<rect x=\"", Num(x, 2), "\" y=\"", Num(y1),
                      "\" width=\"", Num(bar_w, 2), "\" height=\"",
                      Num(y0 - y1, 2), "\" fill=\"", color, "\"/>");
      base += static_cast<double>(ns);
    }
    out->append("</g>");
  }
  // Step numbers under a few bars.
  const size_t label_every = std::max<size_t>(1, shown.size() / 10);
  for (size_t i = 0; i < shown.size(); i += label_every) {
    const double x = kLeft + slot * (static_cast<double>(i) + 0.5);
    Text(out, x, kTop + kAreaH + 16, std::to_string(i * stride + 1),
         " text-anchor=\"middle\" class=\"tick\"");
  }
  Text(out, kLeft + kPlotW, kTop + kAreaH + 34,
       stride == 1 ? std::string("step number")
                   : absl::StrCat("step number (every ", stride, "th of ",
                                  steps.size(), " steps shown)"),
       " text-anchor=\"end\" class=\"axis-label\"");
  out->append("</svg>");
}

// The card's colour: a busy GPU is good news, no verdict is neither.
const char* VerdictCssClass(VerdictClass verdict) {
  if (verdict == VerdictClass::kGpuBound) return "good";
  if (verdict == VerdictClass::kInconclusive) return "neutral";
  return "bad";
}

void AppendVerdictCard(const Report& r, std::string* out) {
  const Verdict& v = r.verdict;
  absl::StrAppend(
      out, "<section class=\"card verdict ", VerdictCssClass(v.primary),
      "\" id=\"verdict\" data-verdict=\"", Escaped(VerdictClassName(v.primary)),
      "\" data-confidence=\"", ExactNum(v.confidence),
      "\" data-confidence-label=\"", Escaped(v.confidence_label), "\">");
  absl::StrAppend(out,
                  "<div class=\"verdict-head\"><span class=\"label\">"
                  "Verdict</span><span class=\"primary\">",
                  Escaped(VerdictClassName(v.primary)),
                  "</span><span class=\"conf\">confidence ",
                  Escaped(v.confidence_label), " (",
                  absl::StrFormat("%.2f", v.confidence), ")</span>");
  if (v.runner_up) {
    absl::StrAppend(out, "<span class=\"runner\">runner-up: ",
                    Escaped(VerdictClassName(*v.runner_up)), "</span>");
  }
  if (v.basis == VerdictBasis::kLateRank) {
    out->append(
        "<span class=\"runner\" data-verdict-basis=\"late_rank\">from the rank "
        "the "
        "others wait for</span>");
  }
  out->append("</div>");
  if (r.no_gpu_activity) {
    const NoGpuActivity& n = *r.no_gpu_activity;
    // A banner only: the evidence and next steps below say why and what
    // to do, in the verdict's own words.
    absl::StrAppend(
        out, "<div class=\"nogpu\" data-no-gpu-cause=\"",
        Escaped(NoGpuCauseName(n.cause)),
        "\"><b>No GPU activity in this trace</b> (",
        Escaped(NoGpuCauseName(n.cause)),
        "): no GPU plots below, only the host threads; the evidence "
        "says why.</div>");
  }
  out->append("<h3>Evidence</h3><ul class=\"evidence\">");
  for (const std::string& e : v.evidence) {
    absl::StrAppend(out, "<li>", Escaped(e), "</li>");
  }
  out->append("</ul><h3>Next steps</h3><ol class=\"next\">");
  for (size_t i = 0; i < v.next_steps.size(); ++i) {
    absl::StrAppend(out, "<li", report::NextStepEstimateData(v, i), ">",
                    Escaped(v.next_steps[i]), "</li>");
  }
  out->append("</ol>");
  if (!v.scores.empty()) {
    out->append(
        "<details><summary>All rules</summary><table class=\"num\"><tr>"
        "<th>verdict</th><th>score (share of span explained)</th>"
        "<th>threshold</th><th>triggered</th></tr>");
    for (const RuleScore& s : v.scores) {
      absl::StrAppend(out, "<tr><td>", Escaped(VerdictClassName(s.verdict)),
                      "</td><td>", Num(s.score, 3), "</td><td>",
                      Num(s.threshold, 3), "</td><td>",
                      s.triggered ? "yes" : "no", "</td></tr>");
    }
    out->append("</table></details>");
  }
  out->append("</section>");
}

void AppendDeviceSummary(const Report& r, std::string* out) {
  if (r.devices.empty()) {
    out->append(
        "<p class=\"note\" id=\"devices\">No device ran a kernel, copy "
        "or memset in the analysed window.</p>");
    return;
  }
  // Communication columns only where a device ran collective kernels.
  const bool communication = std::any_of(
      r.devices.begin(), r.devices.end(),
      [](const auto& d) { return d.communication_kernel_count > 0; });
  absl::StrAppend(
      out,
      "<table class=\"num\" id=\"devices\"><tr><th>device</th><th>name</th>"
      "<th>span</th><th>busy</th><th>idle</th><th>idle share</th>"
      "<th>compute</th>",
      communication ? "<th>of it communication</th>"
                      "<th>exposed communication</th>"
                    : "",
      "<th>copy time</th><th>exposed copy time</th>"
      "<th>kernels</th><th>copy ops</th><th>gaps</th>"
      "<th>launch overhead share</th></tr>");
  for (const DeviceReport& d : r.devices) {
    absl::StrAppend(
        out, "<tr data-device=\"", d.device, "\" data-pid=\"", d.pid,
        "\" data-span-ns=\"", d.span_ns, "\" data-busy-ns=\"", d.busy_ns,
        "\" data-idle-ns=\"", d.idle_ns, "\" data-idle-share=\"",
        ExactNum(d.idle_share), "\"><td>", Escaped(DeviceLabel(d)), "</td><td>",
        Escaped(d.name), "</td><td>", common::FormatDuration(d.span_ns),
        "</td><td>", common::FormatDuration(d.busy_ns), "</td><td>",
        common::FormatDuration(d.idle_ns), "</td><td>",
        common::FormatPercent(d.idle_share), "</td><td>",
        common::FormatDuration(d.compute_ns), "</td><td>",
        communication
            ? absl::StrCat(common::FormatDuration(d.communication_ns),
                           "</td><td>",
                           common::FormatDuration(d.exposed_communication_ns),
                           "</td><td>")
            : "",
        common::FormatDuration(d.memcpy_ns), "</td><td>",
        common::FormatDuration(d.exposed_memcpy_ns), "</td><td>",
        d.kernel_count, "</td><td>", d.memcpy_count, "</td><td>", d.gaps.count,
        "</td><td>", common::FormatPercent(d.launch_overhead_share),
        "</td></tr>");
  }
  out->append("</table>");
}

void AppendLaunchTables(const Report& r, std::string* out) {
  const LaunchStats& l = r.launch;
  auto dur_or_na = [](bool known, TimeNs ns) {
    return known ? common::FormatDuration(ns) : std::string(kNotAvailable);
  };
  const bool delays = l.launch_delays > 0;
  absl::StrAppend(
      out, "<table class=\"kv\"><tr><th>launch calls</th><td>", l.count,
      "</td></tr><tr><th>kernels</th><td>", l.kernels,
      "</td></tr><tr><th>graph launches</th><td>", l.graph_launches,
      "</td></tr><tr><th>median launch call</th><td>",
      dur_or_na(l.count > l.graph_launches, l.median_api_ns),
      "</td></tr><tr><th>median kernel</th><td>",
      dur_or_na(l.kernels > 0, l.median_kernel_ns),
      "</td></tr><tr><th>kernels shorter than their launch</th><td>",
      common::FormatPercent(l.share_kernels_shorter_than_launch),
      "</td></tr><tr><th>launch delay median / p90 / max</th><td>",
      dur_or_na(delays, l.median_launch_delay_ns), " / ",
      dur_or_na(delays, l.p90_launch_delay_ns), " / ",
      dur_or_na(delays, l.max_launch_delay_ns), "</td></tr></table>");
  out->append(
      "<h3>Top kernels (by GPU time)</h3><table class=\"num\" "
      "id=\"top-kernels\"><tr><th>kernel</th><th>count</th><th>total</th>"
      "</tr>");
  for (const KernelTotal& k : l.top_kernels) {
    absl::StrAppend(out, "<tr data-kernel-total-ns=\"", k.total_ns,
                    "\"><td class=\"name\" title=\"", Escaped(k.name), "\">",
                    Escaped(common::ShortKernelName(k.name, 100)), "</td><td>",
                    k.count, "</td><td>", common::FormatDuration(k.total_ns),
                    "</td></tr>");
  }
  if (l.top_kernels.empty())
    out->append("<tr><td colspan=\"3\">no kernels</td></tr>");
  out->append("</table>");
}

// A sync point's call site, with its whole stack to unfold when there is
// more than the one frame.
std::string CallSiteCell(const SyncPoint& p) {
  if (p.call_site.empty()) return "unknown";
  if (p.call_stack.size() < 2) return Escaped(p.call_site);
  std::string cell = absl::StrCat("<details class=\"stack\"><summary>",
                                  Escaped(p.call_site), "</summary><ol>");
  for (const std::string& frame : p.call_stack) {
    absl::StrAppend(&cell, "<li>", Escaped(frame), "</li>");
  }
  cell.append("</ol></details>");
  return cell;
}

void AppendSyncTable(const Report& r, std::string* out) {
  out->append(
      "<table class=\"num\" id=\"sync-points\"><tr><th>call</th><th>kind</th>"
      "<th>reason</th><th>call site</th><th>count</th><th>blocked</th>"
      "<th>share of wall</th><th>GPU idle after</th></tr>");
  for (const SyncPoint& p : r.sync_points) {
    absl::StrAppend(out, "<tr data-blocked-ns=\"", p.blocked_ns, "\"><td>",
                    Escaped(p.api), "</td><td>", SyncKindName(p.kind),
                    p.blocks_host ? "" : " (device-side)", "</td><td>",
                    Escaped(p.reason), "</td><td class=\"name\">",
                    CallSiteCell(p), "</td><td>", p.count, "</td><td>",
                    common::FormatDuration(p.blocked_ns), "</td><td>",
                    common::FormatPercent(p.wall_share), "</td><td>",
                    common::FormatDuration(p.idle_after_ns), "</td></tr>");
  }
  if (r.sync_points.empty()) {
    out->append("<tr><td colspan=\"8\">no blocking calls</td></tr>");
  }
  out->append("</table>");
  absl::StrAppend(out, "<p class=\"note\">", r.timeline.sync_calls,
                  " blocking calls in the window; the timeline marks the ",
                  r.timeline.syncs.size(), " longest. ", r.gpu_side_waits,
                  " GPU-side waits (cudaStreamWaitEvent) are not host "
                  "blocks.</p>");
}

void AppendCopyTable(const Report& r, std::string* out) {
  const CopyReport& c = r.copies;
  absl::StrAppend(out, "<p>", c.count, " copies, ",
                  common::FormatBytes(c.bytes), ", ",
                  common::FormatDuration(c.time_ns), "; pageable ",
                  common::FormatPercent(c.pageable_share), " of bytes. Link: ");
  if (c.link_known) {
    absl::StrAppend(out, "PCIe gen ", Num(c.link_gen, 1), " x", c.link_width,
                    ", ", Num(c.link_theoretical_gbps, 1),
                    " GB/s per direction (theoretical).</p>");
  } else {
    absl::StrAppend(out, kNotAvailable, " in this trace.</p>");
  }
  out->append(
      "<table class=\"num\" id=\"copies\"><tr><th>direction</th><th>count</th>"
      "<th>bytes</th><th>time</th><th>achieved GB/s</th><th>pageable</th>"
      "<th>share of link</th></tr>");
  for (const CopyDirectionStats& d : c.directions) {
    absl::StrAppend(
        out, "<tr><td>", Escaped(CopyDirectionName(d.direction)), "</td><td>",
        d.count, "</td><td>", common::FormatBytes(d.bytes), "</td><td>",
        common::FormatDuration(d.time_ns), "</td><td>", Num(d.achieved_gbps, 2),
        "</td><td>", common::FormatPercent(d.pageable_share), "</td><td>",
        d.link_share ? common::FormatPercent(*d.link_share)
                     : std::string(kNotAvailable),
        "</td></tr>");
  }
  if (c.directions.empty())
    out->append("<tr><td colspan=\"7\">no copies</td></tr>");
  out->append("</table>");
}

void AppendThreadRow(const ThreadReport& t, std::string* out) {
  auto share = [&](double v) {
    return t.samples ? common::FormatPercent(v) : std::string(kNotAvailable);
  };
  absl::StrAppend(
      out, "<tr><td class=\"name\">",
      Escaped(ThreadLabel(t.pid, t.tid, t.name)), "</td><td>", t.api_calls,
      "</td><td>", common::FormatDuration(t.cuda_api_ns), "</td><td>",
      common::FormatDuration(t.sync_blocked_ns), "</td><td>",
      t.samples ? common::FormatDuration(t.cpu_user_ns + t.cpu_system_ns)
                : std::string(kNotAvailable),
      "</td><td>", share(t.cpu_share), "</td><td>", share(t.running_share),
      "</td><td>", share(t.disk_wait_share), "</td></tr>");
}

void AppendHostTables(const Report& r, std::string* out) {
  const HostReport& h = r.host;
  constexpr const char* kHead =
      "<tr><th>thread (pid/tid)</th><th>CUDA calls</th><th>in CUDA calls</th>"
      "<th>blocked in syncs</th><th>CPU time</th><th>CPU share</th>"
      "<th>running</th><th>D-state</th></tr>";
  absl::StrAppend(out, "<table class=\"num\" id=\"threads\">", kHead);
  for (const ThreadReport& t : h.threads) AppendThreadRow(t, out);
  if (h.threads.empty())
    out->append("<tr><td colspan=\"8\">no threads</td></tr>");
  out->append("</table>");
  if (!h.profiler_threads.empty()) {
    absl::StrAppend(out,
                    "<h3>Profiler threads (overhead, not the program)</h3>",
                    "<table class=\"num\">", kHead);
    for (const ThreadReport& t : h.profiler_threads) AppendThreadRow(t, out);
    out->append("</table>");
  }
  out->append(
      "<h3>Worker processes</h3><table class=\"num\" id=\"workers\"><tr>"
      "<th>pid</th><th>parent</th><th>command</th><th>CPU user</th>"
      "<th>CPU sys</th></tr>");
  for (const WorkerProcess& p : h.workers) {
    absl::StrAppend(
        out, "<tr><td>", p.pid, "</td><td>", p.ppid, "</td><td class=\"name\">",
        Escaped(Cut(p.command, 120)), "</td><td>",
        p.samples ? common::FormatDuration(p.cpu_user_ns) : kNotAvailable,
        "</td><td>",
        p.samples ? common::FormatDuration(p.cpu_system_ns) : kNotAvailable,
        "</td></tr>");
  }
  if (h.workers.empty()) {
    out->append("<tr><td colspan=\"5\">no worker processes</td></tr>");
  }
  out->append("</table>");
  if (h.dataloader_ranges > 0) {
    absl::StrAppend(out, "<p class=\"note\">", h.dataloader_ranges,
                    " DataLoader ranges, ",
                    common::FormatDuration(h.dataloader_ns), " in total.</p>");
  }
}

// Per step, the rank the others waited for most: a row per step, at most
// the first and last kStepRows / 2.
void AppendStepStragglers(const Straggler& s, std::string* out) {
  if (s.steps.empty()) return;
  constexpr size_t kStepRows = 16;
  out->append(
      "<table class=\"num\" id=\"step-stragglers\"><tr><th>step</th>"
      "<th>waited for</th><th>each other rank waited</th>"
      "<th>its step started late by</th></tr>");
  for (size_t i = 0; i < s.steps.size(); ++i) {
    if (s.steps.size() > kStepRows && i == kStepRows / 2) {
      absl::StrAppend(out, "<tr><td colspan=\"4\">\xE2\x80\xA6 ",
                      s.steps.size() - kStepRows, " more steps</td></tr>");
      i = s.steps.size() - kStepRows / 2;
    }
    const StepStraggler& st = s.steps[i];
    absl::StrAppend(out, "<tr><td>", st.step, "</td><td>",
                    st.rank >= 0 ? absl::StrCat("rank ", st.rank)
                                 : absl::StrCat("pid ", st.pid),
                    "</td><td>", common::FormatDuration(st.wait_ns),
                    "</td><td>", common::FormatDuration(st.late_start_ns),
                    "</td></tr>");
  }
  out->append("</table>");
}

void AppendRankTable(const Report& r, std::string* out) {
  // Communication columns only where a rank ran collective kernels; wait
  // columns where collectives were matched across ranks.
  const bool communication =
      std::any_of(r.ranks.begin(), r.ranks.end(),
                  [](const auto& k) { return k.communication_ns > 0; });
  const bool waits = r.collectives.available && r.collectives.clocks_aligned;
  const bool verdicts =
      std::any_of(r.ranks.begin(), r.ranks.end(),
                  [](const auto& k) { return k.verdict.has_value(); });
  const CollectivesReport& c = r.collectives;
  if (c.available) {
    absl::StrAppend(
        out, "<p class=\"note\" id=\"collectives\">", c.matched,
        " collectives matched across ", c.ranks, " ranks",
        c.unaligned > 0 ? absl::StrCat(" (", c.unaligned, " not lining up)")
                        : "",
        "; their ends lie within ",
        common::FormatDuration(c.median_end_spread_ns), " (median). ",
        c.clocks_aligned
            ? absl::StrCat(
                  "The ranks waited ", common::FormatDuration(c.wait_ns),
                  " in them for later ranks (",
                  common::FormatPercent(c.wait_share), " of their time).")
            : "The ranks' clocks could not be aligned: no waits are shown.",
        "</p>");
  }
  if (!r.straggler.explanation.empty()) {
    absl::StrAppend(out, "<p id=\"straggler\"><b>Waited for:</b> ",
                    Escaped(r.straggler.explanation), "</p>");
  }
  absl::StrAppend(
      out,
      "<table class=\"num\" id=\"ranks\"><tr><th>rank</th><th>pids</th>"
      "<th>span</th><th>busy</th><th>idle share</th><th>median step</th>"
      "<th>blocked in syncs</th>",
      communication ? "<th>communication</th><th>exposed communication</th>"
                    : "",
      waits ? "<th>waited in collectives</th><th>last at</th>"
              "<th>others waited for it</th>"
            : "",
      verdicts ? "<th>own verdict</th>" : "", "</tr>");
  const bool straggler_named = !r.straggler.pids.empty();
  for (const RankReport& k : r.ranks) {
    std::string pids;
    for (int32_t pid : k.pids) {
      absl::StrAppend(&pids, pids.empty() ? "" : ", ", pid);
    }
    // The rank waited for, where the collectives name one; else the
    // slowest.
    const bool slowest = k.slowest && !straggler_named;
    absl::StrAppend(
        out, "<tr",
        k.straggler
            ? " class=\"straggler\" data-straggler=\"true\""
            : (slowest ? " class=\"slowest\" data-slowest=\"true\"" : ""),
        "><td>", k.rank >= 0 ? std::to_string(k.rank) : std::string("no rank"),
        k.straggler ? " <b>waited for</b>" : (slowest ? " <b>slowest</b>" : ""),
        "</td><td>", pids, "</td><td>", common::FormatDuration(k.span_ns),
        "</td><td>", common::FormatDuration(k.busy_ns), "</td><td>",
        common::FormatPercent(k.idle_share), "</td><td>",
        k.median_step_ns > 0 ? common::FormatDuration(k.median_step_ns)
                             : std::string(kNotAvailable),
        "</td><td>", common::FormatDuration(k.sync_blocked_ns), "</td>",
        communication
            ? absl::StrCat("<td>", common::FormatDuration(k.communication_ns),
                           "</td><td>",
                           common::FormatDuration(k.exposed_communication_ns),
                           "</td>")
            : "",
        waits
            ? absl::StrCat("<td>", common::FormatDuration(k.collective_wait_ns),
                           "</td><td>", k.arrived_last, " of ", k.collectives,
                           "</td><td>",
                           common::FormatDuration(k.caused_wait_ns), "</td>")
            : "",
        verdicts ? absl::StrCat("<td>", VerdictClassName(k.verdict), "</td>")
                 : "",
        "</tr>");
  }
  out->append("</table>");
  AppendStepStragglers(r.straggler, out);
}

void AppendFacts(const Report& r, std::string* out) {
  const Availability& a = r.available;
  auto yes_no = [](bool b) { return b ? "yes" : "no"; };
  absl::StrAppend(
      out, "<table class=\"kv\" id=\"facts\"><tr><th>source</th><td>",
      Escaped(r.source_path), " (", Escaped(SourceFormatName(r.source_format)),
      ", ", r.events, " events)</td></tr><tr><th>window</th><td>",
      common::FormatDuration(r.window.start - r.window.trace_start),
      " \xE2\x80\x93 ",
      common::FormatDuration(r.window.end - r.window.trace_start),
      " after trace start", r.window.restricted ? " (restricted)" : "",
      r.rank_filter ? absl::StrCat(", rank ", *r.rank_filter) : "",
      "</td></tr><tr><th>timeline buckets</th><td>", r.timeline.buckets,
      " \xC3\x97 ", common::FormatDuration(r.timeline.bucket_ns), "</td></tr>");
  for (const DeviceReport& d : r.devices) {
    absl::StrAppend(
        out, "<tr><th>", Escaped(DeviceLabel(d)), "</th><td>",
        d.name.empty() ? std::string("name unknown") : Escaped(d.name),
        "</td></tr>");
  }
  absl::StrAppend(
      out, "<tr><th>PCIe link</th><td>",
      r.copies.link_known
          ? absl::StrCat("gen ", Num(r.copies.link_gen, 1), " x",
                         r.copies.link_width, ", ",
                         Num(r.copies.link_theoretical_gbps, 1), " GB/s")
          : std::string(kNotAvailable),
      "</td></tr><tr><th>trace holds</th><td>API calls ", yes_no(a.api_calls),
      ", correlation ", yes_no(a.correlation), ", sync records ",
      yes_no(a.sync_records), ", host CPU samples ", yes_no(a.host_samples),
      ", system samples ", yes_no(a.system_samples), ", call sites ",
      yes_no(a.call_sites), ", GPU counters ", yes_no(a.gpu_counters),
      ", ranges ", yes_no(a.ranges), "</td></tr><tr><th>dropped</th><td>",
      r.drops.events_dropped, " events, ", r.drops.cupti_records_dropped,
      " CUPTI records, ", r.drops.samples_dropped, " samples, ",
      r.drops.zero_timestamp_records, " zero-timestamp records</td></tr>",
      "<tr><th>profiler overhead</th><td>",
      r.host.samples_available
          ? absl::StrCat(common::FormatDuration(r.host.profiler_cpu_ns),
                         " CPU (",
                         common::FormatPercent(r.host.profiler_core_share),
                         " of one core)")
          : std::string(kNotAvailable),
      "</td></tr></table>");
}

}  // namespace

std::string WriteHtmlReport(const Report& r) {
  std::string out;
  out.reserve(256 * 1024);
  report::AppendPageStart(
      absl::StrCat("feedprof: ", VerdictClassName(r.verdict.primary),
                   " \xE2\x80\x94 ", r.source_path),
      Report::kSchema, &out);
  out.append("<h1>feedprof report</h1><div class=\"sub\">");
  AppendEscaped(r.source_path, &out);
  if (r.rank_digests > 0) {
    absl::StrAppend(&out, " \xC2\xB7 ", r.rank_digests, " rank digest",
                    r.rank_digests == 1 ? "" : "s", " of ",
                    Escaped(SourceFormatName(r.source_format)),
                    " traces</div>");
  } else {
    absl::StrAppend(
        &out, " \xC2\xB7 ", Escaped(SourceFormatName(r.source_format)),
        " \xC2\xB7 ", r.events, " events \xC2\xB7 window ",
        common::FormatDuration(r.window.end - r.window.start), "</div>");
  }

  AppendVerdictCard(r, &out);
  if (!r.warnings.empty()) {
    out.append(
        "<section class=\"card neutral\" id=\"warnings\"><b>Warnings"
        "</b><ul>");
    for (const std::string& w : r.warnings) {
      absl::StrAppend(&out, "<li>", Escaped(w), "</li>");
    }
    out.append("</ul></section>");
  }
  // A report from rank digests holds the ranks only: no events.
  if (r.rank_digests > 0) {
    out.append(
        "<h2>Ranks</h2><p class=\"note\">From rank digests: the sections "
        "that need events (devices, timeline, kernels, syncs, copies, host, "
        "the what-if) are in the report of a rank's trace.</p>");
    AppendRankTable(r, &out);
    report::AppendPageEnd(&out);
    return out;
  }
  report::AppendWhatIfSection(r, &out);
  AppendPlatformHtml(r, &out);

  out.append("<h2>Devices</h2>");
  AppendDeviceSummary(r, &out);

  // Devices with activity, at most kMaxPlottedDevices, for the plots.
  std::vector<size_t> plotted;
  IdleByCause present;
  for (size_t i = 0; i < r.devices.size(); ++i) {
    if (r.devices[i].span_ns <= 0 || plotted.size() >= kMaxPlottedDevices) {
      continue;
    }
    plotted.push_back(i);
    present += r.devices[i].idle_by_cause;
  }
  const bool timeline =
      r.timeline.buckets > 0 && r.timeline.devices.size() == r.devices.size();

  out.append("<h2>Timeline</h2>");
  if (timeline) {
    if (!plotted.empty()) {
      absl::StrAppend(
          &out, "<p class=\"note\">Each column is ",
          common::FormatDuration(r.timeline.bucket_ns),
          " of the run: the share of it the GPU was busy (green) and idle, "
          "coloured by why it waited. Grey background: outside the device's "
          "active span. ",
          r.steps.available ? "Thin vertical lines: step starts. " : "",
          "Hover a mark for details.</p>");
      std::vector<LegendEntry> legend = {{kBusyColor, "GPU busy"}};
      for (const LegendEntry& e : CauseLegend(present)) legend.push_back(e);
      legend.push_back({kOutsideColor, "outside the device's span"});
      AppendLegend(legend, &out);
      for (size_t i : plotted) {
        AppendDeviceTimeline(r, i, TimelineLength(r),
                             absl::StrCat("timeline-device-", i), "", &out);
      }
      AppendSyncBand(r, &out);
    }
    if (!r.timeline.threads.empty()) {
      absl::StrAppend(
          &out, "<h3>Host threads</h3><p class=\"note\">Each column is ",
          common::FormatDuration(r.timeline.bucket_ns),
          ". CPU row: "
          "share of each column on CPU (blue) and off-CPU "
          "in I/O (brown). CUDA row: share inside CUDA "
          "calls, blocked in syncs (red) or in other "
          "calls (orange). The ",
          r.timeline.threads.size(), " of ", r.timeline.threads_total,
          " threads with the most CUDA time, then CPU time.</p>");
      AppendLegend({{kCpuColor, "on CPU"},
                    {kIoColor, "off-CPU in I/O"},
                    {kSyncColor, "blocked in sync"},
                    {kApiColor, "in other CUDA calls"}},
                   &out);
      AppendThreadTimelines(r, &out);
    }
  } else {
    out.append("<p class=\"note\">No timeline: the window is empty.</p>");
  }

  if (!plotted.empty()) {
    out.append(
        "<h2>Where the idle time went</h2><p class=\"note\">Each bar "
        "is a device's span: busy, then idle time by cause.</p>");
    std::vector<LegendEntry> legend = {{kBusyColor, "GPU busy"}};
    for (const LegendEntry& e : CauseLegend(present)) legend.push_back(e);
    AppendLegend(legend, &out);
    AppendIdleByCause(r, plotted, &out);
    report::AppendIdleByCodeSection(r, &out);
    out.append("<h3>Idle gaps by length</h3>");
    for (size_t i : plotted) AppendGapHistogram(r, i, &out);
  }
  report::AppendHostCodeSection(r, &out);

  if (r.steps.available && !r.steps.steps.empty()) {
    absl::StrAppend(
        &out, "<h2>Steps</h2><p class=\"note\">", r.steps.count, " steps from ",
        Escaped(r.steps.source), "; median ",
        common::FormatDuration(r.steps.median_ns), ", p90 ",
        common::FormatDuration(r.steps.p90_ns), ", median GPU busy ",
        common::FormatPercent(r.steps.median_gpu_busy_share),
        ". Each bar is one step (dashed outline: its length): kernels, copies "
        "no kernel overlaps, then idle by cause.</p>");
    std::vector<LegendEntry> legend = {{kComputeColor, "kernels"},
                                       {kCopyColor, "copies, memsets"}};
    for (const LegendEntry& e : CauseLegend(present)) legend.push_back(e);
    AppendLegend(legend, &out);
    AppendStepBars(r, &out);
  }

  out.append("<h2>Kernels and launches</h2>");
  AppendLaunchTables(r, &out);
  out.append("<h2>Sync points</h2>");
  AppendSyncTable(r, &out);
  out.append("<h2>Copies</h2>");
  AppendCopyTable(r, &out);
  out.append("<h2>Host threads and worker processes</h2>");
  AppendHostTables(r, &out);
  report::AppendIoSection(r.io, &out);
  if (!r.ranks.empty()) {
    out.append("<h2>Ranks</h2>");
    AppendRankTable(r, &out);
  }
  out.append("<h2>Trace and platform</h2>");
  AppendFacts(r, &out);
  out.append(
      "<p class=\"note\">Made by feedprof from the same report model as "
      "<code>feedprof analyze --format json</code>.</p>");
  report::AppendPageEnd(&out);
  return out;
}

}  // namespace feedprof
