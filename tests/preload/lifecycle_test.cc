// The process lifecycle under LD_PRELOAD with ordinary programs: the exit
// line, unchanged output and exit codes, disabled and failing output,
// helpers that leave no clutter, SIGTERM, fork.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <string>
#include <thread>

#include "tests/testing/process_runner.h"
#include "tests/testing/trace_test_util.h"

namespace feedprof::testing {
namespace {

const std::string kLibrary =
    std::string(FEEDPROF_BINARY_DIR) + "/preload/libfeedprof.so";

class LifecycleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = MakeTempDir("feedprof-lifecycle-test");
    ASSERT_FALSE(root_.empty());
    session_ = root_ + "/session";
  }
  void TearDown() override { RemoveTree(root_); }
  std::map<std::string, std::string> Env(
      std::map<std::string, std::string> extra = {}) {
    std::map<std::string, std::string> env = {{"LD_PRELOAD", kLibrary},
                                              {"FEEDPROF_OUTPUT_DIR", session_},
                                              {"FEEDPROF_SESSION_DIR", ""},
                                              {"FEEDPROF_DISABLE", ""},
                                              {"FEEDPROF_LOG_LEVEL", ""}};
    for (const auto& [k, v] : extra) env[k] = v;
    return env;
  }
  std::string root_;
  std::string session_;
};

TEST_F(LifecycleTest, OutputAndExitCodeAreUnchanged) {
  const std::vector<std::string> cmd = {"ls", "-d", "/", "/nonexistent-x"};
  const ProcessResult plain = RunProcess(cmd, {{"LD_PRELOAD", ""}}, root_);
  const ProcessResult traced = RunProcess(cmd, Env(), root_);
  ASSERT_TRUE(traced.exited());
  EXPECT_EQ(traced.exit_code(), plain.exit_code());
  EXPECT_NE(plain.exit_code(), 0);
  EXPECT_EQ(traced.out, plain.out);
  EXPECT_EQ(WithoutFeedprofLines(traced.err), plain.err);
}

TEST_F(LifecycleTest, ExitPrintsOneLineAndLeavesACompleteTrace) {
  // `true` returns from main with stderr open (ls closes it in an atexit
  // handler, and then the line cannot be printed).
  const ProcessResult r =
      RunProcess({"true", "--first", "second"}, Env(), root_);
  ASSERT_EQ(r.exit_code(), 0);
  const auto lines = FeedprofLines(r.err);
  ASSERT_EQ(lines.size(), 1u) << r.err;
  const auto files = TraceFilesIn(session_);
  ASSERT_EQ(files.size(), 1u);
  const ParsedTrace t = ParseTraceFile(files[0]);
  // The line counts what the file holds: host samples too, not only events
  // (the working directory's disk's among them).
  uint64_t samples = 0;
  for (const auto& p : t.packets) {
    samples += static_cast<uint64_t>(
        p.host_samples().threads_size() + p.host_samples().process_size() +
        p.host_samples().system_size() + p.host_samples().disks_size() +
        p.host_samples().nfs_size() + p.counters().samples_size());
  }
  EXPECT_GT(samples, 0u);
  EXPECT_EQ(lines[0], "feedprof: trace written to " + files[0] +
                          " (0 events, " + std::to_string(samples) +
                          " samples, 0 dropped)");
  ASSERT_TRUE(t.clean_end);
  ASSERT_GE(t.packets.size(), 3u);
  ASSERT_TRUE(t.packets.front().has_header());
  const auto& h = t.packets.front().header();
  EXPECT_EQ(h.origin(), "start");
  ASSERT_EQ(h.argv_size(), 3);
  EXPECT_EQ(h.argv(0), "true");
  EXPECT_EQ(h.argv(2), "second");
  EXPECT_EQ(h.rank(), -1);
  EXPECT_GT(h.clock().monotonic_ns(), 0u);
  bool env_ok = true;
  for (const auto& kv : h.environment()) {
    env_ok &= kv.key().rfind("FEEDPROF_", 0) == 0;
  }
  EXPECT_TRUE(env_ok);
  ASSERT_TRUE(t.packets.back().has_footer());
  EXPECT_EQ(t.packets.back().footer().reason(), "exit");
}

TEST_F(LifecycleTest, ChildrenSeeTheSessionAndTheInjectionPaths) {
  const ProcessResult r =
      RunProcess({"sh", "-c",
                  "printf '%s\\n%s\\n' \"$FEEDPROF_SESSION_DIR\" "
                  "\"$NVTX_INJECTION64_PATH\""},
                 Env({{"NVTX_INJECTION64_PATH", ""}}), root_);
  EXPECT_EQ(r.exit_code(), 0);
  char resolved[PATH_MAX];
  ASSERT_NE(realpath(kLibrary.c_str(), resolved), nullptr);
  EXPECT_EQ(r.out, session_ + "\n" + std::string(resolved) + "\n");
  EXPECT_TRUE(FeedprofLines(r.err).empty()) << r.err;
}

