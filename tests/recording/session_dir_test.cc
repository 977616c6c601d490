// The session directory is created fresh, never through a symlink, never
// overwriting; trace files get new names on a clash.
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

TEST_F(SessionDirTest, CreatesTheOutputDirectoryWithParents) {
  const std::string dir = root_ + "/a/b/run";
  SessionDir s;
  char error[512];
  ASSERT_TRUE(OpenSessionDir(WithOutput(dir), 1234, &s, error, sizeof error))
      << error;
  EXPECT_TRUE(s.created);
  EXPECT_EQ(std::string(s.path), dir);
  struct stat st;
  ASSERT_EQ(lstat(dir.c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(st.st_mode & 0022, 0u);  // not group/world writable
  CloseSessionDir(&s);

  // A second process with the same FEEDPROF_OUTPUT_DIR joins it.
  SessionDir again;
  ASSERT_TRUE(
      OpenSessionDir(WithOutput(dir), 1235, &again, error, sizeof error));
  EXPECT_FALSE(again.created);
  CloseSessionDir(&again);
}

TEST_F(SessionDirTest, RefusesAPreExistingSymlink) {
  const std::string target = root_ + "/elsewhere";
  ASSERT_EQ(mkdir(target.c_str(), 0700), 0);
  const std::string link = root_ + "/run";
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  SessionDir s;
  char error[512];
  EXPECT_FALSE(OpenSessionDir(WithOutput(link), 1, &s, error, sizeof error));
  EXPECT_NE(std::string(error).find("symbolic link"), std::string::npos)
      << error;
  EXPECT_EQ(s.fd, -1);

  // Joining through FEEDPROF_SESSION_DIR refuses it too.
  Config join;
  std::snprintf(join.session_dir, sizeof join.session_dir, "%s", link.c_str());
  EXPECT_FALSE(OpenSessionDir(join, 1, &s, error, sizeof error));
}

TEST_F(SessionDirTest, RefusesAFileWhereTheDirectoryShouldBe) {
  const std::string file = root_ + "/run";
  FILE* f = std::fopen(file.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fclose(f);
  SessionDir s;
  char error[512];
  EXPECT_FALSE(OpenSessionDir(WithOutput(file), 1, &s, error, sizeof error));
}

TEST_F(SessionDirTest, DefaultNameIsNewUnderTheCurrentDirectory) {
  char old_cwd[PATH_MAX];
  ASSERT_NE(getcwd(old_cwd, sizeof old_cwd), nullptr);
  ASSERT_EQ(chdir(root_.c_str()), 0);
  SessionDir first, second;
  char error[512];
  const bool ok1 = OpenSessionDir(Config{}, 777, &first, error, sizeof error);
  const bool ok2 = OpenSessionDir(Config{}, 777, &second, error, sizeof error);
  ASSERT_EQ(chdir(old_cwd), 0);
  ASSERT_TRUE(ok1 && ok2) << error;
  const std::string p1 = first.path, p2 = second.path;
  EXPECT_EQ(p1.rfind(root_ + "/feedprof-", 0), 0u) << p1;
  EXPECT_NE(p1.find("-777"), std::string::npos) << p1;
  EXPECT_NE(p1, p2);  // same second, same pid: still a new directory
  EXPECT_TRUE(first.created && second.created);
  CloseSessionDir(&first);
  CloseSessionDir(&second);
}

TEST_F(SessionDirTest, TraceFilesNeverOverwrite) {
  SessionDir s;
  char error[512];
  ASSERT_TRUE(
      OpenSessionDir(WithOutput(root_ + "/run"), 1, &s, error, sizeof error));
  ProcessFacts facts;
  facts.pid = 4321;
  std::strcpy(facts.hostname, "gpu-node.example.com");
  facts.rank = 2;
  char path1[PATH_MAX], path2[PATH_MAX];
  const int fd1 = CreateTraceFile(s, NameFn, &facts, path1, sizeof path1);
  const int fd2 = CreateTraceFile(s, NameFn, &facts, path2, sizeof path2);
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
  const int fd3 = CreateTraceFile(s, NameFn, &facts, path3, sizeof path3);
  ASSERT_GE(fd3, 0);
  EXPECT_EQ(std::string(path3), root_ + "/run/gpu-node-4321-1.fpt");
  EXPECT_NE(access((root_ + "/victim").c_str(), F_OK), 0);
  close(fd3);
  CloseSessionDir(&s);
}

}  // namespace
}  // namespace feedprof::preload
