// What doctor says when it cannot read a fact: files it may not read
// (permission denied, as an unprivileged user), a container without sysfs,
// a minimal /proc. Every such finding is unknown and names the file.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "gtest/gtest.h"
#include "tests/platform/findings.h"

namespace feedprof::testing {
namespace {

constexpr uid_t kNobody = 65534;

// "check|status|meaning" lines of the checks on `tree`, read by a process
// without the right to read what `tree` locks: root bypasses file modes, so
// as root the reading runs in a child that becomes nobody first.
std::string FindingsAsUnprivilegedUser(const MachineTree& tree) {
  const auto findings = [&] {
    std::string out;
    for (const PlatformFinding& f : platform::CheckPlatform(ReadTree(tree))) {
      out +=
          f.check + "|" + PlatformStatusName(f.status) + "|" + f.meaning + "\n";
    }
    return out;
  };
  if (geteuid() != 0) return findings();
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return "pipe failed";
  const pid_t child = fork();
  if (child == 0) {
    close(pipe_fds[0]);
    if (setgid(kNobody) != 0 || setuid(kNobody) != 0) _exit(3);
    const std::string text = findings();
    const ssize_t n = write(pipe_fds[1], text.data(), text.size());
    _exit(n == static_cast<ssize_t>(text.size()) ? 0 : 4);
  }
  close(pipe_fds[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(pipe_fds[0], buf, sizeof buf)) > 0;) {
    text.append(buf, static_cast<size_t>(n));
  }
  close(pipe_fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  return text;
}

// The tree readable by everyone but `locked`.
void OpenUpExcept(const MachineTree& tree,
                  const std::vector<std::string>& locked) {
  namespace fs = std::filesystem;
  fs::permissions(tree.root(), fs::perms::owner_all | fs::perms::group_read |
                                   fs::perms::group_exec |
                                   fs::perms::others_read |
                                   fs::perms::others_exec);
  for (const auto& e : fs::recursive_directory_iterator(tree.root())) {
    if (e.is_symlink()) continue;
    fs::permissions(e.path(),
                    e.is_directory() ? fs::perms(0755) : fs::perms(0644));
  }
  for (const std::string& path : locked) {
    fs::permissions(fs::path(tree.root()) / path, fs::perms::none);
  }
}

TEST(UnreadableFacts, PermissionDeniedIsUnknownAndNamesTheFile) {
  MachineTree t;
  OpenUpExcept(t, {"proc/self/cgroup", "proc/self/limits",
                   "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"});
  const std::string text = FindingsAsUnprivilegedUser(t);
  EXPECT_NE(text.find("cgroup_cpu|unknown|permission denied reading "
                      "/proc/self/cgroup\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("cgroup_memory|unknown|permission denied reading "
                      "/proc/self/cgroup\n"),
            std::string::npos);
  EXPECT_NE(text.find("mem_locked_limit|unknown|permission denied reading "
                      "/proc/self/limits\n"),
            std::string::npos);
  EXPECT_NE(text.find("cpu_frequency|unknown|permission denied reading "
                      "/sys/devices/system/cpu/cpu0/cpufreq/"
                      "scaling_governor\n"),
            std::string::npos);
  // What was readable is still judged.
  EXPECT_NE(text.find("gpu_pcie_link|ok|"), std::string::npos);
}

TEST(UnreadableFacts, ContainerWithoutSysfs) {
  MachineTree t;
  t.Remove("sys");
  const std::vector<PlatformFinding> all = platform::CheckPlatform(ReadTree(t));
  PlatformFinding f = FindingOf(all, "gpus");
  EXPECT_EQ(f.status, PlatformStatus::kUnknown);
  EXPECT_EQ(f.meaning,
            "/sys/bus/pci/devices does not exist: sysfs is not mounted (a "
            "container without /sys?), so GPUs cannot be found on the PCI "
            "bus");
  f = FindingOf(all, "cpu_online");
  EXPECT_EQ(f.status, PlatformStatus::kUnknown);
  EXPECT_EQ(f.meaning, "/sys/devices/system/cpu/online does not exist");
  EXPECT_EQ(FindingOf(all, "cpu_frequency").status, PlatformStatus::kUnknown);
  EXPECT_EQ(FindingOf(all, "mem_thp").status, PlatformStatus::kUnknown);
  // /proc still answers.
  EXPECT_EQ(FindingOf(all, "mem_available").status, PlatformStatus::kOk);
  EXPECT_EQ(FindingOf(all, "cpu_load").status, PlatformStatus::kOk);
}

TEST(UnreadableFacts, MinimalProcWithoutPressureOrNumaMaps) {
  MachineTree t;
  t.Remove("proc/pressure");
  t.Remove("proc/self/numa_maps");
  t.Remove("proc/meminfo");
  const platform::MachineFacts m = ReadTree(t);
  EXPECT_FALSE(m.load.cpu_pressure.known());
  EXPECT_NE(m.load.cpu_pressure.why_unknown.find(
                "a kernel without pressure stall information"),
            std::string::npos);
  EXPECT_EQ(m.process.memory_policy.why_unknown,
            "/proc/self/numa_maps does not exist (a kernel without NUMA "
            "support, or no process)");
  const PlatformFinding f = Check(m, "mem_available");
  EXPECT_EQ(f.status, PlatformStatus::kUnknown);
  EXPECT_EQ(f.meaning, "/proc/meminfo does not exist");
  // Load without pressure still reads the load average.
  EXPECT_EQ(Check(m, "cpu_load").value,
            "load 3.10 (1 min) on 16 CPUs, 4 runnable");
}

}  // namespace
}  // namespace feedprof::testing
