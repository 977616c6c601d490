// Every shared real trace (Kineto JSON, Nsight SQLite): the export is valid
// and, read back through feedprof's Kineto reader, analyses to the same
// figures as the original. Skips when the traces are absent.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "feedprof/analysis.h"
#include "feedprof/export.h"
#include "feedprof/kineto_reader.h"
#include "feedprof/trace_loader.h"
#include "tests/export/exported_trace.h"

namespace feedprof {
namespace {

class RealTraceRoundTrip : public ::testing::TestWithParam<const char*> {};

TEST_P(RealTraceRoundTrip, ExportReadsBackTheSame) {
  const std::string path =
      std::string(FEEDPROF_SHARED_TRACES_DIR) + "/" + GetParam();
  if (!std::filesystem::exists(path)) {
    GTEST_SKIP() << "shared trace " << GetParam() << " not found under "
                 << FEEDPROF_SHARED_TRACES_DIR;
  }
  absl::StatusOr<Timeline> tl = LoadTrace(path);
  ASSERT_TRUE(tl.ok()) << tl.status();
  absl::StatusOr<Report> report = Analyze(*tl, {});
  ASSERT_TRUE(report.ok()) << report.status();
  const std::string out =
      (std::filesystem::temp_directory_path() /
       ("feedprof_export_real_" + std::to_string(::getpid()) + ".json.gz"))
          .string();
  absl::StatusOr<ExportStats> stats =
      ExportChromeTraceToFile(*tl, *report, {}, {}, out);
  ASSERT_TRUE(stats.ok()) << stats.status();
  testing::ExpectValidExport(testing::ReadExportedTrace(out));
  absl::StatusOr<Timeline> back = ReadKinetoTrace(out);
  ASSERT_TRUE(back.ok()) << back.status();
  // A base the input counted from goes with the times (the bert trace's).
  EXPECT_EQ(back->time_base_ns, tl->time_base_ns);
  absl::StatusOr<Report> again = Analyze(*back, {});
  ASSERT_TRUE(again.ok()) << again.status();
  testing::ExpectSameAnalysis(*report, *again, tl->available.host_samples);
  std::filesystem::remove(out);
}

INSTANTIATE_TEST_SUITE_P(
    SharedTraces, RealTraceRoundTrip,
    ::testing::Values(
        "hta_critical_path/simple_add/"
        "benchmark_result_493459_1694039959_trace.json.gz",
        "hta_critical_path/alexnet/"
        "benchmark_result_2869224_1695835535_trace.json.gz",
        "hta_critical_path/cuda_event_sync/event_sync_trace.json.gz",
        "hta_critical_path/cuda_event_sync_multi_stream/"
        "event_sync_trace.json.gz",
        "hta_ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
        "hta_cuda_graphs/rank0.json.gz",
        "tracelens_h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
        "tracelens_h100/gaunernst_bert-small-uncased__1016001.json.gz",
        "nsys_ai/mock.sqlite", "nsys_ai/mfu_2gpu_before.sqlite",
        "nsys_ai/mfu_2gpu_after.sqlite",
        "nsys_sqlite_saxpy/saxpy-mpi-cuda_nsys_perlmutter0.sqlite"));

}  // namespace
}  // namespace feedprof
