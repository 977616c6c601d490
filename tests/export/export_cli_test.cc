// `feedprof export` as a user runs it: a written, valid file; usage errors
// exit 2; a missing input or an unwritable output exit 1 and leave no file.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "tests/export/exported_trace.h"

namespace feedprof {
namespace {

namespace fs = std::filesystem;

struct RunResult {
  int exit_code = -1;
  std::string err;
};

RunResult Export(const std::string& args) {
  const std::string err_path =
      (fs::temp_directory_path() /
       ("feedprof_export_cli_err_" + std::to_string(::getpid())))
          .string();
  const std::string command = std::string(FEEDPROF_BINARY_DIR) +
                              "/tools/feedprof export " + args + " 2>" +
                              err_path + " >/dev/null";
  RunResult r;
  const int status = std::system(command.c_str());
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (std::FILE* f = std::fopen(err_path.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) r.err.append(buf, n);
    std::fclose(f);
  }
  fs::remove(err_path);
  return r;
}

std::string SharedTrace() {
  return std::string(FEEDPROF_SHARED_TRACES_DIR) +
         "/hta_critical_path/simple_add/"
         "benchmark_result_493459_1694039959_trace.json.gz";
}

class ExportCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("feedprof_export_cli_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(ExportCliTest, WritesAValidTrace) {
  if (!fs::exists(SharedTrace())) GTEST_SKIP() << "shared traces absent";
  const std::string out = (dir_ / "out.json.gz").string();
  const RunResult r = Export(SharedTrace() + " -o " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("wrote " + out), std::string::npos) << r.err;
  testing::ExpectValidExport(testing::ReadExportedTrace(out));
  // Nothing but the output is left in the directory.
  EXPECT_EQ(
      std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_F(ExportCliTest, UsageErrorsExitTwo) {
  EXPECT_EQ(Export("").exit_code, 2);            // no PATH, no -o
  EXPECT_EQ(Export("trace.json").exit_code, 2);  // no -o
  EXPECT_EQ(Export("t.json -o o.json --steps 3:1").exit_code, 2);
  EXPECT_EQ(Export("t.json -o o.json --steps x").exit_code, 2);
  EXPECT_EQ(Export("t.json -o o.json --from 5ms --to 1ms").exit_code, 2);
  const RunResult both = Export("t.json -o o.json --steps 1:2 --from 1ms");
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("--steps"), std::string::npos) << both.err;
  EXPECT_EQ(Export("t.json -o o.json --bogus").exit_code, 2);
}

TEST_F(ExportCliTest, MissingInputExitsOne) {
  const std::string out = (dir_ / "out.json").string();
  const RunResult r = Export((dir_ / "missing.json").string() + " -o " + out);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("missing.json"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(ExportCliTest, UnwritableOutputExitsOneAndLeavesNoFile) {
  if (!fs::exists(SharedTrace())) GTEST_SKIP() << "shared traces absent";
  const fs::path ro = dir_ / "read-only";
  fs::create_directories(ro);
  fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
  const std::string out = (ro / "out.json").string();
  const RunResult r = Export(SharedTrace() + " -o " + out);
  // root ignores directory permissions; then a missing directory stands in.
  if (r.exit_code == 0) {
    fs::remove(out);
    const std::string missing = (dir_ / "no-such-dir" / "out.json").string();
    const RunResult m = Export(SharedTrace() + " -o " + missing);
    EXPECT_EQ(m.exit_code, 1);
    EXPECT_NE(m.err.find(missing), std::string::npos) << m.err;
    EXPECT_FALSE(fs::exists(missing));
  } else {
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find(out), std::string::npos) << r.err;
  }
  EXPECT_EQ(std::distance(fs::directory_iterator(ro), fs::directory_iterator()),
            0);
  fs::permissions(ro, fs::perms::owner_all);
}

TEST_F(ExportCliTest, StepsOutsideTheTraceExitOne) {
  if (!fs::exists(SharedTrace())) GTEST_SKIP() << "shared traces absent";
  const std::string out = (dir_ / "out.json").string();
  const RunResult r = Export(SharedTrace() + " -o " + out + " --steps 1:999");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
}  // namespace feedprof
