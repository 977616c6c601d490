// The HTML report's code-location sections (report/code_location_html.h).
//
// Like the rest of the page they draw model fields and compute nothing:
// the idle bars are the model's rows scaled to pixels, the icicle the
// role's folded stacks merged (icicle_svg.cc). Locations come from the
// trace and hold '<', '>' and '&' ("<module>", "<built-in method …>"):
// every one is escaped.
#include "report/code_location_html.h"

#include <algorithm>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "common/units.h"
#include "report/html_page.h"
#include "report/icicle_svg.h"
#include "report/svg_plot.h"

namespace feedprof::report {
namespace {

using common::FormatDuration;
using common::FormatPercent;

// The idle bars: the location (cut to fit, whole in the tooltip), then a
// bar on a track as long as the GPU's wait for the host, then the figures.
constexpr int kRowH = 22;
constexpr int kLabelW = 560;
constexpr int kTrackX = 570;
constexpr int kTrackW = 330;
constexpr int kFiguresX = kTrackX + kTrackW + 10;

void AppendIdleBars(const IdleByCode& c, std::string* out) {
  const int height = static_cast<int>(c.top.size()) * kRowH + 8;
  absl::StrAppend(out,
                  "<svg class=\"plot\" data-plot=\"idle-by-code\" width=\"",
                  kWidth, "\" height=\"", height, "\" viewBox=\"0 0 ", kWidth,
                  " ", height, "\"><style>", kCodeLabelCss, "</style>");
  const double full = static_cast<double>(std::max<TimeNs>(1, c.host_wait_ns));
  int y = 4;
  for (const CodeIdle& row : c.top) {
    absl::StrAppend(out, "<g data-location-idle-ns=\"", row.idle_ns,
                    "\" data-idle-share=\"", ExactNum(row.idle_share),
                    "\"><title>");
    AppendEscaped(absl::StrCat(row.location, " \xE2\x80\x94 ",
                               FormatDuration(row.idle_ns), " of GPU idle (",
                               FormatPercent(row.idle_share), ")"),
                  out);
    out->append("</title>");
    Text(out, 4, y + 15, FitCodeLabel(ShortLocation(row.location), kLabelW),
         " class=\"code\"");
    absl::StrAppend(out, "<rect x=\"", kTrackX, "\" y=\"", y + 3, "\" width=\"",
                    kTrackW, "\" height=\"", kRowH - 6, "\" fill=\"",
                    kOutsideColor, "\"/>");
    const double w =
        std::min(1.0, static_cast<double>(row.idle_ns) / full) * kTrackW;
    absl::StrAppend(out, "<rect x=\"", kTrackX, "\" y=\"", y + 3, "\" width=\"",
                    Num(std::max(w, 1.0), 2), "\" height=\"", kRowH - 6,
                    "\" fill=\"", BoxColourHex(BoxColour::kUser), "\"/>");
    Text(out, kFiguresX, y + 15,
         absl::StrCat(FormatDuration(row.idle_ns), " \xC2\xB7 ",
                      FormatPercent(row.idle_share), " of idle"),
         " class=\"tick\"");
    out->append("</g>");
    y += kRowH;
  }
  out->append("</svg>");
}

const char* RoleTitle(ThreadRole role) {
  switch (role) {
    case ThreadRole::kLaunching:
      return "the launching threads";
    case ThreadRole::kDataLoader:
      return "the DataLoader threads and workers";
    case ThreadRole::kOther:
      break;
  }
  return "the other threads";
}

std::string Swatch(BoxColour kind) {
  return absl::StrCat("<i class=\"sw\" style=\"background:", BoxColourHex(kind),
                      "\"></i>");
}

void AppendIcicleNote(const IcicleSummary& s, std::string* out) {
  std::string note =
      absl::StrCat("Boxes shorter than ", Num(kIcicleMinShare * 100, 1),
                   " % of the width are not drawn");
  if (s.box_cap) {
    absl::StrAppend(&note, ", and at most ", kIcicleMaxBoxes,
                    " boxes are: here the shortest drawn is ",
                    FormatDuration(s.min_ns));
  }
  if (s.narrow == 0) {
    note.append(" (none here).");
  } else {
    absl::StrAppend(&note, " (", s.narrow, s.narrow == 1 ? " frame" : " frames",
                    " left out).");
  }
  if (s.too_deep > 0) {
    absl::StrAppend(&note, " Stacks are cut at ", kIcicleRows,
                    " rows: ", s.too_deep,
                    s.too_deep == 1 ? " stack goes" : " stacks go", " deeper.");
  }
  absl::StrAppend(out, "<p class=\"note\" data-boxes=\"", s.boxes,
                  "\" data-narrow=\"", s.narrow, "\" data-too-deep=\"",
                  s.too_deep, "\">", note, "</p>");
}

void AppendRole(const RoleCodeProfile& role, const HostCode& code,
                std::string* out) {
  const char* name = ThreadRoleName(role.role);
  absl::StrAppend(out, "<div class=\"role-code\" id=\"code-", name,
                  "\" data-role=\"", name, "\" data-threads=\"", role.threads,
                  "\" data-located-ns=\"", role.located_ns, "\">");
  absl::StrAppend(
      out, "<h3>Where ", RoleTitle(role.role), " spent their time</h3>",
      "<p class=\"note\">", role.threads,
      role.threads == 1 ? " thread, " : " threads, ",
      FormatDuration(role.located_ns),
      code.basis == CodeProfileBasis::kStackSamples
          ? " of sampled CPU time"
          : " of wall time in traced code",
      ". Each box is a frame, as wide as its time on the stack; the frames "
      "it called are below it, the space to the right of them is its own "
      "time. Hover a box for its location and time.</p>");
  const IcicleSummary summary =
      AppendIcicle(role, code.frames, absl::StrCat("icicle-", name), out);
  AppendIcicleNote(summary, out);

  out->append(
      "<div class=\"code-tables\"><table class=\"num\"><tr><th>location "
      "(most self time first)</th><th>self</th><th>total</th></tr>");
  for (const CodeLocationTime& row : role.top) {
    absl::StrAppend(
        out, "<tr data-self-ns=\"", row.self_ns, "\" data-total-ns=\"",
        row.total_ns, "\"", row.user_code ? " data-user-code=\"true\"" : "",
        "><td class=\"name\">", Swatch(ColourOf(row.kind)),
        Escaped(row.location), "</td><td>", FormatDuration(row.self_ns),
        "</td><td>", FormatDuration(row.total_ns), "</td></tr>");
  }
  if (role.top.empty()) {
    out->append("<tr><td colspan=\"3\">no locations</td></tr>");
  }
  out->append("</table>");
  if (!role.user_lines.empty()) {
    out->append(
        "<table class=\"num\"><tr><th>the user's line (innermost of the "
        "user's code on the stack)</th><th>time</th><th>share</th></tr>");
    for (const CodeLocationTime& row : role.user_lines) {
      absl::StrAppend(
          out, "<tr data-user-line-ns=\"", row.self_ns,
          "\"><td class=\"name\">", Escaped(row.location), "</td><td>",
          FormatDuration(row.self_ns), "</td><td>",
          FormatPercent(role.located_ns > 0
                            ? static_cast<double>(row.self_ns) /
                                  static_cast<double>(role.located_ns)
                            : 0),
          "</td></tr>");
    }
    out->append("</table>");
  }
  out->append("</div></div>");
}

}  // namespace

void AppendIdleByCodeSection(const Report& report, std::string* out) {
  const IdleByCode& c = report.idle_by_code;
  if (!c.available) return;
  absl::StrAppend(out, "<section id=\"idle-by-code\" data-idle-ns=\"",
                  c.idle_ns, "\" data-host-wait-ns=\"", c.host_wait_ns,
                  "\" data-located-ns=\"", c.located_ns,
                  "\"><h3>GPU idle by code location</h3>");
  if (c.host_wait_ns <= 0 || c.top.empty()) {
    out->append(
        "<p class=\"note\">The GPU never waited for a launching thread "
        "whose code location the trace tells.</p></section>");
    return;
  }
  absl::StrAppend(
      out,
      "<p class=\"note\">Where the launching thread's code was (the "
      "innermost frame of the user's code) while the GPU waited for it. The "
      "GPU waited ",
      FormatDuration(c.host_wait_ns), " for the host (",
      FormatPercent(c.idle_ns > 0 ? static_cast<double>(c.host_wait_ns) /
                                        static_cast<double>(c.idle_ns)
                                  : 0),
      " of its ", FormatDuration(c.idle_ns), " idle), ",
      FormatDuration(c.located_ns),
      " of it at a known location; a bar's full length is that wait.</p>");
  AppendIdleBars(c, out);
  out->append("</section>");
}

void AppendHostCodeSection(const Report& report, std::string* out) {
  const HostCode& c = report.host_code;
  if (!c.available || c.roles.empty()) return;
  absl::StrAppend(out, "<section id=\"host-code\" data-basis=\"",
                  CodeProfileBasisName(c.basis),
                  "\"><h2>Where the host threads spent their time</h2>");
  out->append(
      c.basis == CodeProfileBasis::kStackSamples
          ? "<p class=\"note\">Sampled CPU time: each stack sample stands "
            "for the CPU time it sampled (the thread's CPU time since its "
            "previous sample in feedprof's own traces, the sampling period "
            "in others), so time a thread spent off the CPU (blocked, "
            "sleeping, in I/O) is not in these graphs.</p>"
          : "<p class=\"note\">Wall time in traced code: the nested Python "
            "function, operator and CUDA-call events of the trace (a PyTorch "
            "profiler trace recorded with <code>with_stack=True</code>), "
            "whether the thread ran or waited. Time outside any traced "
            "frame is not in these graphs.</p>");
  std::vector<LegendEntry> legend;
  for (const BoxColour kind :
       {BoxColour::kUser, BoxColour::kPython, BoxColour::kOperator,
        BoxColour::kCuda, BoxColour::kNative, BoxColour::kRoot}) {
    legend.push_back({BoxColourHex(kind), BoxColourLabel(kind)});
  }
  AppendLegend(legend, out);
  for (const RoleCodeProfile& role : c.roles) AppendRole(role, c, out);
  out->append("</section>");
}

}  // namespace feedprof::report
