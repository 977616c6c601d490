// The JSON lines of `feedprof dump`: in process through the dumper, and
// end to end through the built feedprof binary.
#include "feedprof/trace_dump.h"

#include <gtest/gtest.h>
#include <stdio.h>
#include <sys/wait.h>

#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "tests/testing/json_test_parser.h"
#include "tests/testing/trace_test_files.h"

namespace feedprof {
namespace {

using testing::FramePacket;
using testing::FramePackets;
using testing::JsonValue;
using testing::TempDir;
using testing::WriteFile;

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  size_t begin = 0;
  while (begin < text.size()) {
    const size_t end = text.find('\n', begin);
    if (end == std::string::npos) {
      lines.push_back(text.substr(begin));
      break;
    }
    lines.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
  return lines;
}

// Every line parsed; fails the test on a line that is not JSON.
std::vector<JsonValue> ParseLines(const std::string& text) {
  std::vector<JsonValue> values;
  for (const std::string& line : SplitLines(text)) {
    std::optional<JsonValue> v = testing::ParseJson(line);
    EXPECT_TRUE(v.has_value()) << "not JSON: " << line;
    if (v) values.push_back(std::move(*v));
  }
  return values;
}

std::vector<const JsonValue*> OfType(const std::vector<JsonValue>& lines,
                                     std::string_view type) {
  std::vector<const JsonValue*> out;
  for (const JsonValue& v : lines) {
    if (v.Str("type") == type) out.push_back(&v);
  }
  return out;
}

struct DumpOutput {
  absl::StatusOr<DumpSummary> summary;
  std::string text;
};

DumpOutput DumpInProcess(const std::string& path) {
  char* buffer = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&buffer, &size);
  DumpOutput result{DumpTraceAsJsonLines(path, out), {}};
  std::fclose(out);
  result.text.assign(buffer, size);
  std::free(buffer);
  return result;
}

class FullTraceDumpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.File("proc.fpt");
    WriteFile(path_, FramePackets(testing::FullTracePackets()));
    DumpOutput out = DumpInProcess(path_);
    ASSERT_TRUE(out.summary.ok()) << out.summary.status();
    EXPECT_TRUE(out.summary->warnings.empty());
    EXPECT_EQ(out.summary->files, 1u);
    EXPECT_EQ(out.summary->packets, testing::FullTracePackets().size());
    lines_ = ParseLines(out.text);
    EXPECT_EQ(out.summary->lines, lines_.size());
  }

  TempDir dir_;
  std::string path_;
  std::vector<JsonValue> lines_;
};

TEST_F(FullTraceDumpTest, StartsWithAHeaderLine) {
  ASSERT_FALSE(lines_.empty());
  const JsonValue& h = lines_[0];
  EXPECT_EQ(h.Str("type"), "header");
  EXPECT_EQ(h.Str("file"), path_);
  EXPECT_EQ(h.Int("pid"), 4242);
  EXPECT_EQ(h.Int("rank"), 3);
  EXPECT_EQ(h.Str("hostname"), "gpu-node-7");
  const JsonValue* argv = h.Find("argv");
  ASSERT_NE(argv, nullptr);
  ASSERT_EQ(argv->items.size(), 4u);
  EXPECT_EQ(argv->items[1].text, "train.py");
  const JsonValue* platform = h.Find("platform");
  ASSERT_NE(platform, nullptr);
  EXPECT_EQ(platform->Str("cpu_model"), "Test Xeon 8480");
  EXPECT_EQ(platform->Int("logical_cpus"), 64);
  EXPECT_DOUBLE_EQ(platform->Double("cgroup_cpu_limit"), 12.5);
  ASSERT_EQ(platform->Find("pci_devices")->items.size(), 2u);
  EXPECT_DOUBLE_EQ(
      platform->Find("pci_devices")->items[1].Double("max_link_gts"), 32.0);
  EXPECT_EQ(h.Int("local_rank"), 1);
  EXPECT_EQ(h.Str("origin"), "start");
  EXPECT_EQ(h.Find("clock")->Uint("realtime_ns"), 1'700'000'000'000'000'000u);
}

TEST_F(FullTraceDumpTest, CountsLinesOfEveryType) {
  const std::map<std::string, size_t> expected = {
      {"header", 1},        {"call_site", 1},      {"device", 1},
      {"thread", 3},        {"nvtx_category", 2},  {"api_call", 3},
      {"nvtx_range", 2},    {"nvtx_mark", 1},      {"kernel", 2},
      {"memcpy", 1},        {"memset", 1},         {"sync", 1},
      {"overhead", 1},      {"memory", 1},         {"external_correlation", 1},
      {"thread_sample", 3}, {"process_sample", 1}, {"system_sample", 1},
      {"counter", 2},       {"drops", 2},          {"clock", 1},
      {"footer", 1}};
  std::map<std::string, size_t> counted;
  for (const JsonValue& v : lines_) {
    ++counted[v.Str("type")];
    EXPECT_EQ(v.Int("pid"), 4242) << v.Str("type");
    EXPECT_NE(v.Find("tid"), nullptr) << v.Str("type");
  }
  EXPECT_EQ(counted, expected);
}