TEST_F(LifecycleTest, AnotherToolsNvtxInjectionIsLeftAloneWithOneLine) {
  const ProcessResult r = RunProcess(
      {"sh", "-c", "printf '%s' \"$NVTX_INJECTION64_PATH\""},
      Env({{"NVTX_INJECTION64_PATH", "/opt/other/libtool.so"}}), root_);
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_EQ(r.out, "/opt/other/libtool.so");
  const auto lines = FeedprofLines(r.err);
  ASSERT_EQ(lines.size(), 1u) << r.err;
  EXPECT_NE(lines[0].find("NVTX_INJECTION64_PATH is already set to "
                          "/opt/other/libtool.so"),
            std::string::npos)
      << lines[0];
}

// dash saves fd 1, closes it and dup2()s stderr onto it for `>&2`; a
// sampler thread opening /proc files in the same descriptor table would
// make some of those dup2() calls fail with EBUSY.
TEST_F(LifecycleTest, ShellRedirectionsNeverCollideWithTheSampler) {
  const ProcessResult r = RunProcess(
      {"sh", "-c",
       "i=0; while [ $i -lt 5000 ]; do echo x >&2; i=$((i+1)); done; "
       "echo done"},
      Env({{"FEEDPROF_SAMPLING_HZ", "1000"}}), root_);
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_EQ(r.out, "done\n");
  std::string expected;
  for (int i = 0; i < 5000; ++i) expected += "x\n";
  const std::string err = WithoutFeedprofLines(r.err);
  EXPECT_EQ(err.size(), expected.size());
  EXPECT_TRUE(err == expected) << err.substr(0, 300);
}

TEST_F(LifecycleTest, InitializeInjectionReturnsOne) {
  // Loaded the way the CUDA driver loads it (dlopen), with recording off so
  // the test process itself is not recorded.
  setenv("FEEDPROF_DISABLE", "1", 1);
  void* handle = dlopen(kLibrary.c_str(), RTLD_NOW | RTLD_LOCAL);
  unsetenv("FEEDPROF_DISABLE");
  ASSERT_NE(handle, nullptr) << dlerror();
  auto* init =
      reinterpret_cast<int (*)()>(dlsym(handle, "InitializeInjection"));
  ASSERT_NE(init, nullptr);
  EXPECT_EQ(init(), 1);
}

TEST_F(LifecycleTest, RankGoesIntoTheFileName) {
  const ProcessResult r =
      RunProcess({"ls", "-d", "/"}, Env({{"RANK", "5"}}), root_);
  ASSERT_EQ(r.exit_code(), 0);
  const auto files = TraceFilesIn(session_);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_NE(files[0].find(".rank5.fpt"), std::string::npos) << files[0];
  EXPECT_EQ(ParseTraceFile(files[0]).packets.front().header().rank(), 5);
}

TEST_F(LifecycleTest, DisabledDoesNothing) {
  const ProcessResult r =
      RunProcess({"ls", "-d", "/"}, Env({{"FEEDPROF_DISABLE", "1"}}), root_);
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_EQ(r.err, "");
  EXPECT_NE(access(session_.c_str(), F_OK), 0);
}

TEST_F(LifecycleTest, UnwritableOutputTurnsRecordingOffWithOneMessage) {
  const ProcessResult plain =
      RunProcess({"ls", "-d", "/"}, {{"LD_PRELOAD", ""}}, root_);
  const ProcessResult r = RunProcess(
      {"ls", "-d", "/"},
      Env({{"FEEDPROF_OUTPUT_DIR", "/proc/self/no-such-dir/run"}}), root_);
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_EQ(r.out, plain.out);
  const auto lines = FeedprofLines(r.err);
  ASSERT_EQ(lines.size(), 1u) << r.err;
  EXPECT_NE(lines[0].find("recording is off"), std::string::npos) << lines[0];
}

TEST_F(LifecycleTest, UncreatableOutputFailsAtTheFirstWriteWithOneMessage) {
  // /proc exists, so the start succeeds; the directory is made only when
  // the first trace file is written (here: at exit), and that fails.
  const ProcessResult plain =
      RunProcess({"true", "a", "b"}, {{"LD_PRELOAD", ""}}, root_);
  const ProcessResult r = RunProcess(
      {"true", "a", "b"},
      Env({{"FEEDPROF_OUTPUT_DIR", "/proc/feedprof-no-such-run"}}), root_);
  EXPECT_EQ(r.exit_code(), plain.exit_code());
  EXPECT_EQ(r.out, plain.out);
  const auto lines = FeedprofLines(r.err);
  ASSERT_EQ(lines.size(), 1u) << r.err;
  EXPECT_NE(lines[0].find("cannot create output directory "
                          "/proc/feedprof-no-such-run"),
            std::string::npos)
      << lines[0];
  EXPECT_NE(lines[0].find("recording is off"), std::string::npos) << lines[0];
}

