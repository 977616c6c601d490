// /proc/diskstats: one line per block device, "major minor name" and then
// the counters (Documentation/admin-guide/iostats.rst).
#include "platform/diskstats_reader.h"

#include "absl/strings/str_cat.h"
#include "platform/proc_sys_text.h"

namespace feedprof::platform {
namespace {

// Fields up to weighted_ms: major, minor, name and eleven counters.
constexpr size_t kCounterFields = 14;

std::optional<DiskStats> ParseLine(std::string_view line) {
  const std::vector<std::string_view> w = Words(line);
  if (w.size() < kCounterFields) return std::nullopt;
  const std::optional<uint64_t> major = ParseUint(w[0]);
  const std::optional<uint64_t> minor = ParseUint(w[1]);
  if (!major || !minor) return std::nullopt;
  DiskStats d;
  d.major = static_cast<uint32_t>(*major);
  d.minor = static_cast<uint32_t>(*minor);
  d.name = std::string(w[2]);
  d.fields = static_cast<uint32_t>(w.size());
  uint64_t* const counters[] = {
      &d.reads_completed,  &d.reads_merged,  &d.sectors_read,    &d.ms_reading,
      &d.writes_completed, &d.writes_merged, &d.sectors_written, &d.ms_writing,
      &d.in_flight,        &d.io_ticks_ms,   &d.weighted_ms};
  for (size_t i = 0; i < std::size(counters); ++i) {
    const std::optional<uint64_t> v = ParseUint(w[3 + i]);
    if (!v) return std::nullopt;
    *counters[i] = *v;
  }
  return d;
}

}  // namespace

std::vector<DiskStats> ParseDiskstats(std::string_view text) {
  std::vector<DiskStats> out;
  for (std::string_view line : Split(text, '\n', true)) {
    if (std::optional<DiskStats> d = ParseLine(line)) {
      out.push_back(std::move(*d));
    }
  }
  return out;
}

std::optional<DiskStats> FindDiskStats(std::string_view text,
                                       std::string_view device) {
  for (std::string_view line : Split(text, '\n', true)) {
    const std::vector<std::string_view> w = Words(line);
    if (w.size() < 3 || w[2] != device) continue;
    return ParseLine(line);
  }
  return std::nullopt;
}

Fact<DiskStats> ReadDiskStats(const MachineRoot& root,
                              std::string_view device) {
  Fact<DiskStats> out;
  const FileText f = root.Read("/proc/diskstats");
  if (!f.ok()) {
    out.Unknown(f.Problem());
    return out;
  }
  if (std::optional<DiskStats> d = FindDiskStats(f.text, device)) {
    out.Set(std::move(*d));
  } else {
    out.Unknown(absl::StrCat("/proc/diskstats has no line for ",
                             std::string(device),
                             " (or it has fewer than 14 fields)"));
  }
  return out;
}

Fact<DeviceReadFacts> DiskReadDelta(const DiskStats& before,
                                    const DiskStats& after, double elapsed_ms) {
  Fact<DeviceReadFacts> out;
  if (after.reads_completed < before.reads_completed ||
      after.sectors_read < before.sectors_read ||
      after.ms_reading < before.ms_reading ||
      after.io_ticks_ms < before.io_ticks_ms) {
    out.Unknown(absl::StrCat(
        "the /proc/diskstats counters of ", after.name,
        " went backwards during the probe (the device was re-added, or a "
        "counter wrapped): run doctor again"));
    return out;
  }
  DeviceReadFacts d;
  d.device = after.name;
  d.elapsed_ms = elapsed_ms;
  d.reads = after.reads_completed - before.reads_completed;
  d.bytes = (after.sectors_read - before.sectors_read) * 512;
  d.ms_reading = after.ms_reading - before.ms_reading;
  d.io_ticks_ms = after.io_ticks_ms - before.io_ticks_ms;
  out.Set(std::move(d));
  return out;
}

}  // namespace feedprof::platform
