// Storage checks for each data location: the file system (network and
// user-space file systems turn every small read into a round trip), the
// device (a spinning disk serves ~100-200 random reads a second), how long
// first reads of a few of its files took and in what read calls, and what
// the disk (iostat's figures) or the NFS client (its RPC statistics) did
// while those reads ran.
#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "platform/file_system_kind.h"
#include "platform/finding_builder.h"
#include "platform/platform_checks.h"

namespace feedprof::platform {
namespace {

// Thresholds (docs/doctor.md): median first read of a file.
constexpr double kReadWarnMs = 5.0;
constexpr double kReadFailMs = 50.0;
// The disk over the probe: r_await (ms a read took, queueing included) on
// a solid-state disk, and on a rotational one (or one that says so: a
// spinning disk's seek and rotation alone take 5-15 ms); utilization.
constexpr double kAwaitWarnSolidStateMs = 10.0;
constexpr double kAwaitWarnRotationalMs = 50.0;
constexpr double kUtilWarn = 0.8;
// Busy time is counted in clock ticks (1-10 ms): over a shorter window
// the utilization is too coarse to judge.
constexpr double kUtilMinWindowMs = 100.0;
// Reads smaller than this are small: a disk serves them at its IOPS limit
// (the analysis of a recorded run uses the same size).
constexpr double kSmallReadBytes = 128 * 1024;
// An NFS mount over the probe: retransmitted share of the RPCs, mean RTT.
constexpr double kRetransWarnShare = 0.001;
constexpr double kRttWarnMs = 5.0;

void CheckFilesystem(const StorageFacts& s, FindingBuilder* b) {
  if (!s.mount.known()) {
    b->Unknown("data_filesystem", s.label, s.mount.why_unknown);
    return;
  }
  const MountEntry& m = *s.mount;
  // Mount options, then the file system's own, each once ("rw" is in
  // both lists).
  std::vector<std::string_view> seen;
  std::string options;
  for (const std::string* list : {&m.mount_options, &m.super_options}) {
    for (std::string_view o : Split(*list, ',', true)) {
      if (std::find(seen.begin(), seen.end(), o) != seen.end()) continue;
      seen.push_back(o);
      if (!options.empty()) options.push_back(',');
      options.append(o);
    }
  }
  const std::string value = absl::StrCat(m.fs_type, " ", m.source, " on ",
                                         m.mount_point, " (", options, ")");
  const std::string stage =
      "Stage the dataset on a local NVMe disk (or /dev/shm) before the run, "
      "or pack it into large shards (WebDataset, TFRecord, Parquet) read "
      "sequentially.";
  const FileSystemKind kind = FileSystemKindOf(m.fs_type);
  if (kind == FileSystemKind::kNetwork) {
    b->Add("data_filesystem", s.label, PlatformStatus::kWarn, value,
           absl::StrCat("a network file system (", m.fs_type,
                        "): every open and small read is a round trip to the "
                        "server, shared with the other clients"),
           stage);
  } else if (kind == FileSystemKind::kUserSpace) {
    b->Add("data_filesystem", s.label, PlatformStatus::kWarn, value,
           absl::StrCat("a user-space file system (", m.fs_type,
                        "): each read passes through a daemon, often to "
                        "object storage"),
           stage);
  } else if (kind == FileSystemKind::kOverlay) {
    b->Add("data_filesystem", s.label, PlatformStatus::kWarn, value,
           "the container's overlay file system: lookups walk its layers and "
           "the data lives in the image",
           "Mount the dataset into the container as a volume (docker -v, a "
           "Kubernetes volume) instead of baking it into the image.");
  } else if (kind == FileSystemKind::kMemory) {
    b->Add("data_filesystem", s.label, PlatformStatus::kOk, value,
           "in memory: reads cost no I/O (the data counts as used memory)");
  } else {
    b->Add("data_filesystem", s.label, PlatformStatus::kOk, value,
           "a local file system");
  }
}

void CheckDevice(const StorageFacts& s, FindingBuilder* b) {
  if (!s.device.known()) {
    b->Unknown("data_device", s.label, s.device.why_unknown);
    return;
  }
  const BlockDeviceFacts& d = *s.device;
  if (!d.rotational.known()) {
    b->Unknown("data_device", s.label,
               absl::StrCat(d.name, ": ", d.rotational.why_unknown));
    return;
  }
  const std::string scheduler =
      d.scheduler.known() ? *d.scheduler : std::string("unknown");
  const std::string value = absl::StrCat(
      d.name, ", ", *d.rotational ? "rotational" : "not rotational",
      ", scheduler ", scheduler);
  if (*d.rotational) {
    // virtio and Xen disks say "rotational" unless the hypervisor says
    // otherwise, whatever the storage behind them is.
    const bool virtual_disk = std::string_view(d.name).starts_with("vd") ||
                              std::string_view(d.name).starts_with("xvd");
    b->Add(
        "data_device", s.label, PlatformStatus::kWarn, value,
        virtual_disk
            ? "a virtual disk that says it is rotational (the hypervisor's "
              "default, whatever the storage behind it): if it is a "
              "spinning disk, random reads of small files reach ~100-200 "
              "per second; `feedprof doctor --data PATH` measures what reads "
              "cost"
            : "a spinning disk: random reads of small files reach "
              "~100-200 per second, far below what DataLoader workers ask "
              "for",
        absl::StrCat("Move the data to an SSD, or read it in large sequential "
                     "shards",
                     scheduler == "none"
                         ? "; use the mq-deadline or bfq scheduler for a disk."
                         : "."));
    return;
  }
  b->Add("data_device", s.label, PlatformStatus::kOk, value,
         "solid state: random reads are cheap");
}

void CheckReadLatency(const StorageFacts& s, FindingBuilder* b) {
  if (!s.probe.known()) {
    b->Unknown("data_read_latency", s.label, s.probe.why_unknown);
    return;
  }
  const ReadProbeFacts& p = *s.probe;
  const std::string value = absl::StrFormat(
      "%d files, %s read: median %.2f ms, max %.2f ms per file; %s of %s on "
      "average, %.2f ms mean, %.2f ms slowest per call (%s)",
      p.files, Bytes(p.bytes), p.median_ms, p.max_ms,
      p.read_calls == 1 ? std::string("1 read call")
                        : absl::StrCat(p.read_calls, " read calls"),
      Bytes(static_cast<uint64_t>(std::llround(p.AverageReadBytes()))),
      p.read_mean_ms, p.read_max_ms,
      p.direct ? "O_DIRECT, past the page cache"
               : "through the page cache: cached files read fast");
  const std::string action =
      "Keep the data closer (local NVMe, /dev/shm), read fewer larger "
      "files, and give the DataLoader enough workers and prefetch to hide "
      "the latency.";
  if (p.median_ms >= kReadFailMs) {
    b->Add("data_read_latency", s.label, PlatformStatus::kFail, value,
           "very slow first reads: a worker that reads one sample per file "
           "waits this long for each",
           action);
  } else if (p.median_ms >= kReadWarnMs) {
    b->Add("data_read_latency", s.label, PlatformStatus::kWarn, value,
           "slow first reads: a worker that reads one sample per file waits "
           "this long for each",
           action);
  } else {
    b->Add("data_read_latency", s.label, PlatformStatus::kOk, value,
           "files open and read quickly");
  }
}

// What the disk did while the probe read: iostat's r_await, %util and
// read size over the probe.
void CheckDeviceReads(const StorageFacts& s, FindingBuilder* b) {
  if (!s.device_reads.known()) {
    b->Unknown("data_device_reads", s.label, s.device_reads.why_unknown);
    return;
  }
  const DeviceReadFacts& d = *s.device_reads;
  const std::optional<double> await = d.AwaitMs();
  const bool util_judged = d.elapsed_ms >= kUtilMinWindowMs;
  std::string value = absl::StrFormat("%s over %.1f ms: %d reads, %s", d.device,
                                      d.elapsed_ms, d.reads, Bytes(d.bytes));
  if (await) {
    absl::StrAppend(
        &value, " (",
        Bytes(static_cast<uint64_t>(std::llround(d.AverageReadBytes()))),
        " per read), r_await ", Fixed(*await, 2), " ms");
  }
  // Busy time in clock ticks over a few milliseconds reads 0 % or 100 %:
  // no figure rather than a wrong one.
  absl::StrAppend(&value, ", util ",
                  util_judged
                      ? Percent(d.Utilization())
                      : std::string("not measured (too short a window)"));
  const std::string whole_disk =
      "whole-disk counters: other processes' I/O in the interval counts too";
  const std::string coarse =
      util_judged ? ""
                  : absl::StrCat("; utilization over a window under ",
                                 Fixed(kUtilMinWindowMs, 0),
                                 " ms is not judged (busy time is counted in "
                                 "clock ticks)");
  // Rotational unknown: judged as rotational, the laxer threshold.
  const bool solid_state = s.device.known() && s.device->rotational.known() &&
                           !*s.device->rotational;
  const double await_warn =
      solid_state ? kAwaitWarnSolidStateMs : kAwaitWarnRotationalMs;
  const bool slow = await && *await >= await_warn;
  const bool saturated = util_judged && d.Utilization() >= kUtilWarn;
  if (!await && !saturated) {
    const bool cached = s.probe.known() && !s.probe->direct;
    b->Add("data_device_reads", s.label, PlatformStatus::kUnknown, value,
           absl::StrCat(cached ? "no read reached the disk: the page cache "
                                 "answered the probe (the file system "
                                 "refused O_DIRECT), so the disk's latency "
                                 "was not measured"
                               : "no read completed on the disk during the "
                                 "probe, so its latency was not measured",
                        "; ", whole_disk, coarse));
    return;
  }
  if (!slow && !saturated) {
    b->Add("data_device_reads", s.label, PlatformStatus::kOk, value,
           absl::StrCat("the disk served reads promptly (r_await below ",
                        Fixed(await_warn, 0), " ms on a ",
                        solid_state ? "solid-state" : "rotational", " disk); ",
                        whole_disk, coarse));
    return;
  }
  std::string meaning;
  if (slow) {
    meaning =
        absl::StrCat("reads took ", Fixed(*await, 1),
                     " ms each on the disk, queueing included (",
                     Fixed(await_warn, 0), " ms or more is slow for a ",
                     solid_state ? "solid-state" : "rotational", " disk)");
  }
  if (saturated) {
    absl::StrAppend(&meaning, slow ? "; " : "", "the disk was busy ",
                    Percent(d.Utilization()),
                    " of the time: reads wait behind each other");
  }
  absl::StrAppend(&meaning, "; ", whole_disk);
  std::string action =
      "Move the data to faster storage (a local NVMe disk) or cache it "
      "closer (a local copy, /dev/shm, enough free memory for the page "
      "cache to hold it); `iostat -x 1` and `iotop -o` show what else reads "
      "the disk.";
  const bool small_reads =
      s.probe.known() && s.probe->AverageReadBytes() < kSmallReadBytes;
  if (small_reads) {
    absl::StrAppend(
        &action, " The files are small (",
        Bytes(static_cast<uint64_t>(std::llround(s.probe->AverageReadBytes()))),
        " a read): pack them into shards (WebDataset, TFRecord, "
        "Parquet) read in large sequential requests.");
  }
  b->Add("data_device_reads", s.label, PlatformStatus::kWarn, value, meaning,
         action);
}

// What the NFS client did while the probe read: its RPCs, retransmissions
// and round trips to the server.
void CheckNetworkFs(const StorageFacts& s, FindingBuilder* b) {
  if (!s.nfs_reads.known()) {
    b->Unknown("data_network_fs", s.label, s.nfs_reads.why_unknown);
    return;
  }
  const NfsReadFacts& n = *s.nfs_reads;
  const std::optional<double> rtt = n.MeanRttMs();
  std::string value = absl::StrFormat(
      "%s over %.1f ms: %d RPCs (%d READ, %s), %d retransmissions, %d major "
      "timeouts",
      n.mount_point, n.elapsed_ms, n.ops, n.read_ops, Bytes(n.read_bytes),
      n.Retransmissions(), n.major_timeouts);
  if (rtt) absl::StrAppend(&value, ", RTT ", Fixed(*rtt, 2), " ms mean");
  const std::string mount_counters =
      "the mount's counters: other processes using it count too";
  if (!rtt) {
    b->Add("data_network_fs", s.label, PlatformStatus::kUnknown, value,
           absl::StrCat("no RPC went to the server during the probe: the "
                        "client's cache answered, so the round trip was not "
                        "measured; ",
                        mount_counters));
    return;
  }
  const double retrans_share =
      static_cast<double>(n.Retransmissions()) / static_cast<double>(n.ops);
  const bool lossy = retrans_share > kRetransWarnShare || n.major_timeouts > 0;
  const bool far = *rtt >= kRttWarnMs;
  if (!lossy && !far) {
    b->Add("data_network_fs", s.label, PlatformStatus::kOk, value,
           absl::StrCat("the server answered promptly and nothing was "
                        "retransmitted; ",
                        mount_counters));
    return;
  }
  std::string meaning;
  if (lossy) {
    meaning = absl::StrCat(
        Percent(retrans_share),
        " of the RPCs were sent again (a reply was lost or late: each "
        "retransmission waits out the mount's timeo)",
        n.major_timeouts > 0 ? ", and some timed out for good" : "");
  }
  if (far) {
    absl::StrAppend(&meaning, lossy ? "; " : "",
                    "each round trip to the server took ", Fixed(*rtt, 1),
                    " ms: a worker reading one file per sample waits several "
                    "of them per file (LOOKUP, GETATTR, READ)");
  }
  absl::StrAppend(&meaning, "; ", mount_counters);
  std::string action =
      "Stage the dataset on a local disk (or /dev/shm) before the run, or "
      "cache it locally (cachefilesd and the `fsc` mount option); pack small "
      "files into large shards so that each RPC carries more.";
  if (lossy) {
    absl::StrAppend(&action,
                    " Check the network path to the server (`nfsstat -rc`, "
                    "`ip -s link` errors and drops) and the server's load.");
  }
  b->Add("data_network_fs", s.label, PlatformStatus::kWarn, value, meaning,
         action);
}

}  // namespace

void CheckStorage(const MachineFacts& m, std::vector<PlatformFinding>* out) {
  FindingBuilder b(out, "storage");
  if (m.storage.empty()) {
    b.Unknown("data_filesystem", "", m.storage_unknown);
    return;
  }
  for (const StorageFacts& s : m.storage) {
    CheckFilesystem(s, &b);
    CheckDevice(s, &b);
    if (!s.probed) continue;
    CheckReadLatency(s, &b);
    CheckDeviceReads(s, &b);
    if (s.mount.known() &&
        FileSystemKindOf(s.mount->fs_type) == FileSystemKind::kNetwork) {
      CheckNetworkFs(s, &b);
    }
  }
}

}  // namespace feedprof::platform
