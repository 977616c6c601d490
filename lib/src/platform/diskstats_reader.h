// The block layer's counters of one disk (/proc/diskstats), and what
// changed between two readings.
//
// Why: a probe's own timings say how long reads took from the program's
// side; the kernel's counters say what the device did meanwhile — how many
// requests it completed after merging and splitting, how large they were,
// how long they waited (iostat's r_await) and how busy it was (%util). The
// analysis of a recorded run reports the same figures, so doctor's probe
// reports them too and the two can be compared.
//
// The counters are whole-disk and since boot: everything else reading the
// disk in the interval counts as well. Kernels print 14 fields per line
// (before 4.18), 18 (discards, 4.18) or 20 (flushes, 5.5); only the first
// 14 are needed. Partitions of kernels before 2.6.25 printed 7 fields;
// such lines are skipped (doctor reads the whole disk).
#ifndef FEEDPROF_PLATFORM_DISKSTATS_READER_H_
#define FEEDPROF_PLATFORM_DISKSTATS_READER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "platform/machine_facts.h"
#include "platform/machine_root.h"

namespace feedprof::platform {

// One line of /proc/diskstats (Documentation/admin-guide/iostats.rst).
struct DiskStats {
  uint32_t major = 0;
  uint32_t minor = 0;
  std::string name;  // "nvme0n1", "vda", "sda1"
  uint64_t reads_completed = 0;
  uint64_t reads_merged = 0;
  uint64_t sectors_read = 0;  // 512-byte units, whatever the block size
  uint64_t ms_reading = 0;    // summed over requests, queueing included
  uint64_t writes_completed = 0;
  uint64_t writes_merged = 0;
  uint64_t sectors_written = 0;
  uint64_t ms_writing = 0;
  uint64_t in_flight = 0;
  uint64_t io_ticks_ms = 0;  // time with at least one request in flight
  uint64_t weighted_ms = 0;
  uint32_t fields = 0;  // how many fields the line had (14, 18, 20)
};

// Every well-formed line (at least 14 fields); others are skipped.
std::vector<DiskStats> ParseDiskstats(std::string_view text);

// The line of `device` in the text, or nullopt.
std::optional<DiskStats> FindDiskStats(std::string_view text,
                                       std::string_view device);

// /proc/diskstats under `root`, the line of `device`; unknown with the
// file's problem or "no line for DEVICE".
Fact<DiskStats> ReadDiskStats(const MachineRoot& root, std::string_view device);

// The change between two readings of one disk over `elapsed_ms` (the
// model's DeviceReadFacts); unknown when a counter went backwards (the
// device was removed and re-added, or a 32-bit counter wrapped).
Fact<DeviceReadFacts> DiskReadDelta(const DiskStats& before,
                                    const DiskStats& after, double elapsed_ms);

}  // namespace feedprof::platform

#endif  // FEEDPROF_PLATFORM_DISKSTATS_READER_H_
