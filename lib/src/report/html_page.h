// What the single-run HTML report and the HTML diff share: the page frame
// (head with CSS and the Content-Security-Policy, the render-check script),
// the idle-cause colours and the per-device timeline plot.
//
// Both pages must look and behave the same (offline, no script needed to
// show, checked by the same browser test), and the diff draws two runs'
// timelines on one time scale, so the plot takes the length of its x axis
// explicitly instead of the run's own window.
#ifndef FEEDPROF_REPORT_HTML_PAGE_H_
#define FEEDPROF_REPORT_HTML_PAGE_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "feedprof/report.h"
#include "report/svg_plot.h"

namespace feedprof::report {

struct CauseStyle {
  const char* color;
  const char* label;
};
const CauseStyle& StyleOf(int cause);  // by IdleCause index

inline constexpr const char* kBusyColor = "#2ca02c";
inline constexpr const char* kComputeColor = "#2ca02c";
inline constexpr const char* kCopyColor = "#98df8a";
inline constexpr const char* kOutsideColor = "#f2f2f2";
inline constexpr const char* kCpuColor = "#1f77b4";
inline constexpr const char* kIoColor = "#8c564b";
inline constexpr const char* kSyncColor = "#d62728";
inline constexpr const char* kApiColor = "#ff7f0e";

// Plot geometry (pixels): labels left of the plot area, axis below.
inline constexpr int kWidth = 1100;
inline constexpr int kLeft = 170;
inline constexpr int kRight = 16;
inline constexpr int kPlotW = kWidth - kLeft - kRight;
inline constexpr size_t kMaxPlottedDevices = 16;

std::string DeviceLabel(const DeviceReport& d);

// Appends an SVG <text> at (x, y), escaped; `extra` holds raw attributes.
void Text(std::string* out, double x, double y, std::string_view text,
          const char* extra = "");

// The length the report's timeline buckets cover.
TimeNs TimelineLength(const Report& r);

// The time axis under a timeline plot at `y`, `axis_length_ns` wide,
// labelled once.
void AppendTimeAxis(const Report& r, TimeNs axis_length_ns, double y,
                    std::string* out);

// Per-mille of bucket k that `value` fills (the last bucket may be cut
// short by the window's end).
int32_t Permille(const Report& r, size_t k, TimeNs value);

// The vertical step marks over a timeline plot of height `h` at `y`.
void AppendStepMarks(const Report& r, TimeNs axis_length_ns, int y, int h,
                     std::string* out);

// The stacked busy/idle-by-cause plot of device `index` over an x axis
// `axis_length_ns` long (at least TimelineLength(r)): data-plot is
// `plot_id`, and `tag` (may be empty) is written above the device label.
void AppendDeviceTimeline(const Report& r, size_t index, TimeNs axis_length_ns,
                          std::string_view plot_id, std::string_view tag,
                          std::string* out);

// Legend entries for the causes with idle time in `present`.
std::vector<LegendEntry> CauseLegend(const IdleByCause& present);

// "<!DOCTYPE html>…<body data-schema=…><main>": the head with the CSS and
// the Content-Security-Policy; `title` is escaped.
void AppendPageStart(std::string_view title, std::string_view schema,
                     std::string* out);
// The render-check element and script, then the closing tags.
void AppendPageEnd(std::string* out);

}  // namespace feedprof::report

#endif  // FEEDPROF_REPORT_HTML_PAGE_H_