TEST_F(LifecycleTest, SymlinkAtTheOutputPathIsRefused) {
  const std::string target = root_ + "/elsewhere";
  ASSERT_EQ(mkdir(target.c_str(), 0700), 0);
  ASSERT_EQ(symlink(target.c_str(), session_.c_str()), 0);
  const ProcessResult r = RunProcess({"true", "a", "b"}, Env(), root_);
  EXPECT_EQ(r.exit_code(), 0);
  const auto lines = FeedprofLines(r.err);
  ASSERT_EQ(lines.size(), 1u) << r.err;
  EXPECT_NE(lines[0].find("symbolic link"), std::string::npos) << lines[0];
  EXPECT_TRUE(TraceFilesIn(target).empty());
}

TEST_F(LifecycleTest, ShellEndingWithUnderscoreExitKeepsItsFileSilently) {
  // dash ends with _exit(2): the library's _exit finishes its trace as exit
  // would, without the exit line. Its pipeline's children are helpers that
  // recorded nothing: `echo` runs in a subshell (a fork of the shell, a
  // helper like the shell) and `cat` is exec'd; they leave no file.
  const ProcessResult r =
      RunProcess({"sh", "-c", "echo hi | cat"}, Env(), root_);
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_EQ(r.out, "hi\n");
  EXPECT_EQ(r.err, "");
  const auto files = TraceFilesIn(session_);
  ASSERT_EQ(files.size(), 1u);
  const ParsedTrace t = ParseTraceFile(files[0]);
  ASSERT_TRUE(t.clean_end);
  ASSERT_FALSE(t.packets.empty());
  EXPECT_EQ(t.packets.front().header().origin(), "start");
  EXPECT_EQ(t.packets.front().header().argv(0), "sh");
  ASSERT_TRUE(t.packets.back().has_footer());
  EXPECT_EQ(t.packets.back().footer().reason(), "exit");
}

TEST_F(LifecycleTest, KilledBeforeItsFirstFlushLeavesNoOutputDirectory) {
  // SIGKILL runs nothing: the unnamed file vanishes with the process, and
  // with no file written the directory is never made.
  const ProcessResult r =
      RunProcess({"sh", "-c", "echo hi; kill -9 $$"}, Env(), root_);
  EXPECT_EQ(r.term_signal(), SIGKILL);
  EXPECT_EQ(r.out, "hi\n");
  EXPECT_EQ(r.err, "");
  EXPECT_NE(access(session_.c_str(), F_OK), 0);
}

