// The session directory is created fresh at the session's first write,
// never through a symlink, never overwriting, never in another run's
// directory; trace files get new names on a clash.
#include "preload/session_dir.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "preload/process_facts.h"

namespace feedprof::preload {
namespace {

class SessionDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char templ[] = "/tmp/feedprof-session-test-XXXXXX";
    ASSERT_NE(mkdtemp(templ), nullptr);
    root_ = templ;
  }
  void TearDown() override {
    std::string cmd = "rm -rf '" + root_ + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
  }
  Config WithOutput(const std::string& dir) {
    Config c;
    std::snprintf(c.output_dir, sizeof c.output_dir, "%s", dir.c_str());
    return c;
  }
  std::string root_;
};

void NameFn(const void* context, int attempt, char* out, size_t size) {
  TraceFileName(*static_cast<const ProcessFacts*>(context), attempt, out, size);
}

TEST_F(SessionDirTest, CreatesTheOutputDirectoryAtTheFirstWrite) {
  const std::string dir = root_ + "/a/b/run";
  SessionDir s;
  char error[512];
  ASSERT_TRUE(
      OpenSessionDir(WithOutput(dir), 1234, nullptr, &s, error, sizeof error))
      << error;
  EXPECT_TRUE(s.created);
  EXPECT_EQ(std::string(s.path), dir);
  struct stat st;
  // The parents are made at start, the directory itself only when needed.
  ASSERT_EQ(lstat((root_ + "/a/b").c_str(), &st), 0);
  EXPECT_NE(lstat(dir.c_str(), &st), 0);
  ASSERT_TRUE(EnsureSessionDir(&s, error, sizeof error)) << error;
  ASSERT_EQ(lstat(dir.c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(st.st_mode & 0022, 0u);  // not group/world writable
  EXPECT_EQ(std::string(s.used_path), dir);
  CloseSessionDir(&s);

  // A second process with the same FEEDPROF_OUTPUT_DIR joins it.
  SessionDir again;
  ASSERT_TRUE(OpenSessionDir(WithOutput(dir), 1235, nullptr, &again, error,
                             sizeof error));
  EXPECT_FALSE(again.created);
  EXPECT_TRUE(again.exists);
  EXPECT_GE(again.fd, 0);
  CloseSessionDir(&again);
}

TEST_F(SessionDirTest, ProcessesThatStartedBeforeTheDirectoryExistedJoinIt) {
  // Two ranks started with the same FEEDPROF_OUTPUT_DIR before either
  // wrote: the first write creates it, the second joins it.
  const std::string dir = root_ + "/run";
  SessionDir a, b;
  char error[512];
  ASSERT_TRUE(
      OpenSessionDir(WithOutput(dir), 1, nullptr, &a, error, sizeof error));
  ASSERT_TRUE(
      OpenSessionDir(WithOutput(dir), 2, nullptr, &b, error, sizeof error));
  ASSERT_TRUE(EnsureSessionDir(&a, error, sizeof error)) << error;
  ASSERT_TRUE(EnsureSessionDir(&b, error, sizeof error)) << error;
  EXPECT_EQ(std::string(a.used_path), dir);
  EXPECT_EQ(std::string(b.used_path), dir);
  CloseSessionDir(&a);
  CloseSessionDir(&b);
}

TEST_F(SessionDirTest, UnwritableParentFailsAtTheFirstWriteWithAMessage) {
  // /proc exists (so the start succeeds) but nobody, root included, can
  // make a directory in it.
  SessionDir s;
  char error[512];
  ASSERT_TRUE(OpenSessionDir(WithOutput("/proc/feedprof-no-such-run"), 1,
                             nullptr, &s, error, sizeof error))
      << error;
  EXPECT_FALSE(EnsureSessionDir(&s, error, sizeof error));
  EXPECT_NE(std::string(error).find("cannot create output directory "
                                    "/proc/feedprof-no-such-run"),
            std::string::npos)
      << error;
  CloseSessionDir(&s);
}

TEST_F(SessionDirTest, MissingParentThatCannotBeMadeFailsAtStart) {
  SessionDir s;
  char error[512];
  EXPECT_FALSE(OpenSessionDir(WithOutput("/proc/self/no-such-dir/run"), 1,
                              nullptr, &s, error, sizeof error));
  EXPECT_NE(std::string(error).find("cannot create output directory"),
            std::string::npos)
      << error;
}

TEST_F(SessionDirTest, RefusesAPreExistingSymlink) {
  const std::string target = root_ + "/elsewhere";
  ASSERT_EQ(mkdir(target.c_str(), 0700), 0);
  const std::string link = root_ + "/run";
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  SessionDir s;
  char error[512];
  EXPECT_FALSE(
      OpenSessionDir(WithOutput(link), 1, nullptr, &s, error, sizeof error));
  EXPECT_NE(std::string(error).find("symbolic link"), std::string::npos)
      << error;
  EXPECT_EQ(s.fd, -1);

  // Joining through FEEDPROF_SESSION_DIR refuses it too.
  Config join;
  std::snprintf(join.session_dir, sizeof join.session_dir, "%s", link.c_str());
  EXPECT_FALSE(OpenSessionDir(join, 1, nullptr, &s, error, sizeof error));
}

TEST_F(SessionDirTest, RefusesASymlinkPlantedBeforeTheFirstWrite) {
  // The name was free at start; a link appears before the first write.
  const std::string target = root_ + "/elsewhere";
  ASSERT_EQ(mkdir(target.c_str(), 0700), 0);
  const std::string link = root_ + "/run";
  SessionDir s;
  char error[512];
  ASSERT_TRUE(
      OpenSessionDir(WithOutput(link), 1, nullptr, &s, error, sizeof error))
      << error;
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  EXPECT_FALSE(EnsureSessionDir(&s, error, sizeof error));
  EXPECT_NE(std::string(error).find("symbolic link"), std::string::npos)
      << error;
  ProcessFacts facts;
  facts.pid = 9;
  std::strcpy(facts.hostname, "h");
  char path[PATH_MAX];
  EXPECT_LT(CreateTraceFile(&s, NameFn, &facts, path, sizeof path), 0);
  EXPECT_NE(access((target + "/h-9.fpt").c_str(), F_OK), 0);
  CloseSessionDir(&s);
}

TEST_F(SessionDirTest, RefusesAFileWhereTheDirectoryShouldBe) {
  const std::string file = root_ + "/run";
  FILE* f = std::fopen(file.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fclose(f);
  SessionDir s;
  char error[512];
  EXPECT_FALSE(
      OpenSessionDir(WithOutput(file), 1, nullptr, &s, error, sizeof error));
}

TEST_F(SessionDirTest, DefaultNameIsNewUnderTheCurrentDirectory) {
  char old_cwd[PATH_MAX];
  ASSERT_NE(getcwd(old_cwd, sizeof old_cwd), nullptr);
  ASSERT_EQ(chdir(root_.c_str()), 0);
  SessionDir first, second, third;
  char error[512];
  const bool ok1 =
      OpenSessionDir(Config{}, 777, nullptr, &first, error, sizeof error);
  // Nothing is created before the first write.
  struct stat st;
  const bool exists_before_write = lstat(first.path, &st) == 0;
  const bool made1 = ok1 && EnsureSessionDir(&first, error, sizeof error);
  // A later run with the same pid in the same second: a new name.
  const bool ok2 =
      OpenSessionDir(Config{}, 777, nullptr, &second, error, sizeof error);
  // Another run that chose the name before the first one created it
  // (same pid in another pid namespace): it never joins the first run's
  // directory, it takes the next name.
  const bool ok3 =
      OpenSessionDir(Config{}, 777, nullptr, &third, error, sizeof error);
  if (ok3) std::strcpy(third.base_leaf, first.base_leaf);
  if (ok3) std::strcpy(third.path, first.path);
  const bool made3 = ok3 && EnsureSessionDir(&third, error, sizeof error);
  ASSERT_EQ(chdir(old_cwd), 0);
  ASSERT_TRUE(ok1 && made1 && ok2 && made3) << error;
  EXPECT_FALSE(exists_before_write);
  const std::string p1 = first.used_path, p2 = second.path,
                    p3 = third.used_path;
  EXPECT_EQ(p1.rfind(root_ + "/feedprof-", 0), 0u) << p1;
  EXPECT_NE(p1.find("-777"), std::string::npos) << p1;
  EXPECT_NE(p1, p2);  // same second, same pid: still a new directory
  EXPECT_EQ(p3, p1 + "-1");
  EXPECT_TRUE(first.created && second.created);
  EXPECT_STRNE(first.token, third.token);
  EXPECT_EQ(lstat((p1 + "/.feedprof-session-" + first.token).c_str(), &st), 0);
  EXPECT_EQ(lstat((p3 + "/.feedprof-session-" + third.token).c_str(), &st), 0);

  // A process of the first session (an exec'd child: the path and the
  // token from the environment) joins the first directory.
  Config join;
  std::snprintf(join.session_dir, sizeof join.session_dir, "%s", first.path);
  SessionDir child;
  ASSERT_TRUE(
      OpenSessionDir(join, 778, first.token, &child, error, sizeof error))
      << error;
  EXPECT_FALSE(child.created);
  ASSERT_TRUE(EnsureSessionDir(&child, error, sizeof error)) << error;
  EXPECT_EQ(std::string(child.used_path), p1);
  CloseSessionDir(&first);
  CloseSessionDir(&second);
  CloseSessionDir(&third);
  CloseSessionDir(&child);
}

TEST_F(SessionDirTest, DefaultSessionSkipsAPlantedSymlink) {
  char old_cwd[PATH_MAX];
  ASSERT_NE(getcwd(old_cwd, sizeof old_cwd), nullptr);
  ASSERT_EQ(chdir(root_.c_str()), 0);
  SessionDir s;
  char error[512];
  const bool ok =
      OpenSessionDir(Config{}, 4242, nullptr, &s, error, sizeof error);
  ASSERT_EQ(chdir(old_cwd), 0);
  ASSERT_TRUE(ok) << error;
  const std::string target = root_ + "/victim";
  ASSERT_EQ(mkdir(target.c_str(), 0700), 0);
  ASSERT_EQ(symlink(target.c_str(), s.path), 0);
  ASSERT_TRUE(EnsureSessionDir(&s, error, sizeof error)) << error;
  EXPECT_EQ(std::string(s.used_path), std::string(s.path) + "-1");
  struct stat st;
  ASSERT_EQ(lstat(s.used_path, &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  ProcessFacts facts;
  facts.pid = 9;
  std::strcpy(facts.hostname, "h");
  char path[PATH_MAX];
  const int fd = CreateTraceFile(&s, NameFn, &facts, path, sizeof path);
  ASSERT_GE(fd, 0);
  close(fd);
  EXPECT_EQ(std::string(path), std::string(s.used_path) + "/h-9.fpt");
  EXPECT_NE(access((target + "/h-9.fpt").c_str(), F_OK), 0);
  CloseSessionDir(&s);
}

TEST_F(SessionDirTest, TraceFilesNeverOverwrite) {
  SessionDir s;
  char error[512];
  ASSERT_TRUE(OpenSessionDir(WithOutput(root_ + "/run"), 1, nullptr, &s, error,
                             sizeof error));
  ProcessFacts facts;
  facts.pid = 4321;
  std::strcpy(facts.hostname, "gpu-node.example.com");
  facts.rank = 2;
  char path1[PATH_MAX], path2[PATH_MAX];
  const int fd1 = CreateTraceFile(&s, NameFn, &facts, path1, sizeof path1);
  const int fd2 = CreateTraceFile(&s, NameFn, &facts, path2, sizeof path2);
  ASSERT_GE(fd1, 0);
  ASSERT_GE(fd2, 0);
  EXPECT_EQ(std::string(path1), root_ + "/run/gpu-node-4321.rank2.fpt");
  EXPECT_EQ(std::string(path2), root_ + "/run/gpu-node-4321.rank2-1.fpt");
  struct stat st;
  ASSERT_EQ(fstat(fd1, &st), 0);
  EXPECT_EQ(st.st_mode & 0022, 0u);
  close(fd1);
  close(fd2);

  // A symlink planted at the next name is not followed.
  facts.rank = -1;
  const std::string planted = root_ + "/run/gpu-node-4321.fpt";
  ASSERT_EQ(symlink((root_ + "/victim").c_str(), planted.c_str()), 0);
  char path3[PATH_MAX];
  const int fd3 = CreateTraceFile(&s, NameFn, &facts, path3, sizeof path3);
  ASSERT_GE(fd3, 0);
  EXPECT_EQ(std::string(path3), root_ + "/run/gpu-node-4321-1.fpt");
  EXPECT_NE(access((root_ + "/victim").c_str(), F_OK), 0);
  close(fd3);
  CloseSessionDir(&s);
}

TEST(SessionStarterTest, OnlyTheExactPidInTheVariableIsTheStarter) {
  const char* saved = getenv(kEnvSessionPid);
  const std::string old = saved != nullptr ? saved : "";
  unsetenv(kEnvSessionPid);
  EXPECT_FALSE(IsSessionStarter(4242));
  setenv(kEnvSessionPid, "4242", 1);
  EXPECT_TRUE(IsSessionStarter(4242));
  EXPECT_FALSE(IsSessionStarter(424));
  EXPECT_FALSE(IsSessionStarter(42420));
  for (const char* bad :
       {"", "4242x", " 4242", "-4242", "424242424242424242424242"}) {
    setenv(kEnvSessionPid, bad, 1);
    EXPECT_FALSE(IsSessionStarter(4242)) << bad;
  }
  if (saved != nullptr) {
    setenv(kEnvSessionPid, old.c_str(), 1);
  } else {
    unsetenv(kEnvSessionPid);
  }
}

// Joining a session (FEEDPROF_SESSION_DIR), only the pid the variable
// names counts as the process that started it: the starter after an exec.
TEST_F(SessionDirTest, AJoinerStartedTheSessionOnlyUnderTheStartersPid) {
  const char* saved = getenv(kEnvSessionPid);
  const std::string old = saved != nullptr ? saved : "";
  setenv(kEnvSessionPid, "4242", 1);
  Config join;
  std::snprintf(join.session_dir, sizeof join.session_dir, "%s",
                (root_ + "/run").c_str());
  char error[PATH_MAX + 200];
  for (const char* token :
       {static_cast<const char*>(nullptr), "0123456789abcdef"}) {
    SessionDir starter;
    ASSERT_TRUE(
        OpenSessionDir(join, 4242, token, &starter, error, sizeof error))
        << error;
    EXPECT_TRUE(starter.created) << (token != nullptr);
    CloseSessionDir(&starter);
    SessionDir other;
    ASSERT_TRUE(OpenSessionDir(join, 4243, token, &other, error, sizeof error))
        << error;
    EXPECT_FALSE(other.created) << (token != nullptr);
    CloseSessionDir(&other);
  }
  if (saved != nullptr) {
    setenv(kEnvSessionPid, old.c_str(), 1);
  } else {
    unsetenv(kEnvSessionPid);
  }
}

}  // namespace
}  // namespace feedprof::preload