TEST_F(FullTraceDumpTest, ShowsCategoryNamesAndPacketDrops) {
  const auto categories = OfType(lines_, "nvtx_category");
  ASSERT_EQ(categories.size(), 2u);
  EXPECT_EQ(categories[0]->Str("domain"), "my.domain");
  EXPECT_EQ(categories[0]->Int("category"), 2);
  EXPECT_EQ(categories[0]->Str("name"), "data-loading");
  EXPECT_EQ(categories[1]->Int("category"), 7);
  EXPECT_EQ(categories[1]->Str("name"), "forward");
  const auto drops = OfType(lines_, "drops");
  ASSERT_EQ(drops.size(), 2u);
  EXPECT_EQ(drops[1]->Int("packets_dropped"), 7);
  EXPECT_EQ(drops[1]->Int("samples_dropped"), 6);
}

TEST_F(FullTraceDumpTest, DecodesEventTimesAndResolvesNames) {
  const auto calls = OfType(lines_, "api_call");
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[2]->Int("ts_ns"), 2'000'350);
  EXPECT_EQ(calls[2]->Int("dur_ns"), 5);
  EXPECT_EQ(calls[2]->Int("tid"), 4242);
  EXPECT_EQ(calls[0]->Str("name"), "cudaLaunchKernel");
  // Decoded from base_correlation_id + deltas, or absolute.
  EXPECT_EQ(calls[0]->Int("correlation_id"), 11);
  EXPECT_EQ(calls[1]->Int("correlation_id"), 12);
  EXPECT_EQ(calls[2]->Int("correlation_id"), 13);
  EXPECT_EQ(calls[1]->Find("correlation_delta"), nullptr);
  EXPECT_EQ(calls[0]->Int("call_site_id"), 5);
  EXPECT_EQ(calls[0]->Str("domain"), "runtime");
  EXPECT_EQ(calls[2]->Str("domain"), "driver");
  EXPECT_EQ(calls[1]->Int("bytes"), 1 << 20);

  const auto kernels = OfType(lines_, "kernel");
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[1]->Int("ts_ns"), 3'000'600);
  EXPECT_EQ(kernels[1]->Int("dur_ns"), 400);
  EXPECT_EQ(kernels[1]->Str("name"), "volta_sgemm");
  EXPECT_EQ(kernels[1]->Int("tid"), 0);
  EXPECT_EQ(kernels[0]->Int("grid_x"), 80);
  EXPECT_EQ(kernels[0]->Int("stream_id"), 7);

  const JsonValue& copy = *OfType(lines_, "memcpy").at(0);
  EXPECT_EQ(copy.Str("name"), "Memcpy HtoD");
  EXPECT_EQ(copy.Int("ts_ns"), 3'002'000);
  EXPECT_EQ(copy.Str("copy_kind"), "htod");
  EXPECT_EQ(copy.Str("src_kind"), "pageable");
  EXPECT_EQ(copy.Str("dst_kind"), "device");
  EXPECT_EQ(copy.Find("async")->boolean, true);

  const JsonValue& sync = *OfType(lines_, "sync").at(0);
  EXPECT_EQ(sync.Str("name"), "stream_synchronize");
  EXPECT_EQ(sync.Int("ts_ns"), 3'007'000);
  EXPECT_EQ(sync.Int("dur_ns"), 300);
  EXPECT_EQ(sync.Uint("stream_id"), 0xFFFFFFFFu);

  const auto ranges = OfType(lines_, "nvtx_range");
  EXPECT_EQ(ranges.at(0)->Int("ts_ns"), 1'999'000);
  EXPECT_EQ(ranges.at(0)->Int("dur_ns"), 5000);
  EXPECT_EQ(ranges.at(0)->Str("name"), "forward");
  EXPECT_EQ(ranges.at(0)->Str("domain"), "my.domain");
  EXPECT_EQ(ranges.at(0)->Str("kind"), "push_pop");
  EXPECT_EQ(ranges.at(1)->Int("depth"), 1);
  EXPECT_EQ(OfType(lines_, "nvtx_mark").at(0)->Int("ts_ns"), 2'000'007);
}

