// Storage checks for each data location: the file system (network and
// user-space file systems turn every small read into a round trip), the
// device (a spinning disk serves ~100-200 random reads a second), and how
// long first reads of a few of its files took.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "platform/finding_builder.h"
#include "platform/platform_checks.h"

namespace feedprof::platform {
namespace {

// Thresholds (docs/doctor.md): median first read of a file.
constexpr double kReadWarnMs = 5.0;
constexpr double kReadFailMs = 50.0;

bool IsNetwork(std::string_view type) {
  for (const char* t :
       {"nfs", "nfs4", "cifs", "smb3", "smbfs", "ceph", "glusterfs", "lustre",
        "beegfs", "gpfs", "9p", "afs", "virtiofs"}) {
    if (type == t) return true;
  }
  return false;
}

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
  if (IsNetwork(m.fs_type)) {
    b->Add("data_filesystem", s.label, PlatformStatus::kWarn, value,
           absl::StrCat("a network file system (", m.fs_type,
                        "): every open and small read is a round trip to the "
                        "server, shared with the other clients"),
           stage);
  } else if (std::string_view(m.fs_type).starts_with("fuse")) {
    b->Add("data_filesystem", s.label, PlatformStatus::kWarn, value,
           absl::StrCat("a user-space file system (", m.fs_type,
                        "): each read passes through a daemon, often to "
                        "object storage"),
           stage);
  } else if (m.fs_type == "overlay") {
    b->Add("data_filesystem", s.label, PlatformStatus::kWarn, value,
           "the container's overlay file system: lookups walk its layers and "
           "the data lives in the image",
           "Mount the dataset into the container as a volume (docker -v, a "
           "Kubernetes volume) instead of baking it into the image.");
  } else if (m.fs_type == "tmpfs" || m.fs_type == "ramfs") {
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
      "%d files, %s read: median %.2f ms, max %.2f ms per file (%s)", p.files,
      Bytes(p.bytes), p.median_ms, p.max_ms,
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
    if (s.probed) CheckReadLatency(s, &b);
  }
}

}  // namespace feedprof::platform
