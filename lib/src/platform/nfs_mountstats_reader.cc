// /proc/self/mountstats: the `device ... mounted on ...` lines and the
// per-op statistics of NFS mounts (layout in nfs_mountstats_reader.h).
#include "platform/nfs_mountstats_reader.h"

#include "absl/strings/str_cat.h"
#include "platform/proc_sys_text.h"

namespace feedprof::platform {
namespace {

// "device SRC mounted on MP with fstype TYPE [statvers=V]".
std::optional<MountStats> ParseDeviceLine(std::string_view line) {
  const std::vector<std::string_view> w = Words(line);
  if (w.size() < 8 || w[0] != "device" || w[2] != "mounted" || w[3] != "on" ||
      w[5] != "with" || w[6] != "fstype") {
    return std::nullopt;
  }
  MountStats m;
  m.device = UnescapeProcText(w[1]);
  m.mount_point = UnescapeProcText(w[4]);
  m.fs_type = std::string(w[7]);
  if (w.size() > 8) {
    std::string_view v = w[8];
    if (ConsumePrefix(&v, "statvers=")) m.statvers = std::string(v);
  }
  return m;
}

// "READ: 1 2 3 4 5 6 7 8 [9]".
std::optional<NfsOpStats> ParseOpLine(std::string_view line) {
  line = Trim(line);
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  NfsOpStats s;
  s.op = std::string(line.substr(0, colon));
  const std::vector<std::string_view> w = Words(line.substr(colon + 1));
  if (w.size() < 8) return std::nullopt;
  uint64_t* const fields[] = {
      &s.ops,        &s.transmissions,  &s.major_timeouts,
      &s.bytes_sent, &s.bytes_received, &s.queue_ms,
      &s.rtt_ms,     &s.execute_ms,     &s.errors};
  for (size_t i = 0; i < w.size() && i < std::size(fields); ++i) {
    const std::optional<uint64_t> v = ParseUint(w[i]);
    if (!v) return std::nullopt;
    *fields[i] = *v;
  }
  return s;
}

}  // namespace

std::vector<MountStats> ParseMountstats(std::string_view text) {
  std::vector<MountStats> out;
  bool in_ops = false;
  for (std::string_view line : Split(text, '\n', true)) {
    if (line.starts_with("device ")) {
      in_ops = false;
      if (std::optional<MountStats> m = ParseDeviceLine(line)) {
        out.push_back(std::move(*m));
      } else {
        out.push_back(MountStats{});  // keeps later op lines off the last
      }
      continue;
    }
    if (out.empty()) continue;
    const std::string_view t = Trim(line);
    if (t == "per-op statistics") {
      in_ops = true;
      continue;
    }
    if (!in_ops) continue;
    if (std::optional<NfsOpStats> op = ParseOpLine(t)) {
      out.back().ops.push_back(std::move(*op));
    }
  }
  // Drop the placeholders of malformed device lines.
  std::erase_if(out, [](const MountStats& m) { return m.fs_type.empty(); });
  return out;
}

const MountStats* FindMountStats(const std::vector<MountStats>& mounts,
                                 std::string_view mount_point) {
  const MountStats* found = nullptr;
  for (const MountStats& m : mounts) {
    if (m.mount_point == mount_point) found = &m;
  }
  return found;
}

Fact<MountStats> ReadNfsMountStats(const MachineRoot& root,
                                   std::string_view mount_point) {
  Fact<MountStats> out;
  // A machine with thousands of mounts (containers) writes megabytes.
  const FileText f = root.Read("/proc/self/mountstats", 64 << 20);
  if (!f.ok()) {
    out.Unknown(f.Problem());
    return out;
  }
  const std::vector<MountStats> mounts = ParseMountstats(f.text);
  const MountStats* m = FindMountStats(mounts, mount_point);
  if (m == nullptr) {
    out.Unknown(absl::StrCat("/proc/self/mountstats has no mount on ",
                             std::string(mount_point)));
  } else if (m->ops.empty()) {
    out.Unknown(
        absl::StrCat("/proc/self/mountstats has no per-op statistics "
                     "for ",
                     std::string(mount_point), " (", m->fs_type, ")"));
  } else {
    out.Set(*m);
  }
  return out;
}

Fact<NfsReadFacts> NfsReadDelta(const MountStats& before,
                                const MountStats& after, double elapsed_ms) {
  Fact<NfsReadFacts> out;
  NfsReadFacts d;
  d.mount_point = after.mount_point;
  d.elapsed_ms = elapsed_ms;
  for (const NfsOpStats& a : after.ops) {
    NfsOpStats b;
    for (const NfsOpStats& o : before.ops) {
      if (o.op == a.op) b = o;
    }
    if (a.ops < b.ops || a.transmissions < b.transmissions ||
        a.major_timeouts < b.major_timeouts || a.rtt_ms < b.rtt_ms ||
        a.bytes_received < b.bytes_received) {
      out.Unknown(absl::StrCat(
          "the RPC counters of ", after.mount_point, " (", a.op,
          ") went backwards during the probe (the mount was replaced): run "
          "doctor again"));
      return out;
    }
    d.ops += a.ops - b.ops;
    d.transmissions += a.transmissions - b.transmissions;
    d.major_timeouts += a.major_timeouts - b.major_timeouts;
    d.rtt_ms += a.rtt_ms - b.rtt_ms;
    if (a.op == "READ") {
      d.read_ops = a.ops - b.ops;
      d.read_bytes = a.bytes_received - b.bytes_received;
    }
  }
  out.Set(std::move(d));
  return out;
}

}  // namespace feedprof::platform
