// The HTML diff: the page carries the JSON diff's headline and figures in
// data-* attributes, escapes hostile kernel names, draws both runs'
// timelines on the longer run's time scale and opens and closes like the
// single-run report.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "feedprof/compare.h"
#include "feedprof/diff_report.h"
#include "tests/analysis/timeline_builder.h"
#include "tests/testing/html_attributes.h"

namespace feedprof {
namespace {

using testing::Attributes;

using testing::TimelineBuilder;

// Ten steps of `period_us`, each launching "gemm" (590 µs) and a second
// kernel named `second` (`second_us` long); `sync` adds a stream sync.
Timeline StepsRun(double period_us, const std::string& second, double second_us,
                  bool sync) {
  TimelineBuilder b;
  double t = 0;
  for (int i = 0; i < 10; ++i) {
    const double period = period_us + 10.0 * (i % 3);
    b.Range("ProfilerStep#" + std::to_string(i), t, t + period,
            RangeSource::kProfilerStep);
    b.Launch(t, t + 5, t + 10, t + 600).name =
        b.timeline().strings.Intern("gemm");
    b.Launch(t + 600, t + 605, t + 610, t + 610 + second_us).name =
        b.timeline().strings.Intern(second);
    if (sync) b.Api("cudaStreamSynchronize", t + 900, t + 950);
    t += period;
  }
  return b.Take();
}

Comparison CompareRuns(const Timeline& before, const Timeline& after) {
  const CompareOptions options;
  absl::StatusOr<AnalyzedRun> b = AnalyzeForComparison(before, options);
  absl::StatusOr<AnalyzedRun> a = AnalyzeForComparison(after, options);
  EXPECT_TRUE(b.ok() && a.ok());
  if (!b.ok() || !a.ok()) return Comparison{};
  return Compare(*b, *a, options);
}

// Field `field` of the JSON object `"key": {...}` at or after `from`.
double JsonChangeField(const std::string& json, const std::string& from,
                       const std::string& key, const std::string& field) {
  const size_t start = json.find(from);
  EXPECT_NE(start, std::string::npos) << from;
  const size_t at = json.find("\"" + key + "\": {", start);
  EXPECT_NE(at, std::string::npos) << key;
  const std::string needle = "\"" + field + "\": ";
  const size_t b = json.find(needle, at) + needle.size();
  return std::stod(json.substr(b, json.find_first_of(",\n}", b) - b));
}

// HTML text with the five escapes AppendEscaped writes undone.
std::string Unescaped(std::string s) {
  const std::pair<const char*, const char*> kEscapes[] = {{"&lt;", "<"},
                                                          {"&gt;", ">"},
                                                          {"&quot;", "\""},
                                                          {"&#39;", "'"},
                                                          {"&amp;", "&"}};
  for (const auto& [from, to] : kEscapes) {
    for (size_t at = s.find(from); at != std::string::npos;
         at = s.find(from, at + 1)) {
      s.replace(at, std::string(from).size(), to);
    }
  }
  return s;
}

std::string JsonString(const std::string& json, const std::string& key) {
  const std::string needle = "\"" + key + "\": \"";
  const size_t b = json.find(needle) + needle.size();
  return json.substr(b, json.find('"', b) - b);
}

TEST(DiffHtmlReportTest, HoldsTheNumbersOfTheJsonDiff) {
  // AFTER: the second kernel 100 µs shorter, steps 100 µs shorter, the
  // sync gone.
  const Comparison c = CompareRuns(StepsRun(1200, "softmax", 290, true),
                                   StepsRun(1100, "softmax", 190, false));
  const std::string json = WriteJsonDiff(c);
  const std::string html = WriteHtmlDiff(c);

  ASSERT_EQ(Attributes(html, "data-headline").size(), 1u);
  EXPECT_EQ(Unescaped(Attributes(html, "data-headline")[0]),
            JsonString(json, "headline"));
  EXPECT_EQ(JsonString(json, "headline"), c.headline);
  EXPECT_NE(c.headline.find("beyond noise"), std::string::npos);
  // The sentence is shown, escaped, in the headline card.
  EXPECT_NE(html.find("<div class=\"headline\">" +
                      Attributes(html, "data-headline")[0] + "</div>"),
            std::string::npos);
  EXPECT_EQ(Attributes(html, "data-schema")[0], "feedprof.diff/2");

  // Step time: the median change and the noise test.
  ASSERT_TRUE(c.step_time.noise.judged);
  for (const char* field : {"before", "after", "delta", "relative"}) {
    ASSERT_EQ(Attributes(html, std::string("data-median-") + field).size(), 1u);
    EXPECT_EQ(
        std::stod(Attributes(html, std::string("data-median-") + field)[0]),
        JsonChangeField(json, "\"step_time\"", "median_ns", field))
        << field;
  }
  EXPECT_DOUBLE_EQ(std::stod(Attributes(html, "data-median-delta")[0]),
                   -100000.0);
  EXPECT_EQ(Attributes(html, "data-beyond-noise")[0],
            c.step_time.noise.beyond_noise ? "true" : "false");
  EXPECT_EQ(std::stod(Attributes(html, "data-p-value")[0]),
            c.step_time.noise.test.p_value);
  EXPECT_EQ(Attributes(html, "data-alternative")[0], "two_sided");
  EXPECT_EQ(std::stod(Attributes(html, "data-shift")[0]),
            c.step_time.noise.shift_ns.estimate);
  EXPECT_EQ(std::stod(Attributes(html, "data-interval-low")[0]),
            c.step_time.noise.shift_ns.low.value_or(0));
  EXPECT_EQ(std::stod(Attributes(html, "data-interval-high")[0]),
            c.step_time.noise.shift_ns.high.value_or(0));
  EXPECT_DOUBLE_EQ(std::stod(Attributes(html, "data-shift")[0]), -100000.0);
  EXPECT_EQ(std::stod(Attributes(html, "data-interval-confidence")[0]), 0.95);
  EXPECT_TRUE(Attributes(html, "data-threshold-percent").empty());  // no gate

  // Verdict change.
  EXPECT_EQ(Attributes(html, "data-before-primary")[0],
            VerdictClassName(c.verdict.before_primary));
  EXPECT_EQ(Attributes(html, "data-after-primary")[0],
            VerdictClassName(c.verdict.after_primary));

  // The softmax kernel lost 100 µs per step; the sync point vanished.
  const std::regex softmax_row(
      "<tr data-name=\"softmax\" data-presence=\"both\" "
      "data-time-before=\"([^\"]*)\" data-time-after=\"([^\"]*)\" "
      "data-time-delta=\"([^\"]*)\"");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(html, m, softmax_row));
  EXPECT_NEAR(std::stod(m[3]), -100000.0, 1);
  for (const KernelChange& k : c.kernels.losses) {
    if (k.name != "softmax") continue;
    EXPECT_EQ(std::stod(m[1]), k.time_per_unit_ns.before);
    EXPECT_EQ(std::stod(m[3]), k.time_per_unit_ns.delta);
  }
  ASSERT_EQ(c.syncs.vanished.size(), 1u);
  const std::regex vanished_sync(
      "id=\"sync-vanished\"><tr>.*?</tr><tr data-api=\"cudaStreamSynchronize\" "
      "data-presence=\"vanished\" data-blocked-before=\"([^\"]*)\"");
  ASSERT_TRUE(std::regex_search(html, m, vanished_sync));
  EXPECT_EQ(std::stod(m[1]), c.syncs.vanished[0].blocked_per_unit_ns.before);
  EXPECT_NEAR(std::stod(m[1]), 50000.0, 1);

