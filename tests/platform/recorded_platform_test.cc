// The platform snapshot end to end: a real program recorded with `feedprof
// record` (the injected library's snapshot, its wire writer), read back
// (libprotobuf, the reader) and analysed; the facts match what this
// machine's procfs and sysfs say, and a data directory named on the command
// line gets its mount in the snapshot and a finding in the report.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "feedprof/analysis.h"
#include "feedprof/trace_loader.h"
#include "gtest/gtest.h"
#include "platform/machine_reader.h"
#include "tests/testing/feedprof_cli_runner.h"

namespace feedprof::testing {
namespace {

TEST(RecordedPlatform, SnapshotOfARealRunReachesTheReport) {
  namespace fs = std::filesystem;
  const fs::path work =
      fs::path(::testing::TempDir()) /
      ("feedprof-recorded-platform-" + std::to_string(getpid()));
  fs::remove_all(work);
  fs::create_directories(work / "dataset");
  std::ofstream(work / "dataset" / "shard-0.bin") << std::string(4096, 'x');
  const std::string session = (work / "session").string();
  const CliResult rec = RunFeedprofCli(
      "record --no-report -o " + session +
      " -- python3 -c 'import sys; sum(i for i in range(200000))' " +
      (work / "dataset").string());
  ASSERT_EQ(rec.exit_code, 0) << rec.err;

  // What the library and record said is the only clue to a missing trace.
  absl::StatusOr<Timeline> tl = LoadTrace(session);
  ASSERT_TRUE(tl.ok()) << tl.status() << "\nrecord's stderr:\n"
                       << rec.err << "\nrecord's stdout:\n"
                       << rec.out;
  const Platform& p = tl->platform;
  EXPECT_TRUE(p.host_facts_probed)
      << p.cpu_model << " " << p.pid << " " << tl->processes.size() << " "
      << p.online_cpu_list;
  EXPECT_GT(p.pid, 0);
  ASSERT_TRUE(p.working_directory_mount.has_value());
  ASSERT_EQ(p.data_mounts.size(), 1u);
  EXPECT_EQ(p.data_mounts[0].path, (work / "dataset").string());

  // The same mount doctor finds for the directory, on this machine.
  const platform::StorageFacts live = platform::ReadStorageFacts(
      platform::MachineRoot("/"), (work / "dataset").string(), false);
  ASSERT_TRUE(live.mount.known()) << live.mount.why_unknown;
  EXPECT_EQ(p.data_mounts[0].mount_point, live.mount->mount_point);
  EXPECT_EQ(p.data_mounts[0].fs_type, live.mount->fs_type);
  EXPECT_EQ(p.data_mounts[0].source, live.mount->source);
  if (live.device.known()) {
    EXPECT_EQ(p.data_mounts[0].block_device, live.device->name);
  }
  // The memory policy and limit the process had are this machine's.
  platform::ProcessFacts self;
  platform::ReadProcessFacts(platform::MachineRoot("/"), std::nullopt, &self);
  if (self.memory_policy.known()) {
    EXPECT_EQ(p.memory_policy, *self.memory_policy);
  }

  AnalysisOptions options;
  absl::StatusOr<Report> r = Analyze(*tl, options);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->platform.source, "recorded snapshot");
  const PlatformFinding* data = r->platform.Find(
      "data_filesystem", "data " + (work / "dataset").string());
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(data->value.substr(0, live.mount->fs_type.size()),
            live.mount->fs_type);
  EXPECT_NE(r->platform.Find("data_filesystem", "working directory"), nullptr);
  const PlatformFinding* memlock = r->platform.Find("mem_locked_limit");
  ASSERT_NE(memlock, nullptr);
  EXPECT_NE(memlock->status, PlatformStatus::kUnknown) << memlock->meaning;
  fs::remove_all(work);
}

}  // namespace
}  // namespace feedprof::testing