TEST_F(FullTraceDumpTest, PrintsSamplesWithTheirFields) {
  const auto threads = OfType(lines_, "thread_sample");
  ASSERT_EQ(threads.size(), 3u);
  EXPECT_EQ(threads[1]->Int("tid"), 4243);
  EXPECT_EQ(threads[1]->Int("ts_ns"), 4'000'000);
  EXPECT_EQ(threads[1]->Str("name"), "loader-0");
  EXPECT_EQ(threads[1]->Str("state"), "disk_wait");
  EXPECT_EQ(threads[1]->Int("user_ns"), 2000);
  EXPECT_EQ(threads[1]->Int("io_wait_ns"), 777);
  EXPECT_EQ(threads[2]->Int("ts_ns"), 14'000'000);

  const JsonValue& process = *OfType(lines_, "process_sample").at(0);
  EXPECT_EQ(process.Int("ts_ns"), 4'000'005);
  EXPECT_EQ(process.Int("read_bytes"), 1000);
  EXPECT_EQ(process.Int("num_threads"), 12);

  const JsonValue& system = *OfType(lines_, "system_sample").at(0);
  EXPECT_EQ(system.Int("ts_ns"), 3'999'995);
  EXPECT_EQ(system.Int("cpu_iowait_ns"), 40);
  EXPECT_EQ(system.Int("cpu_steal_ns"), 4);
  EXPECT_DOUBLE_EQ(system.Double("load_1m"), 1.5);

  const auto counters = OfType(lines_, "counter");
  EXPECT_EQ(counters.at(1)->Int("ts_ns"), 5'000'003);
  EXPECT_EQ(counters.at(0)->Str("name"), "sm_util_pct");
  EXPECT_DOUBLE_EQ(counters.at(0)->Double("value"), 87.5);
}

TEST_F(FullTraceDumpTest, PrintsDescriptivePackets) {
  const JsonValue& device = *OfType(lines_, "device").at(0);
  EXPECT_EQ(device.Str("name"), "NVIDIA H100");
  EXPECT_EQ(device.Int("sm_count"), 132);
  const JsonValue& site = *OfType(lines_, "call_site").at(0);
  EXPECT_EQ(site.Int("id"), 5);
  ASSERT_EQ(site.Find("frames")->items.size(), 2u);
  EXPECT_EQ(site.Find("frames")->items[0].Str("file"), "train.py");
  EXPECT_EQ(site.Find("frames")->items[0].Str("function"), "step");
  EXPECT_EQ(site.Find("frames")->items[1].Uint("pc"), 0xdeadbeefu);
  const auto drops = OfType(lines_, "drops");
  EXPECT_EQ(drops.at(1)->Int("events_dropped"), 3);
  EXPECT_EQ(drops.at(1)->Int("bytes_written"), 999);
  const JsonValue& footer = *OfType(lines_, "footer").at(0);
  EXPECT_EQ(footer.Int("ts_ns"), 20'000'000);
  EXPECT_EQ(footer.Str("reason"), "exit");
  const auto threads = OfType(lines_, "thread");
  EXPECT_EQ(threads.at(0)->Int("tid"), 4243);
  EXPECT_EQ(threads.at(0)->Str("name"), "pt_data_worker");
}

TEST(TraceDump, EscapesNamesFromTheTracedProgram) {
  TempDir dir;
  std::vector<trace::Packet> packets =
      testing::SmallProcessPackets(3, -1, "k\"quoted\"\\\n\x01", 100, 0);
  WriteFile(dir.File("a.fpt"), FramePackets(packets));
  DumpOutput out = DumpInProcess(dir.File("a.fpt"));
  ASSERT_TRUE(out.summary.ok()) << out.summary.status();
  const std::vector<JsonValue> lines = ParseLines(out.text);
  EXPECT_EQ(OfType(lines, "kernel").at(0)->Str("name"), "k\"quoted\"\\\n\x01");
}

TEST(TraceDump, TruncatedFileIsDumpedWithAWarning) {
  TempDir dir;
  const std::string bytes = FramePackets(testing::FullTracePackets());
  const std::string path = dir.File("cut.fpt");
  WriteFile(path, bytes.substr(0, bytes.size() - 3));
  DumpOutput out = DumpInProcess(path);
  ASSERT_TRUE(out.summary.ok()) << out.summary.status();
  ASSERT_EQ(out.summary->warnings.size(), 1u);
  // Every packet but the cut footer.
  const std::string whole =
      "truncated after " +
      std::to_string(testing::FullTracePackets().size() - 1) + " packets";
  EXPECT_NE(out.summary->warnings[0].find(whole), std::string::npos)
      << out.summary->warnings[0];
  const std::vector<JsonValue> lines = ParseLines(out.text);
  EXPECT_TRUE(OfType(lines, "footer").empty());
  EXPECT_EQ(OfType(lines, "kernel").size(), 2u);
}

