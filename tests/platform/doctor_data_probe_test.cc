// `feedprof doctor --data DIR` for real on this machine: a directory of
// eight 16 KiB files on a local disk, read by the probe past the page
// cache. The probe's own figures are exact (8 read calls of 16 KiB); the
// disk's are whole-disk counters, so other processes may add to them, but
// never take away: at least the probe's reads and bytes, an r_await, a
// utilization between 0 and 100 %. Text and JSON show the same lines.
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <regex>
#include <string>

#include "gtest/gtest.h"
#include "platform/machine_reader.h"
#include "tests/testing/feedprof_cli_runner.h"
#include "tests/testing/json_test_parser.h"

namespace feedprof::testing {
namespace {

constexpr int kFiles = 8;
constexpr size_t kFileBytes = 16 * 1024;

class DoctorDataProbe : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("feedprof-probe-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
    const std::string block(kFileBytes, 's');
    for (int i = 0; i < kFiles; ++i) {
      const std::string path =
          (dir_ / ("sample-" + std::to_string(i) + ".jpg")).string();
      const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ASSERT_GE(fd, 0) << path;
      ASSERT_EQ(write(fd, block.data(), block.size()),
                static_cast<ssize_t>(block.size()));
      // On the disk before the probe reads it past the cache.
      ASSERT_EQ(fsync(fd), 0);
      close(fd);
    }
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  std::filesystem::path dir_;
};

TEST_F(DoctorDataProbe, FactsOfARealProbe) {
  const platform::StorageFacts s =
      platform::ReadStorageFacts(platform::MachineRoot("/"), dir_, true);
  ASSERT_TRUE(s.probe.known()) << s.probe.why_unknown;
  EXPECT_EQ(s.probe->files, static_cast<uint32_t>(kFiles));
  EXPECT_EQ(s.probe->bytes, kFiles * kFileBytes);
  EXPECT_EQ(s.probe->read_calls, static_cast<uint64_t>(kFiles));
  EXPECT_DOUBLE_EQ(s.probe->AverageReadBytes(), kFileBytes);
  EXPECT_GT(s.probe->read_mean_ms, 0.0);
  EXPECT_GE(s.probe->read_max_ms, s.probe->read_mean_ms);
  EXPECT_LE(s.probe->read_max_ms, s.probe->max_ms);
  if (!s.device_reads.known()) {
    GTEST_SKIP() << "no disk under " << dir_ << ": "
                 << s.device_reads.why_unknown;
  }
  const platform::DeviceReadFacts& d = *s.device_reads;
  ASSERT_TRUE(s.device.known());
  EXPECT_EQ(d.device, s.device->name);
  EXPECT_GE(d.elapsed_ms, s.probe->elapsed_ms);
  EXPECT_LT(d.elapsed_ms, 1000.0);
  EXPECT_GE(d.Utilization(), 0.0);
  EXPECT_LE(d.Utilization(), 1.0);
  if (s.probe->direct) {
    // Each file's read is at least one request of the disk's.
    EXPECT_GE(d.reads, static_cast<uint64_t>(kFiles));
    EXPECT_GE(d.bytes, kFiles * kFileBytes);
    ASSERT_TRUE(d.AwaitMs().has_value());
    EXPECT_GE(*d.AwaitMs(), 0.0);
    EXPECT_LT(*d.AwaitMs(), 1000.0);
  }
  EXPECT_FALSE(s.nfs_reads.known());
}

// The line of `check` in doctor's text, from its status on.
std::string LineOf(const std::string& out, const std::string& check) {
  const std::regex line("\n  (ok|warn|fail|unknown) +" + check + " [^\n]*");
  std::smatch m;
  if (!std::regex_search(out, m, line)) return "";
  return m.str().substr(3);
}

TEST_F(DoctorDataProbe, TextAndJsonShowTheFigures) {
  const CliResult text = RunFeedprofCli("doctor --data " + dir_.string());
  ASSERT_TRUE(text.exit_code == 0 || text.exit_code == 1) << text.err;
  const std::string latency = LineOf(text.out, "data_read_latency");
  ASSERT_FALSE(latency.empty()) << text.out;
  EXPECT_NE(latency.find("8 files, 128.0 KiB read: median "), std::string::npos)
      << latency;
  EXPECT_NE(latency.find("; 8 read calls of 16.0 KiB on average, "),
            std::string::npos)
      << latency;
  const std::string device = LineOf(text.out, "data_device_reads");
  ASSERT_FALSE(device.empty()) << text.out;
  if (device.starts_with("unknown")) {
    GTEST_SKIP() << "no disk figures here: " << device;
  }
  // "vda over 3.0 ms: 8 reads, 128.0 KiB (16.0 KiB per read), r_await
  // 0.25 ms, util not measured (too short a window) ...": the utilization
  // only over 100 ms or more.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      device, m,
      std::regex(R"(: (\S+) over ([0-9.]+) ms: ([0-9]+) reads, .* r_await )"
                 R"(([0-9.]+) ms, util (not measured|([0-9.]+)%))")))
      << device;
  EXPECT_GT(std::stod(m[2]), 0.0);
  EXPECT_GE(std::stoull(m[3]), static_cast<uint64_t>(kFiles)) << device;
  EXPECT_GE(std::stod(m[4]), 0.0);
  if (std::stod(m[2]) < 100.0) {
    EXPECT_EQ(m[5], "not measured") << device;
  } else {
    ASSERT_TRUE(m[6].matched) << device;
    EXPECT_LE(std::stod(m[6]), 100.0);
  }
  EXPECT_NE(device.find("other processes' I/O in the interval counts too"),
            std::string::npos);

  const CliResult json =
      RunFeedprofCli("doctor --format json --data " + dir_.string());
  const std::optional<JsonValue> doc = ParseJson(json.out);
  ASSERT_TRUE(doc.has_value()) << json.out;
  const JsonValue* checks = doc->Find("checks");
  ASSERT_NE(checks, nullptr);
  int found = 0;
  for (const JsonValue& c : checks->items) {
    if (c.Str("check") == "data_read_latency") {
      ++found;
      EXPECT_NE(c.Str("value").find("8 read calls of 16.0 KiB on average"),
                std::string::npos)
          << c.Str("value");
    } else if (c.Str("check") == "data_device_reads") {
      ++found;
      EXPECT_NE(c.Str("value").find(" over "), std::string::npos);
      EXPECT_FALSE(c.Str("meaning").empty());
    }
  }
  EXPECT_EQ(found, 2);
  // A local disk has no network line.
  EXPECT_EQ(text.out.find("data_network_fs"), std::string::npos);
}

}  // namespace
}  // namespace feedprof::testing
