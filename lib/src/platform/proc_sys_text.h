// Parsers for the procfs and sysfs text the platform checks read.
//
// Each takes the text of one file as the kernel prints it (man 5 proc,
// Documentation/ABI) and returns the numbers in it, or nothing when the
// text is not in that shape: a check then says "unknown" and names the
// file instead of reporting a zero. Numbers are parsed without the locale
// (std::from_chars), so "16.0 GT/s" reads the same under any LANG.
#ifndef FEEDPROF_PLATFORM_PROC_SYS_TEXT_H_
#define FEEDPROF_PLATFORM_PROC_SYS_TEXT_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace feedprof::platform {

std::string_view Trim(std::string_view s);
// `s` split at each `separator`; with `skip_empty`, empty parts dropped.
std::vector<std::string_view> Split(std::string_view s, char separator,
                                    bool skip_empty = false);
// `s` split at spaces, tabs and newlines, empty parts dropped.
std::vector<std::string_view> Words(std::string_view s);
// A path as mountinfo and mountstats print it, whose space, tab, newline
// and backslash the kernel escapes as \ooo, unescaped.
std::string UnescapeProcText(std::string_view s);
// Removes `prefix` from the front of `*s` when it is there.
bool ConsumePrefix(std::string_view* s, std::string_view prefix);
std::optional<uint64_t> ParseUint(std::string_view s);  // whole token
std::optional<int64_t> ParseInt(std::string_view s);
std::optional<uint64_t> ParseHex(std::string_view s);   // "0x10de" or "10de"
std::optional<double> ParseDouble(std::string_view s);  // leading number

// CPU lists in the kernel's notation ("0-3,8,10-11"), sorted and unique;
// nullopt when malformed. "" is the empty list.
std::optional<std::vector<int>> ParseCpuList(std::string_view list);
std::string FormatCpuList(const std::vector<int>& cpus);

// "16.0 GT/s PCIe", "8 GT/s", "2.5 GT/s": GT/s per lane; nullopt for
// "Unknown" (a link that is down) or anything else.
std::optional<double> ParseLinkSpeedGts(std::string_view s);
// PCIe generation of a per-lane rate (2.5 -> 1 ... 64 -> 6); 0 for none.
int PcieGeneration(double gts);

// "Key:   value" files (/proc/meminfo, /proc/PID/status, cpuinfo's
// "key\t: value"): the trimmed value of the first line with `key`.
std::optional<std::string> FindKeyValue(std::string_view text,
                                        std::string_view key);
// /proc/meminfo or a node's meminfo ("Node 0 MemTotal: ..."): key -> bytes
// (values in kB are multiplied out; HugePages_* counts stay counts).
std::map<std::string, uint64_t> ParseMeminfo(std::string_view text);

// The aggregate "cpu" line of /proc/stat, in clock ticks.
struct CpuTimes {
  uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0,
           softirq = 0, steal = 0;
  uint64_t Total() const {
    return user + nice + system + idle + iowait + irq + softirq + steal;
  }
};
std::optional<CpuTimes> ParseProcStatCpu(std::string_view text);
// A "name value" line of /proc/stat ("procs_running 3").
std::optional<uint64_t> FindProcStatValue(std::string_view text,
                                          std::string_view name);

// /proc/loadavg: "1.03 1.94 3.48 1/82 24592".
struct LoadAverage {
  double load1 = 0, load5 = 0, load15 = 0;
  uint32_t runnable = 0;  // currently runnable scheduling entities
  uint32_t threads = 0;
};
std::optional<LoadAverage> ParseLoadavg(std::string_view text);

// /proc/pressure/{cpu,io,memory}: the "some" line's avg10 and avg60, in
// percent.
struct Pressure {
  double some_avg10 = 0;
  double some_avg60 = 0;
};
std::optional<Pressure> ParsePressure(std::string_view text);

// "always [madvise] never" -> "madvise" (THP settings, block schedulers).
std::optional<std::string> BracketedChoice(std::string_view text);

// One row of /proc/PID/limits ("Max locked memory  8388608  8388608
// bytes"): the soft limit; `unlimited` for "unlimited".
struct ResourceLimit {
  bool unlimited = false;
  uint64_t value = 0;
};
std::optional<ResourceLimit> ParseLimit(std::string_view limits_text,
                                        std::string_view name);

// One line of /proc/PID/mountinfo (man 5 proc): octal escapes ("\040")
// decoded.
struct MountEntry {
  uint32_t major = 0;
  uint32_t minor = 0;
  std::string root;         // the mounted subtree of its file system
  std::string mount_point;  // where it is mounted
  std::string mount_options;
  std::string fs_type;
  std::string source;
  std::string super_options;
};
std::vector<MountEntry> ParseMountinfo(std::string_view text);
// The mount holding `path` (absolute, normalized): the entry with the
// longest mount point that is `path` or a parent of it, later mounts
// shadowing earlier ones at the same point; null when none.
const MountEntry* MountOf(const std::vector<MountEntry>& mounts,
                          std::string_view path);

// The NVIDIA driver version in /proc/driver/nvidia/version ("NVRM version:
// NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar ...") or
// /sys/module/nvidia/version ("550.54.15"); empty when none.
std::string ParseNvidiaDriverVersion(std::string_view text);

}  // namespace feedprof::platform

#endif  // FEEDPROF_PLATFORM_PROC_SYS_TEXT_H_
