// The HTML report's what-if section (report/what_if_html.h).
//
// Each scenario is one row: its label above a bar as long as the observed
// step (dashed outline), filled with the predicted step time and, at its
// end, the saving, so a 2 % saving looks as small next to a 30 % one as it
// is. Every figure is also in a data-* attribute, exact, under the JSON
// report's names.
#include "report/what_if_html.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/units.h"
#include "report/html_page.h"
#include "report/svg_plot.h"
#include "report/what_if_wording.h"

namespace feedprof::report {
namespace {

using common::FormatDuration;
using common::FormatPercent;

constexpr const char* kPredictedColor = "#8fb3d9";
constexpr const char* kSavingColor = "#2ca02c";
constexpr const char* kSlowerColor = "#d62728";

std::string Cut(const std::string& s, size_t max_chars) {
  if (s.size() <= max_chars) return s;
  size_t cut = max_chars;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut) + "\xE2\x80\xA6";
}

// The bars: x = share of the observed step, 0 .. max(100 %, the longest
// prediction).
void AppendBars(const WhatIf& w, std::string* out) {
  constexpr int kRowH = 42;
  constexpr int kBarX = 4;
  constexpr int kBarW = 720;
  constexpr int kTop = 6;
  const double observed = static_cast<double>(w.observed_median_ns);
  double full = 1.0;
  for (const WhatIfScenario& s : w.scenarios) {
    full =
        std::max(full, static_cast<double>(s.predicted_median_ns) / observed);
  }
  const int height = kTop + static_cast<int>(w.scenarios.size()) * kRowH + 24;
  absl::StrAppend(out, "<svg class=\"plot\" data-plot=\"what-if\" width=\"",
                  kWidth, "\" height=\"", height, "\" viewBox=\"0 0 ", kWidth,
                  " ", height, "\">");
  auto x_of = [&](double share) { return kBarX + share / full * kBarW; };
  int y = kTop;
  for (const WhatIfScenario& s : w.scenarios) {
    const std::string label = WhatIfScenarioLabel(s);
    out->append("<g><title>");
    AppendEscaped(
        absl::StrCat(
            label, ": predicted ",
            common::FormatDuration(s.predicted_median_ns), " median (observed ",
            common::FormatDuration(w.observed_median_ns), "), saving ",
            common::FormatDuration(s.saving_ns), " (",
            common::FormatPercent(s.saving_share), "); ", s.assumption),
        out);
    out->append("</title>");
    Text(out, kBarX, y + 14, Cut(label, 140), " class=\"row-label\"");
    const double bar_y = y + 20;
    const double predicted =
        static_cast<double>(s.predicted_median_ns) / observed;
    // The observed step as an outline, the prediction filled inside it.
    absl::StrAppend(out, "<rect class=\"step\" x=\"", kBarX, "\" y=\"",
                    Num(bar_y), "\" width=\"", Num(x_of(1.0) - kBarX, 2),
                    "\" height=\"16\"/>");
    absl::StrAppend(out, "<rect x=\"", kBarX, "\" y=\"", Num(bar_y),
                    "\" width=\"",
                    Num(x_of(std::min(predicted, 1.0)) - kBarX, 2),
                    "\" height=\"16\" fill=\"", kPredictedColor, "\"/>");
    if (predicted < 1.0) {
      absl::StrAppend(out, "<rect x=\"", Num(x_of(predicted), 2), "\" y=\"",
                      Num(bar_y), "\" width=\"",
                      Num(x_of(1.0) - x_of(predicted), 2),
                      "\" height=\"16\" fill=\"", kSavingColor, "\"/>");
    } else if (predicted > 1.0) {
      absl::StrAppend(out, "<rect x=\"", Num(x_of(1.0), 2), "\" y=\"",
                      Num(bar_y), "\" width=\"",
                      Num(x_of(predicted) - x_of(1.0), 2),
                      "\" height=\"16\" fill=\"", kSlowerColor, "\"/>");
    }
    const std::string figure =
        s.edits == 0
            ? std::string("nothing to change")
            : absl::StrCat(s.saving_ns >= 0 ? "saves " : "adds ",
                           common::FormatDuration(std::abs(s.saving_ns)), " (",
                           common::FormatPercent(std::abs(s.saving_share)),
                           ") \xE2\x86\x92 ",
                           common::FormatDuration(s.predicted_median_ns));
    Text(out, x_of(full) + 12, bar_y + 13, figure, " class=\"row-sub\"");
    out->append("</g>");
    y += kRowH;
  }
  // The axis: shares of the observed step.
  absl::StrAppend(out, "<g class=\"axis\"><path d=\"M", kBarX, " ", y + 2, "H",
                  Num(x_of(full)), "\"/>");
  for (int pct = 0; pct <= static_cast<int>(full * 100 + 1e-9); pct += 25) {
    const double x = x_of(pct / 100.0);
    absl::StrAppend(out, "<path d=\"M", Num(x), " ", y + 2, "v4\"/>");
    Text(out, x, y + 18, absl::StrCat(pct, "%"),
         pct == 0 ? " class=\"tick\""
                  : " text-anchor=\"middle\" class=\"tick\"");
  }
  out->append("</g></svg>");
}

void AppendScenarioTable(const WhatIf& w, std::string* out) {
  out->append(
      "<table class=\"num\" id=\"what-if-scenarios\"><tr><th>scenario</th>"
      "<th>predicted median</th><th>predicted mean</th><th>saving</th>"
      "<th>share of the step</th><th>edits</th><th>assumes</th></tr>");
  for (const WhatIfScenario& s : w.scenarios) {
    absl::StrAppend(
        out, "<tr data-scenario=\"", Escaped(WhatIfScenarioName(s.id)),
        "\" data-sync-api=\"", Escaped(s.sync_api), "\" data-sync-call-site=\"",
        Escaped(s.sync_call_site), "\" data-predicted-median-ns=\"",
        s.predicted_median_ns, "\" data-predicted-mean-ns=\"",
        s.predicted_mean_ns, "\" data-saving-ns=\"", s.saving_ns,
        "\" data-saving-share=\"", ExactNum(s.saving_share), "\" data-edits=\"",
        s.edits, "\"><td class=\"scenario\">", Escaped(WhatIfScenarioLabel(s)),
        "</td><td>", common::FormatDuration(s.predicted_median_ns), "</td><td>",
        common::FormatDuration(s.predicted_mean_ns), "</td><td>",
        common::FormatDuration(s.saving_ns), "</td><td>",
        common::FormatPercent(s.saving_share), "</td><td>", s.edits,
        "</td><td>", Escaped(s.assumption), "</td></tr>");
  }
  out->append("</table>");
}

void AppendRankTable(const WhatIf& w, std::string* out) {
  bool any = false;
  for (const WhatIfScenario& s : w.scenarios) any |= s.ranks.size() > 1;
  if (!any) return;
  absl::StrAppend(
      out, "<h3>Per process</h3><p class=\"note\">",
      w.coupled_ranks
          ? "Each process replayed alone, its collectives as long as "
            "recorded (waits for the others included). The job's figure "
            "above couples the ranks at their collectives: each one's "
            "predicted time less its waits, the slowest of those, so a "
            "change on the rank the others wait for shortens every step."
          : "The run's figure above is the slowest process's.",
      "</p><table class=\"num\" id=\"what-if-ranks\"><tr>"
      "<th>scenario</th><th>process</th><th>observed median</th>"
      "<th>predicted median</th><th>observed mean</th><th>predicted mean</th>",
      w.coupled_ranks ? "<th>waits at collectives</th>" : "", "</tr>");
  for (const WhatIfScenario& s : w.scenarios) {
    if (s.ranks.size() <= 1) continue;
    for (size_t i = 0; i < s.ranks.size(); ++i) {
      const WhatIfRank& k = s.ranks[i];
      absl::StrAppend(
          out, "<tr data-scenario=\"", Escaped(WhatIfScenarioName(s.id)),
          "\" data-pid=\"", k.pid, "\" data-rank=\"", k.rank,
          "\" data-predicted-median-ns=\"", k.predicted_median_ns, "\">");
      if (i == 0) {
        absl::StrAppend(out, "<td class=\"scenario\" rowspan=\"",
                        s.ranks.size(), "\">", Escaped(WhatIfScenarioLabel(s)),
                        "</td>");
      }
      absl::StrAppend(
          out, "<td>",
          k.rank >= 0 ? absl::StrCat("rank ", k.rank, " (pid ", k.pid, ")")
                      : absl::StrCat("pid ", k.pid),
          "</td><td>", common::FormatDuration(k.observed_median_ns),
          "</td><td>", common::FormatDuration(k.predicted_median_ns),
          "</td><td>", common::FormatDuration(k.observed_mean_ns), "</td><td>",
          common::FormatDuration(k.predicted_mean_ns), "</td>",
          w.coupled_ranks
              ? absl::StrCat("<td>",
                             common::FormatDuration(k.collective_wait_ns),
                             "</td>")
              : "",
          "</tr>");
    }
  }
  out->append("</table>");
}

}  // namespace

