// The lifecycle's interface: StartSampler / StopSampler /
// RestartSamplerAfterFork, observed through /proc (the sampling thread
// exists exactly while sampling runs, under its name).
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "preload/host/host_sampler.h"
#include "preload/host/host_sampler_thread.h"

namespace feedprof::preload::host {
namespace {

int CountThreadsNamed(const std::string& name) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(e.path() / "comm");
    std::string line;
    std::getline(comm, line);
    if (line == name) ++n;
  }
  return n;
}

// A joined thread can stay listed in /proc for a moment while the kernel
// finishes its exit (closing its own descriptor table, for one): polls.
int ThreadsNamedAfterStop(const std::string& name) {
  int n = CountThreadsNamed(name);
  for (int i = 0; i < 200 && n != 0; ++i) {
    usleep(5000);
    n = CountThreadsNamed(name);
  }
  return n;
}

TEST(HostSamplerApi, StartStopIsIdempotent) {
  StopSampler();  // never started: nothing happens
  ASSERT_TRUE(StartSampler(0));
  usleep(20000);
  EXPECT_EQ(CountThreadsNamed(kSamplerThreadComm), 1);
  EXPECT_TRUE(StartSampler(5000000));  // already running: no second thread
  EXPECT_EQ(CountThreadsNamed(kSamplerThreadComm), 1);
  StopSampler();
  EXPECT_EQ(ThreadsNamedAfterStop(kSamplerThreadComm), 0);
  StopSampler();
  ASSERT_TRUE(StartSampler(1000));  // restartable, tiny interval raised
  EXPECT_EQ(CountThreadsNamed(kSamplerThreadComm), 1);
  StopSampler();
  EXPECT_EQ(ThreadsNamedAfterStop(kSamplerThreadComm), 0);
}

TEST(HostSamplerApi, ForkChildGetsItsOwnSamplerThread) {
  ASSERT_TRUE(StartSampler(0));
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const int before = CountThreadsNamed(kSamplerThreadComm);
    RestartSamplerAfterFork();
    usleep(20000);
    const int after = CountThreadsNamed(kSamplerThreadComm);
    StopSampler();
    const int stopped = ThreadsNamedAfterStop(kSamplerThreadComm);
    _exit(before == 0 && after == 1 && stopped == 0 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0)
      << "the child must have no sampler thread after the fork, one after "
         "RestartSamplerAfterFork, none after StopSampler";
  EXPECT_EQ(CountThreadsNamed(kSamplerThreadComm), 1);  // the parent's
  StopSampler();
}

TEST(HostSamplerApi, RestartInAChildOfAStoppedSamplerStartsNothing) {
  StopSampler();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    RestartSamplerAfterFork();
    _exit(CountThreadsNamed(kSamplerThreadComm) == 0 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace feedprof::preload::host