TEST(TraceDump, SessionDirectoryGivesAHeaderPerFile) {
  TempDir dir;
  WriteFile(dir.File("a.fpt"),
            FramePackets(testing::SmallProcessPackets(10, 0, "ka", 100, 0)));
  WriteFile(dir.File("b.fpt"),
            FramePackets(testing::SmallProcessPackets(20, 1, "kb", 100, 0)));
  DumpOutput out = DumpInProcess(dir.path());
  ASSERT_TRUE(out.summary.ok()) << out.summary.status();
  const std::vector<JsonValue> lines = ParseLines(out.text);
  const auto headers = OfType(lines, "header");
  ASSERT_EQ(headers.size(), 2u);
  EXPECT_EQ(headers[0]->Str("file"), dir.File("a.fpt"));
  EXPECT_EQ(headers[1]->Int("rank"), 1);
  const auto kernels = OfType(lines, "kernel");
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0]->Int("pid"), 10);
  EXPECT_EQ(kernels[0]->Str("name"), "ka");
  EXPECT_EQ(kernels[1]->Int("pid"), 20);
  EXPECT_EQ(kernels[1]->Str("name"), "kb");
}

TEST(TraceDump, EmptyFileIsAnError) {
  TempDir dir;
  WriteFile(dir.File("a.fpt"), "");
  DumpOutput out = DumpInProcess(dir.File("a.fpt"));
  ASSERT_FALSE(out.summary.ok());
  EXPECT_NE(out.summary.status().message().find("the file is empty"),
            std::string::npos);
  EXPECT_TRUE(out.text.empty());
}

// ------------------------------------------------- the feedprof binary --

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

RunResult RunFeedprof(const std::string& args, const TempDir& dir) {
  const std::string err_path = dir.File("stderr.txt");
  const std::string command = std::string(FEEDPROF_BINARY_DIR) +
                              "/tools/feedprof " + args + " 2>" + err_path;
  RunResult result;
  std::FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) {
    result.out.append(buffer, n);
  }
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.err = testing::ReadFile(err_path);
  return result;
}

TEST(DumpCommand, PrintsJsonLinesForATrace) {
  TempDir dir;
  const std::string path = dir.File("proc.fpt");
  WriteFile(path, FramePackets(testing::FullTracePackets()));
  const RunResult run = RunFeedprof("dump " + path, dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(run.err.empty()) << run.err;
  const std::vector<JsonValue> lines = ParseLines(run.out);
  ASSERT_EQ(lines.size(), 33u);  // CountsLinesOfEveryType's sum
  EXPECT_EQ(lines[0].Str("type"), "header");
  EXPECT_EQ(lines[0].Int("pid"), 4242);
  const JsonValue& kernel = *OfType(lines, "kernel").at(0);
  EXPECT_EQ(kernel.Int("ts_ns"), 3'000'000);
  EXPECT_EQ(kernel.Int("dur_ns"), 500);
  EXPECT_EQ(kernel.Str("name"), "volta_sgemm");
}

TEST(DumpCommand, WarnsOnStderrAboutATruncatedFile) {
  TempDir dir;
  const std::string bytes = FramePackets(testing::FullTracePackets());
  const std::string path = dir.File("cut.fpt");
  WriteFile(path, bytes.substr(0, bytes.size() - 1));
  const RunResult run = RunFeedprof("dump " + path, dir);
  EXPECT_EQ(run.exit_code, 0);
  const std::string whole =
      "truncated after " +
      std::to_string(testing::FullTracePackets().size() - 1) + " packets";
  EXPECT_NE(run.err.find("warning: " + path + ": " + whole), std::string::npos)
      << run.err;
  EXPECT_EQ(ParseLines(run.out).size(), 32u);  // all but the footer
}

TEST(DumpCommand, BadPathExitsWithOne) {
  TempDir dir;
  const RunResult run = RunFeedprof("dump " + dir.File("missing.fpt"), dir);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find(dir.File("missing.fpt") + ": no such file"),
            std::string::npos)
      << run.err;
  EXPECT_TRUE(run.out.empty());
}

TEST(DumpCommand, UsageErrorsExitWithTwo) {
  TempDir dir;
  EXPECT_EQ(RunFeedprof("dump", dir).exit_code, 2);
  EXPECT_EQ(RunFeedprof("dump a b", dir).exit_code, 2);
  const RunResult bad_option = RunFeedprof("dump --bogus x", dir);
  EXPECT_EQ(bad_option.exit_code, 2);
  EXPECT_NE(bad_option.err.find("unknown option '--bogus'"), std::string::npos);
}

TEST(DumpCommand, HelpExitsWithZero) {
  TempDir dir;
  const RunResult run = RunFeedprof("dump --help", dir);
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_NE(run.out.find("usage: feedprof dump PATH"), std::string::npos);
}

}  // namespace
}  // namespace feedprof