TEST_F(LifecycleTest, FullDiskTurnsRecordingOffWithOneMessage) {
  // A file size limit of 512 bytes makes write(2) fail with EFBIG, as a
  // full disk fails with ENOSPC; SIGXFSZ is ignored so the write returns.
  // A long argument makes the header alone larger than the limit (two
  // arguments: with exactly one, `true` closes stderr at exit).
  const std::string script =
      "ulimit -f 1; trap '' XFSZ; echo /; LD_PRELOAD=" + kLibrary +
      " exec true " + std::string(600, 'x') + " y";
  const ProcessResult r = RunProcess(
      {"sh", "-c", script},
      {{"LD_PRELOAD", ""}, {"FEEDPROF_OUTPUT_DIR", session_}}, root_);
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_EQ(r.out, "/\n");
  const auto lines = FeedprofLines(r.err);
  ASSERT_EQ(lines.size(), 1u) << r.err;
  EXPECT_NE(lines[0].find("cannot write"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("recording is off"), std::string::npos) << lines[0];
  // The file is named by the name it was to get, even before it has one.
  EXPECT_NE(lines[0].find("cannot write " + session_ + "/"), std::string::npos)
      << lines[0];
  EXPECT_NE(lines[0].find(".fpt: "), std::string::npos) << lines[0];
  EXPECT_EQ(lines[0].find("(unnamed)"), std::string::npos) << lines[0];
}

TEST_F(LifecycleTest, DiskFullAtStartNamesTheFileItCouldNotWrite) {
  // A real ENOSPC: an 8 KiB tmpfs, filled before the program starts. Needs
  // the right to mount (root outside a restricted container).
  const std::string mount_point = root_ + "/small";
  ASSERT_EQ(mkdir(mount_point.c_str(), 0700), 0);
  const ProcessResult mounted = RunProcess(
      {"sh", "-c",
       "mount -t tmpfs -o size=8k tmpfs '" + mount_point +
           "' 2>/dev/null && head -c 65536 /dev/zero > '" + mount_point +
           "/fill' 2>/dev/null; mountpoint -q '" + mount_point + "'"},
      {{"LD_PRELOAD", ""}}, root_);
  if (mounted.exit_code() != 0) {
    GTEST_SKIP() << "cannot mount a small tmpfs here (needs root)";
  }
  const std::string session = mount_point + "/session";
  const ProcessResult r = RunProcess(
      {"sh", "-c", "echo /; LD_PRELOAD=" + kLibrary + " exec true x y"},
      {{"LD_PRELOAD", ""}, {"FEEDPROF_OUTPUT_DIR", session}}, root_);
  RunProcess({"umount", mount_point}, {{"LD_PRELOAD", ""}}, root_);
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_EQ(r.out, "/\n");
  const auto lines = FeedprofLines(r.err);
  ASSERT_EQ(lines.size(), 1u) << r.err;
  EXPECT_EQ(lines[0].rfind("feedprof: cannot write " + session + "/", 0), 0u)
      << lines[0];
  EXPECT_NE(lines[0].find(".fpt: the disk is full; recording is off"),
            std::string::npos)
      << lines[0];
}

TEST_F(LifecycleTest, ShortLivedHelpersLeaveNoFiles) {
  // The shell created the session: its file stays. Its subshell (a helper
  // like the shell) and the helpers it forks and execs recorded nothing,
  // used almost no CPU and ended within a second: they leave no file and
  // print nothing. bash ends with exit(3), so its own file is complete and
  // its exit line printed.
  if (std::system("command -v bash >/dev/null") != 0) {
    GTEST_SKIP() << "bash not installed";
  }
  const ProcessResult r = RunProcess(
      {"bash", "-c",
       "ls / >/dev/null; x=$(echo sub); ls /tmp >/dev/null; cat /dev/null; "
       "exit 4"},
      Env(), root_);
  EXPECT_EQ(r.exit_code(), 4);
  const auto files = TraceFilesIn(session_);
  ASSERT_EQ(files.size(), 1u) << r.err;
  const auto lines = FeedprofLines(r.err);
  ASSERT_EQ(lines.size(), 1u) << r.err;
  EXPECT_NE(lines[0].find(files[0]), std::string::npos) << lines[0];
  EXPECT_EQ(ParseTraceFile(files[0]).packets.front().header().argv(0), "bash");
}

TEST_F(LifecycleTest, SigtermFlushesAFooterAndStillKills) {
  RunningProcess p({"sleep", "30"}, Env(), root_);
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  ASSERT_EQ(kill(p.pid(), SIGTERM), 0);
  const ProcessResult r = p.Wait();
  EXPECT_EQ(r.term_signal(), SIGTERM);
  const auto files = TraceFilesIn(session_);
  ASSERT_EQ(files.size(), 1u);
  const ParsedTrace t = ParseTraceFile(files[0]);
  ASSERT_TRUE(t.clean_end);
  ASSERT_FALSE(t.packets.empty());
  ASSERT_TRUE(t.packets.back().has_footer());
  EXPECT_EQ(t.packets.back().footer().reason(), "signal");
  EXPECT_EQ(t.packets.back().footer().signal(), SIGTERM);
}

TEST_F(LifecycleTest, ForkedChildWritesItsOwnFile) {
  // The subshell is a fork of the recorded shell that burns CPU for a
  // while: a shell's subshell follows the helper rule, and this one is no
  // trivial helper. With a 20 ms flush interval its file is written before
  // it ends. (A fork child of any other program keeps its file however
  // short: tests/e2e/worker_exit_e2e_test.cc.)
  const std::string script =
      "( i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done ); exit 0";
  const ProcessResult r = RunProcess(
      {"sh", "-c", script}, Env({{"FEEDPROF_FLUSH_INTERVAL_MS", "20"}}), root_);
  EXPECT_EQ(r.exit_code(), 0);
  const auto files = TraceFilesIn(session_);
  ASSERT_EQ(files.size(), 2u) << r.err;
  std::map<std::string, trace::Header> headers;
  for (const auto& f : files) {
    const ParsedTrace t = ParseTraceFile(f);
    ASSERT_FALSE(t.packets.empty()) << f;
    headers[t.packets.front().header().origin()] = t.packets.front().header();
  }
  ASSERT_EQ(headers.count("start"), 1u);
  ASSERT_EQ(headers.count("fork"), 1u);
  EXPECT_EQ(headers["fork"].parent_trace_pid(), headers["start"].pid());
  EXPECT_EQ(headers["fork"].ppid(), headers["start"].pid());
}

}  // namespace
}  // namespace feedprof::testing
