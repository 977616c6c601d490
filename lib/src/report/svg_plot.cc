// SVG building blocks for the HTML report (see svg_plot.h).
#include "report/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <span>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/utf8.h"

namespace feedprof::report {

void AppendEscaped(std::string_view text, std::string* out) {
  std::string repaired;
  if (!common::IsValidUtf8(text)) {
    common::AppendRepairedUtf8(text, &repaired);
    text = repaired;
  }
  for (char c : text) {
    switch (c) {
      case '&':
        out->append("&amp;");
        break;
      case '<':
        out->append("&lt;");
        break;
      case '>':
        out->append("&gt;");
        break;
      case '"':
        out->append("&quot;");
        break;
      case '\'':
        out->append("&#39;");
        break;
      default:
        // Control characters other than tab and newline have no place in
        // HTML text; show them as U+FFFD.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n') {
          out->append("\xEF\xBF\xBD");
        } else {
          out->push_back(c);
        }
    }
  }
}

std::string Escaped(std::string_view text) {
  std::string out;
  AppendEscaped(text, &out);
  return out;
}

std::string Num(double v, int decimals) {
  std::string s = absl::StrFormat("%.*f", decimals, v);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

std::string ExactNum(double v) { return absl::StrFormat("%.17g", v); }

namespace {

// The smallest 1, 2 or 5 × 10^k at least `least`.
double RoundStep(double least) {
  if (least <= 1) return 1;
  double decade = std::pow(10.0, std::floor(std::log10(least)));
  for (;;) {
    for (double m : {1.0, 2.0, 5.0}) {
      if (m * decade >= least * (1 - 1e-12)) return m * decade;
    }
    decade *= 10;
  }
}

void PickUnit(double step_ns, TimeAxis* axis) {
  if (step_ns >= 1e9) {
    axis->scale = 1e9;
    axis->unit = "s";
  } else if (step_ns >= 1e6) {
    axis->scale = 1e6;
    axis->unit = "ms";
  } else if (step_ns >= 1e3) {
    axis->scale = 1e3;
    axis->unit = "\xC2\xB5s";
  } else {
    axis->scale = 1;
    axis->unit = "ns";
  }
}

// From 1000 s on (where FormatDuration leaves seconds) ticks in seconds
// would read "1600000": such axes are labelled in minutes, hours or days,
// the largest unit the span holds at least kLongUnitsInSpan times, with
// steps a person would draw in that unit. Past a unit's last step, the
// last step × 1, 2 or 5 × 10^k.
constexpr double kLongAxisFromNs = 1e12;
constexpr double kLongUnitsInSpan = 3;
constexpr double kMinuteSteps[] = {1, 2, 5, 10, 15, 30, 60};
constexpr double kHourSteps[] = {0.25, 0.5, 1, 2, 3, 6, 12, 24};
constexpr double kDaySteps[] = {0.25, 0.5, 1, 2, 5, 7, 10};
struct LongUnit {
  double ns;
  const char* name;
  std::span<const double> steps;
};
constexpr LongUnit kLongUnits[] = {{60e9, "min", kMinuteSteps},
                                   {3600e9, "h", kHourSteps},
                                   {86400e9, "d", kDaySteps}};

// The smallest of `unit`'s steps at least `least` (in that unit).
double StepInUnit(const LongUnit& unit, double least) {
  for (double step : unit.steps) {
    if (step >= least * (1 - 1e-12)) return step;
  }
  const double last = unit.steps.back();
  return last * RoundStep(least / last);
}

// The tick step (ns) for an axis `span_ns` long with at most `max_ticks`
// steps; sets the unit its labels are written in.
double PickStep(double span_ns, int max_ticks, TimeAxis* axis) {
  const double least = span_ns / std::max(1, max_ticks);
  if (span_ns < kLongAxisFromNs) {
    const double step = RoundStep(least);
    PickUnit(step, axis);
    return step;
  }
  const LongUnit* unit = &kLongUnits[0];
  for (const LongUnit& u : kLongUnits) {
    if (span_ns >= kLongUnitsInSpan * u.ns) unit = &u;
  }
  axis->scale = unit->ns;
  axis->unit = unit->name;
  return unit->ns * StepInUnit(*unit, least / unit->ns);
}

// Decimals needed to tell ticks `step` apart in `scale` units.
int DecimalsFor(double step_ns, double scale) {
  const double step = step_ns / scale;
  int decimals = 0;
  while (decimals < 6 &&
         std::abs(step * std::pow(10.0, decimals) -
                  std::round(step * std::pow(10.0, decimals))) > 1e-6) {
    ++decimals;
  }
  return decimals;
}

}  // namespace

TimeAxis MakeTimeAxis(TimeNs offset_ns, TimeNs length_ns, int max_ticks) {
  TimeAxis axis;
  if (length_ns <= 0) return axis;
  const double step =
      PickStep(static_cast<double>(length_ns), max_ticks, &axis);
  const int decimals = DecimalsFor(step, axis.scale);
  const double offset = static_cast<double>(offset_ns);
  const double first = std::ceil(offset / step) * step;
  for (double t = first; t - offset <= static_cast<double>(length_ns) + 1e-9;
       t += step) {
    axis.ticks_ns.push_back(t - offset);
    axis.labels.push_back(absl::StrFormat("%.*f", decimals, t / axis.scale));
  }
  return axis;
}

TimeAxis MakeDurationAxis(TimeNs max_ns, int max_ticks) {
  TimeAxis axis;
  if (max_ns <= 0) return axis;
  const double step = PickStep(static_cast<double>(max_ns), max_ticks, &axis);
  const int decimals = DecimalsFor(step, axis.scale);
  for (double t = 0; t <= static_cast<double>(max_ns) + 1e-9; t += step) {
    axis.ticks_ns.push_back(t);
    axis.labels.push_back(absl::StrFormat("%.*f", decimals, t / axis.scale));
  }
  return axis;
}

void AppendStackedArea(const std::vector<AreaLayer>& layers, size_t buckets,
                       std::string* out) {
  for (size_t i = layers.size(); i-- > 0;) {
    const AreaLayer& layer = layers[i];
    absl::StrAppend(out, "<path fill=\"", layer.color, "\" d=\"M0 1000");
    // Run-length: a horizontal run ends only where the height changes.
    int32_t y = 1000;
    const size_t n = std::min(buckets, layer.permille.size());
    for (size_t k = 0; k < n; ++k) {
      const int32_t top = 1000 - std::clamp(layer.permille[k], 0, 1000);
      if (top == y) continue;
      if (k > 0) absl::StrAppend(out, "H", k);
      absl::StrAppend(out, "V", top);
      y = top;
    }
    absl::StrAppend(out, "H", n, "V1000Z\"/>");
  }
}

void AppendLegend(const std::vector<LegendEntry>& entries, std::string* out) {
  out->append("<div class=\"legend\">");
  for (const LegendEntry& e : entries) {
    absl::StrAppend(out, "<span><i style=\"background:", e.color, "\"></i>");
    AppendEscaped(e.label, out);
    out->append("</span>");
  }
  out->append("</div>");
}

}  // namespace feedprof::report