void AppendWhatIfSection(const Report& r, std::string* out) {
  const WhatIf& w = r.what_if;
  if (!w.available) {
    if (w.unavailable_reason.empty()) return;
    absl::StrAppend(out,
                    "<h2>What each next step is worth</h2><section "
                    "id=\"what-if\" data-available=\"false\" data-reason=\"",
                    Escaped(w.unavailable_reason),
                    "\"><p class=\"note\">No estimates for this trace: ",
                    Escaped(w.unavailable_reason), ".</p></section>");
    return;
  }
  absl::StrAppend(
      out,
      "<h2>What each next step is worth</h2><section id=\"what-if\" "
      "data-available=\"true\" data-basis=\"",
      Escaped(WhatIfBasisName(w.basis)), "\" data-steps=\"", w.steps,
      "\" data-observed-median-ns=\"", w.observed_median_ns,
      "\" data-observed-mean-ns=\"", w.observed_mean_ns,
      "\" data-replayed-median-ns=\"", w.replayed_median_ns,
      "\" data-self-check-error=\"", ExactNum(w.self_check_error), "\">");
  const bool steps = w.basis == WhatIfBasis::kSteps;
  absl::StrAppend(
      out,
      "<p class=\"estimate\"><b>Estimates, not measurements.</b> The run "
      "replayed from its trace with one change at a time; ",
      Escaped(WhatIfBasis(w)), ". Observed ",
      steps
          ? absl::StrCat(
                "median ", common::FormatDuration(w.observed_median_ns),
                " (mean ", common::FormatDuration(w.observed_mean_ns), ")")
          : absl::StrCat("span ", common::FormatDuration(w.observed_median_ns)),
      "; the unchanged replay gives ",
      common::FormatDuration(w.replayed_median_ns), " (self-check error ",
      common::FormatPercent(w.self_check_error), ").</p>");
  if (w.scenarios.empty() || w.observed_median_ns <= 0) {
    out->append("<p class=\"note\">No scenario applies to this run.</p>");
  } else {
    std::vector<LegendEntry> legend = {{kPredictedColor, "predicted step time"},
                                       {kSavingColor, "saving"}};
    for (const WhatIfScenario& s : w.scenarios) {
      if (s.predicted_median_ns <= w.observed_median_ns) continue;
      legend.push_back({kSlowerColor, "slower than observed"});
      break;
    }
    AppendLegend(legend, out);
    absl::StrAppend(out,
                    "<p class=\"note\">Each bar is the observed step (dashed "
                    "outline, 100%): the predicted step time if the change "
                    "were made, then what it saves.</p>");
    AppendBars(w, out);
    AppendScenarioTable(w, out);
    AppendRankTable(w, out);
  }
  out->append("<h3>Assumptions</h3><ul class=\"assumptions\">");
  for (const std::string& a : WhatIfAssumptions(w)) {
    absl::StrAppend(out, "<li>", Escaped(a), "</li>");
  }
  absl::StrAppend(out, "<li>", Escaped(kWhatIfIgnores), "</li></ul></section>");
}

std::string NextStepEstimateData(const Verdict& v, size_t step) {
  for (const NextStepEstimate& e : v.next_step_estimates) {
    if (e.step != step) continue;
    return absl::StrCat(
        " data-scenario=\"", Escaped(WhatIfScenarioName(e.scenario)),
        "\" data-saving-ns=\"", e.saving_ns, "\" data-saving-share=\"",
        ExactNum(e.saving_share), "\"",
        e.no_saving_reason.empty() ? "" : " data-no-saving=\"true\"");
  }
  return "";
}

}  // namespace feedprof::report
