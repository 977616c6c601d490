// Small building blocks for the HTML report's inline SVG plots: escaping,
// compact number formatting, time axes with round ticks, stacked step areas
// and legends.
//
// The report must open offline from file:// in a second even for a
// multi-hour trace, so plots are SVG written here (no script library, no
// network), and their paths are compact: a stacked area is drawn in a
// nested <svg> whose user units are buckets (x) and per-mille of a bucket
// (y), so a point costs a few characters.
#ifndef FEEDPROF_REPORT_SVG_PLOT_H_
#define FEEDPROF_REPORT_SVG_PLOT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "feedprof/timeline.h"

namespace feedprof::report {

// Appends `text` escaped for HTML text and attribute values (& < > " '),
// with invalid UTF-8 replaced by U+FFFD.
void AppendEscaped(std::string_view text, std::string* out);
std::string Escaped(std::string_view text);

// "12.5" style numbers for coordinates: at most `decimals` decimals, no
// trailing zeros.
std::string Num(double v, int decimals = 1);

// A double for a data-* attribute, exact ("%.17g").
std::string ExactNum(double v);

// A time axis: `length_ns` after `offset_ns` (the time of x = 0 relative to
// the trace start) in round ticks, labelled in one unit that fits, with as
// few decimals as tell the ticks apart and never an exponent. Under 1000 s
// the unit is that of the step (1, 2 or 5 × 10^k ns, µs, ms or s); from
// 1000 s on it is minutes, hours or days (the largest the length holds at
// least three times) and the step a round one in that unit (1, 2, 5, 10,
// 15, 30 min; 0.25, 0.5, 1, 2, 3, 6, 12 h; 0.25, 0.5, 1, 2, 5, 7, 10 d).
struct TimeAxis {
  double scale = 1;  // ns per unit
  const char* unit = "ns";
  std::vector<double> ticks_ns;  // relative to x = 0
  std::vector<std::string> labels;
};
TimeAxis MakeTimeAxis(TimeNs offset_ns, TimeNs length_ns, int max_ticks = 10);

// A value axis 0..max with round ticks, for durations, in the units and
// steps of a time axis as long as `max_ns`.
TimeAxis MakeDurationAxis(TimeNs max_ns, int max_ticks = 5);

// One layer of a stacked area: per-bucket values in per-mille of a bucket.
struct AreaLayer {
  std::string color;
  std::vector<int32_t> permille;  // cumulative top of this layer
};

// Appends <path> elements for stacked layers (drawn top layer first, each
// filled down to the baseline, so the lower layers paint over it): a step
// line per bucket in a nested svg of `buckets` × 1000 user units.
void AppendStackedArea(const std::vector<AreaLayer>& layers, size_t buckets,
                       std::string* out);

// A legend: colored squares with labels, laid out in one HTML row.
struct LegendEntry {
  std::string color;
  std::string label;
};
void AppendLegend(const std::vector<LegendEntry>& entries, std::string* out);

}  // namespace feedprof::report

#endif  // FEEDPROF_REPORT_SVG_PLOT_H_
