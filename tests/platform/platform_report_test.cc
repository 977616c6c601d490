// The report's platform block in text, JSON and HTML: every renderer shows
// the same findings from the same model fields.
#include <string>

#include "feedprof/analysis.h"
#include "feedprof/report.h"
#include "gtest/gtest.h"
#include "report/platform_block.h"
#include "tests/analysis/must_analyze.h"
#include "tests/analysis/timeline_builder.h"
#include "tests/testing/json_test_parser.h"

namespace feedprof::testing {
namespace {

// A transfer-bound run whose snapshot has GPU0 at x8 of x16, and a value
// with characters HTML must escape.
Report ReportWithPlatform() {
  TimelineBuilder b;
  double t = 100;
  for (int i = 0; i < 20; ++i) {
    b.Copy("cudaMemcpyAsync", i * 3.0, i * 3.0 + 1, t, t + 4000,
           CopyKind::kHtoD, 48ull << 20, MemoryKind::kPinned);
    b.Launch(i * 3.0 + 1, i * 3.0 + 2, t + 4000, t + 4500);
    t += 4500;
  }
  Timeline& tl = b.timeline();
  tl.devices[0].pci_bus_id = "0000:3b:00.0";
  Platform& p = tl.platform;
  p.cpu_model = "Xeon";
  p.logical_cpus = 16;
  p.nvidia_probed = true;
  p.host_facts_probed = true;
  p.pid = TimelineBuilder::kPid;
  p.process_cpu_affinity = "0-15";
  p.online_cpu_list = "0-15";
  Platform::PciFunction gpu;
  gpu.bus_id = "0000:3b:00.0";
  gpu.class_code = 0x030200;
  gpu.numa_node = 0;
  gpu.current_link_gts = 16;
  gpu.max_link_gts = 16;
  gpu.current_link_width = 8;
  gpu.max_link_width = 16;
  p.pci_functions = {gpu};
  Platform::Mount m;
  m.path = "/data/<a&b>";
  m.mount_point = "/data";
  m.fs_type = "fuse.s3fs";
  m.source = "s3fs";
  m.options = "rw";
  p.data_mounts = {m};
  return MustAnalyze(b.Take());
}

TEST(PlatformReport, TextShowsProblemsInTheSummaryAndEverythingInDetails) {
  const Report r = ReportWithPlatform();
  const PlatformFinding* link = r.platform.Find("gpu_pcie_link");
  ASSERT_NE(link, nullptr);
  TextReportOptions summary;
  summary.details = false;
  const std::string text = WriteTextReport(r, summary);
  EXPECT_NE(text.find("\nPlatform (recorded snapshot): " +
                      std::to_string(r.platform.Count(PlatformStatus::kFail)) +
                      " fail, " +
                      std::to_string(r.platform.Count(PlatformStatus::kWarn)) +
                      " warn, "),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\n  " + PlatformFindingLine(*link) + "\n"),
            std::string::npos);
  // Ok checks are named on one line in the summary, shown in full in the
  // details.
  EXPECT_NE(text.find("\n  ok: gpus, "), std::string::npos) << text;
  const PlatformFinding* gpus = r.platform.Find("gpus");
  ASSERT_NE(gpus, nullptr);
  EXPECT_EQ(text.find(PlatformFindingLine(*gpus)), std::string::npos);
  EXPECT_NE(WriteTextReport(r).find(PlatformFindingLine(*gpus)),
            std::string::npos);
  EXPECT_EQ(PlatformFindingLine(*link).substr(0, 26),
            "fail    gpu_pcie_link     ");
}

TEST(PlatformReport, JsonCarriesEveryFindingOfTheModel) {
  const Report r = ReportWithPlatform();
  const std::optional<JsonValue> doc = ParseJson(WriteJsonReport(r));
  ASSERT_TRUE(doc.has_value());
  const JsonValue* p = doc->Find("platform");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->Str("source"), "recorded snapshot");
  const JsonValue* summary = p->Find("summary");
  ASSERT_NE(summary, nullptr);
  EXPECT_EQ(summary->Uint("fail"), r.platform.Count(PlatformStatus::kFail));
  EXPECT_EQ(summary->Uint("unknown"),
            r.platform.Count(PlatformStatus::kUnknown));
  const JsonValue* findings = p->Find("findings");
  ASSERT_NE(findings, nullptr);
  ASSERT_EQ(findings->items.size(), r.platform.findings.size());
  for (size_t i = 0; i < findings->items.size(); ++i) {
    const JsonValue& j = findings->items[i];
    const PlatformFinding& f = r.platform.findings[i];
    EXPECT_EQ(j.Str("check"), f.check);
    EXPECT_EQ(j.Str("area"), f.area);
    EXPECT_EQ(j.Str("status"), PlatformStatusName(f.status));
    EXPECT_EQ(j.Str("value"), f.value);
    EXPECT_EQ(j.Str("meaning"), f.meaning);
    EXPECT_EQ(j.Find("subject")->kind, f.subject.empty()
                                           ? JsonValue::Kind::kNull
                                           : JsonValue::Kind::kString);
    EXPECT_EQ(j.Find("action")->kind, f.action.empty()
                                          ? JsonValue::Kind::kNull
                                          : JsonValue::Kind::kString);
  }
}

TEST(PlatformReport, HtmlHasATableRowPerFindingEscaped) {
  const Report r = ReportWithPlatform();
  const std::string html = WriteHtmlReport(r);
  EXPECT_NE(
      html.find("<section class=\"card bad\" id=\"platform\" "
                "data-fail=\"" +
                std::to_string(r.platform.Count(PlatformStatus::kFail)) + "\""),
      std::string::npos);
  size_t rows = 0;
  for (size_t at = html.find("<tr data-check="); at != std::string::npos;
       at = html.find("<tr data-check=", at + 1)) {
    ++rows;
  }
  EXPECT_EQ(rows, r.platform.findings.size());
  EXPECT_NE(html.find("<tr data-check=\"gpu_pcie_link\" data-status=\"fail\">"),
            std::string::npos);
  EXPECT_NE(html.find("data /data/&lt;a&amp;b&gt;"), std::string::npos);
  EXPECT_EQ(html.find("/data/<a&b>"), std::string::npos);
}

}  // namespace
}  // namespace feedprof::testing