  // The largest idle-cause change is the JSON's first "largest".
  ASSERT_FALSE(c.idle.largest.empty());
  const IdleCauseChange& top =
      c.idle.causes[static_cast<size_t>(c.idle.largest[0])];
  ASSERT_FALSE(Attributes(html, "data-cause").empty());
  EXPECT_EQ(Attributes(html, "data-cause")[0], top.name);

  // Both runs' devices are plotted, labelled, on the longer run's scale.
  const std::vector<std::string> plots = Attributes(html, "data-plot");
  EXPECT_EQ(plots,
            (std::vector<std::string>{"before-device-0", "after-device-0"}));
  EXPECT_NE(html.find(">BEFORE</text>"), std::string::npos);
  EXPECT_NE(html.find(">AFTER</text>"), std::string::npos);
  const TimeNs before_ns =
      static_cast<TimeNs>(c.before_report.timeline.buckets) *
      c.before_report.timeline.bucket_ns;
  const TimeNs after_ns = static_cast<TimeNs>(c.after_report.timeline.buckets) *
                          c.after_report.timeline.bucket_ns;
  ASSERT_GT(before_ns, after_ns);
  EXPECT_EQ(Attributes(html, "data-axis-ns")[0], std::to_string(before_ns));
  // BEFORE fills the plot width (914 px); AFTER is narrower by the ratio.
  const std::regex area("<svg x=\"170\" y=\"8\" width=\"([0-9.]+)\"");
  std::vector<double> widths;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), area);
       it != std::sregex_iterator(); ++it) {
    widths.push_back(std::stod((*it)[1]));
  }
  ASSERT_EQ(widths.size(), 2u);
  EXPECT_DOUBLE_EQ(widths[0], 914);
  EXPECT_NEAR(
      widths[1],
      914.0 * static_cast<double>(after_ns) / static_cast<double>(before_ns),
      0.06);
  EXPECT_LT(widths[1], 914 * 0.95);

  // The page frame of the single-run report: CSP, render check, closed.
  EXPECT_NE(html.find("Content-Security-Policy"), std::string::npos);
  EXPECT_NE(html.find("id=\"render-check\""), std::string::npos);
  EXPECT_EQ(html.rfind("</body></html>\n"), html.size() - 15);
}

TEST(DiffHtmlReportTest, EscapesHostileKernelNames) {
  const std::string hostile = "<script>alert(\"x\")</script>&'k";
  const Comparison c = CompareRuns(StepsRun(1200, "softmax", 290, false),
                                   StepsRun(1200, hostile, 290, false));
  ASSERT_EQ(c.kernels.added.size(), 1u);
  const std::string html = WriteHtmlDiff(c);
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"
                      "&amp;&#39;k"),
            std::string::npos);
  const std::vector<std::string> names = Attributes(html, "data-name");
  EXPECT_NE(std::find(names.begin(), names.end(),
                      "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"
                      "&amp;&#39;k"),
            names.end());
  // Exactly one script element: the render check.
  size_t scripts = 0;
  for (size_t at = html.find("<script"); at != std::string::npos;
       at = html.find("<script", at + 1)) {
    ++scripts;
  }
  EXPECT_EQ(scripts, 1u);
}

}  // namespace
}  // namespace feedprof
