// The page frame, colours and device timeline plot shared by the HTML
// report and the HTML diff (report/html_page.h).
#include "report/html_page.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/units.h"

namespace feedprof::report {
namespace {

using common::FormatDuration;
using common::FormatPercent;

// Colours by family: host waits warm (sync red, CUDA calls orange, on-CPU
// blue, off-CPU brown/purple), GPU-side waits yellow/cyan, unknown grey.
constexpr CauseStyle kCauseStyles[kIdleCauses] = {
    {"#d62728", "host blocked in sync"},
    {"#ff7f0e", "host in other CUDA calls"},
    {"#1f77b4", "host running on CPU"},
    {"#8c564b", "host off-CPU in I/O"},
    {"#9467bd", "host off-CPU waiting"},
    {"#b0b0b0", "host wait, no samples"},
    {"#e6c229", "launch overhead"},
    {"#17becf", "queue latency"},
    {"#dddddd", "unattributed"},
};

constexpr const char* kStyle = R"(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:#222;margin:0;background:#fafafa}
main{max-width:1120px;margin:0 auto;padding:16px}
h1{font-size:20px;margin:4px 0}h2{font-size:17px;margin:28px 0 6px;border-bottom:1px solid #ddd;padding-bottom:3px}
h3{font-size:14px;margin:14px 0 4px}
.sub{color:#666;font-size:13px}.note{color:#555;font-size:12.5px}
.card{background:#fff;border:1px solid #ddd;border-left:8px solid #888;border-radius:4px;padding:12px 16px;margin:12px 0}
.card.bad{border-left-color:#d62728}.card.good{border-left-color:#2ca02c}.card.neutral{border-left-color:#999}
.verdict-head{display:flex;gap:18px;align-items:baseline;flex-wrap:wrap}
.verdict-head .label{color:#666;text-transform:uppercase;font-size:12px;letter-spacing:.05em}
.verdict-head .primary{font-size:24px;font-weight:700}
.verdict-head .conf,.verdict-head .runner{color:#444}
.nogpu{background:#fff6e0;border:1px solid #f0c36d;padding:8px;margin:8px 0;border-radius:3px}
ul,ol{margin:4px 0 4px 22px;padding:0}li{margin:2px 0}
table{border-collapse:collapse;margin:6px 0;background:#fff;font-size:13px}
th,td{border:1px solid #e0e0e0;padding:3px 7px;text-align:left;vertical-align:top}
th{background:#f3f3f3;font-weight:600}
table.num td{font-variant-numeric:tabular-nums}
td.name{max-width:520px;overflow-wrap:anywhere;font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:12px}
table.kv th{width:200px}
tr.slowest td,tr.straggler td{background:#fdecea}
tr.matched td{background:#e8f5e9;font-weight:600}
.legend{display:flex;flex-wrap:wrap;gap:4px 14px;margin:4px 0 8px;font-size:12.5px}
.legend i,.sw{display:inline-block;width:11px;height:11px;margin-right:5px;vertical-align:-1px;border:1px solid rgba(0,0,0,.15)}
svg.plot{display:block;background:#fff;font-size:12px;margin:2px 0}
svg .row-label{font-weight:600;fill:#222}svg .row-tag{font-weight:700;fill:#555;font-size:10.5px;letter-spacing:.06em}svg .row-sub{fill:#666;font-size:11px}
svg .tick{fill:#444;font-size:11px}svg .axis-label{fill:#444;font-size:11.5px}
svg .axis path{stroke:#666;fill:none}svg path.grid{stroke:#ddd;fill:none}
svg path.steps{stroke:#333;stroke-opacity:.7;stroke-width:1;stroke-dasharray:3 2;fill:none}
svg rect.step{fill:none;stroke:#999;stroke-dasharray:2 2}
details summary{cursor:pointer;color:#444}
details.stack ol{margin:4px 0 2px;padding-left:22px;font-size:11.5px;color:#333}
details.stack summary{color:inherit}
td.scenario{min-width:180px;max-width:320px;overflow-wrap:anywhere;font-weight:600}
#platform table{width:100%;table-layout:fixed}#platform td{overflow-wrap:anywhere}
#platform th:nth-child(1){width:7%}#platform th:nth-child(2){width:13%}#platform th:nth-child(3){width:11%}
#platform th:nth-child(4){width:27%}#platform th:nth-child(5){width:22%}#platform th:nth-child(6){width:20%}
.estimate{background:#eef4fb;border:1px solid #b9d0ea;border-radius:3px;padding:6px 10px;margin:6px 0}
)";

// The only script: checks that every plot rendered with a size and that
// no table is wider than the box it is in (its right columns would be cut
// off or stick out of their card), and writes the result into
// #render-check (read by the browser test); errors and blocked requests
// are recorded there too. The page needs no script to show.
constexpr const char* kCheckScript = R"(<script>
(function(){var m=document.getElementById('render-check'),errors=[];
window.addEventListener('error',function(e){errors.push(String(e.message));});
document.addEventListener('securitypolicyviolation',function(e){errors.push('blocked '+e.blockedURI);});
function check(){var plots=document.querySelectorAll('[data-plot]'),bad=[];
for(var i=0;i<plots.length;i++){var b=plots[i].getBoundingClientRect();if(!(b.width>0&&b.height>0))bad.push(plots[i].getAttribute('data-plot'));}
var tables=document.querySelectorAll('table'),wide=[];
for(var j=0;j<tables.length;j++){var t=tables[j],box=t.parentElement.getBoundingClientRect(),cs=getComputedStyle(t.parentElement);
if(t.getBoundingClientRect().right>box.right-parseFloat(cs.borderRightWidth)-parseFloat(cs.paddingRight)+1){var home=t.closest('[id]');wide.push((home?home.id:'table')+'#'+j);}}
m.setAttribute('data-plots',String(plots.length));m.setAttribute('data-empty-plots',bad.join(' '));m.setAttribute('data-wide-tables',wide.join(' '));
m.setAttribute('data-errors',errors.join(' | '));m.setAttribute('data-ms',String(Math.round(performance.now())));m.setAttribute('data-status',bad.length||wide.length||errors.length?'fail':'ok');}
check();window.addEventListener('load',check);})();
</script>)";

}  // namespace

const CauseStyle& StyleOf(int cause) {
  return kCauseStyles[static_cast<size_t>(cause)];
}

std::string DeviceLabel(const DeviceReport& d) {
  return absl::StrCat("GPU ", d.device, " \xC2\xB7 pid ", d.pid);
}

void Text(std::string* out, double x, double y, std::string_view text,
          const char* extra) {
  absl::StrAppend(out, "<text x=\"", Num(x), "\" y=\"", Num(y), "\"", extra,
                  ">");
  AppendEscaped(text, out);
  out->append("</text>");
}

TimeNs TimelineLength(const Report& r) {
  return static_cast<TimeNs>(r.timeline.buckets) * r.timeline.bucket_ns;
}

void AppendTimeAxis(const Report& r, TimeNs axis_length_ns, double y,
                    std::string* out) {
  const TimelineOverview& t = r.timeline;
  const TimeNs length = std::max<TimeNs>(1, axis_length_ns);
  const TimeAxis axis =
      report::MakeTimeAxis(t.start - r.window.trace_start, length);
  absl::StrAppend(out, "<g class=\"axis\"><path d=\"M", kLeft, " ", Num(y), "H",
                  kLeft + kPlotW, "\"/>");
  for (size_t i = 0; i < axis.ticks_ns.size(); ++i) {
    const double x =
        kLeft + axis.ticks_ns[i] / static_cast<double>(length) * kPlotW;
    absl::StrAppend(out, "<path d=\"M", Num(x), " ", Num(y), "v5\"/>");
    Text(out, x, y + 17, axis.labels[i], " text-anchor=\"middle\"");
  }
  Text(out, kLeft + kPlotW, y + 32,
       absl::StrCat("time since trace start (", axis.unit, ")"),
       " text-anchor=\"end\" class=\"axis-label\"");
  out->append("</g>");
}

int32_t Permille(const Report& r, size_t k, TimeNs value) {
  const TimelineOverview& t = r.timeline;
  const TimeNs bucket_start = t.start + static_cast<TimeNs>(k) * t.bucket_ns;
  const TimeNs length =
      std::max<TimeNs>(1, std::min(t.bucket_ns, r.window.end - bucket_start));
  return static_cast<int32_t>(std::min<TimeNs>(1000, value * 1000 / length));
}

void AppendStepMarks(const Report& r, TimeNs axis_length_ns, int y, int h,
                     std::string* out) {
  const TimelineOverview& t = r.timeline;
  if (!r.steps.available || t.bucket_ns <= 0 || axis_length_ns <= 0) return;
  const double length = static_cast<double>(axis_length_ns);
  out->append("<path class=\"steps\" d=\"");
  for (size_t i = 0; i < r.steps.steps.size(); i += t.step_stride) {
    const double x =
        kLeft +
        static_cast<double>(r.steps.steps[i].start - t.start) / length * kPlotW;
    absl::StrAppend(out, "M", Num(x), " ", y, "v", h);
  }
  out->append("\"/>");
}

void AppendDeviceTimeline(const Report& r, size_t index, TimeNs axis_length_ns,
                          std::string_view plot_id, std::string_view tag,
                          std::string* out) {
  const DeviceReport& d = r.devices[index];
  const TimelineOverview& t = r.timeline;
  const TimelineDevice& row = t.devices[index];
  const size_t n = t.buckets;
  constexpr int kTop = 8;
  constexpr int kAreaH = 130;
  constexpr int kH = kTop + kAreaH + 40;
  std::vector<AreaLayer> layers;
  std::vector<TimeNs> cumulative(row.busy_ns.begin(), row.busy_ns.end());
  auto add_layer = [&](const char* color) {
    AreaLayer layer;
    layer.color = color;
    layer.permille.resize(n);
    for (size_t k = 0; k < n; ++k) {
      layer.permille[k] = Permille(r, k, cumulative[k]);
    }
    layers.push_back(std::move(layer));
  };
  add_layer(kBusyColor);
  for (int c = 0; c < kIdleCauses; ++c) {
    if (d.idle_by_cause.ns[static_cast<size_t>(c)] == 0) continue;
    for (size_t k = 0; k < n; ++k) {
      cumulative[k] += row.idle_ns[k].ns[static_cast<size_t>(c)];
    }
    add_layer(StyleOf(c).color);
  }
  const TimeNs axis_length =
      std::max<TimeNs>({1, axis_length_ns, TimelineLength(r)});
  // The buckets cover this much of the plot's width.
  const double area_w = kPlotW * static_cast<double>(TimelineLength(r)) /
                        static_cast<double>(axis_length);
  absl::StrAppend(out, "<svg class=\"plot\" data-plot=\"", Escaped(plot_id),
                  "\" width=\"", kWidth, "\" height=\"", kH,
                  "\" viewBox=\"0 0 ", kWidth, " ", kH, "\">");
  if (!tag.empty()) Text(out, 4, kTop + 2, tag, " class=\"row-tag\"");
  Text(out, 4, kTop + 16, DeviceLabel(d), " class=\"row-label\"");
  Text(out, 4, kTop + 32,
       absl::StrCat("busy ", common::FormatDuration(d.busy_ns)),
       " class=\"row-sub\"");
  Text(out, 4, kTop + 46,
       absl::StrCat("idle ", common::FormatPercent(d.idle_share), " of span"),
       " class=\"row-sub\"");
  absl::StrAppend(out, "<rect x=\"", kLeft, "\" y=\"", kTop, "\" width=\"",
                  kPlotW, "\" height=\"", kAreaH, "\" fill=\"", kOutsideColor,
                  "\"/>");
  absl::StrAppend(out, "<svg x=\"", kLeft, "\" y=\"", kTop, "\" width=\"",
                  Num(area_w), "\" height=\"", kAreaH, "\" viewBox=\"0 0 ",
                  std::max<size_t>(n, 1),
                  " 1000\" preserveAspectRatio=\"none\">");
  AppendStackedArea(layers, n, out);
  out->append("</svg>");
  AppendStepMarks(r, axis_length, kTop, kAreaH, out);
  // Share axis: 0, 50 %, 100 % of each bucket's time.
  for (int pct : {0, 50, 100}) {
    const double y = kTop + kAreaH - kAreaH * pct / 100.0;
    absl::StrAppend(out, "<path class=\"grid\" d=\"M", kLeft - 4, " ", Num(y),
                    "h4\"/>");
    Text(out, kLeft - 7, y + 4, absl::StrCat(pct, "%"),
         " text-anchor=\"end\" class=\"tick\"");
  }
  AppendTimeAxis(r, axis_length, kTop + kAreaH, out);
  out->append("</svg>");
}

std::vector<LegendEntry> CauseLegend(const IdleByCause& present) {
  std::vector<LegendEntry> legend;
  for (int c = 0; c < kIdleCauses; ++c) {
    if (present.ns[static_cast<size_t>(c)] == 0) continue;
    legend.push_back({StyleOf(c).color, StyleOf(c).label});
  }
  return legend;
}

void AppendPageStart(std::string_view title, std::string_view schema,
                     std::string* out) {
  out->append(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
      "'none'; style-src 'unsafe-inline'; img-src data:; script-src "
      "'unsafe-inline'\">"
      "<meta name=\"viewport\" content=\"width=device-width\">"
      "<title>");
  AppendEscaped(title, out);
  absl::StrAppend(out, "</title><style>", kStyle, "</style></head>");
  out->append("<body data-schema=\"");
  out->append(schema);
  out->append("\"><main>");
}

void AppendPageEnd(std::string* out) {
  out->append("<div id=\"render-check\" data-status=\"pending\"></div></main>");
  out->append(kCheckScript);
  out->append("</body></html>\n");
}

}  // namespace feedprof::report
