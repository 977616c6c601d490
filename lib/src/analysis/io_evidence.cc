#include "analysis/io_evidence.h"

#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/rounded_units.h"
#include "common/units.h"

namespace feedprof::analysis {
namespace {

std::string Ms(double ms) {
  return common::FormatDuration(static_cast<int64_t>(std::llround(ms * 1e6)));
}

// "the main process", "the 2 worker processes".
std::string RoleSubject(const RoleIo& role) {
  const char* what = role.role == IoRole::kWorkers ? "worker" : "main";
  if (role.processes == 1) return absl::StrCat("the ", what, " process");
  return absl::StrCat("the ", role.processes, " ", what, " processes");
}

// "of 3.3 KiB on average, 91.0% of the bytes from storage".
std::string ReadsClause(const RoleIo& role) {
  std::string text = absl::StrCat(
      "of ", common::FormatRoundedBytes(role.mean_read_bytes), " on average, ");
  if (role.mapped_reads) {
    absl::StrAppend(&text, "and ", common::FormatBytes(role.storage_read_bytes),
                    " from storage through memory maps (more than the read "
                    "calls returned)");
  } else {
    absl::StrAppend(&text, common::FormatPercent(role.storage_share),
                    " of the bytes from storage");
  }
  return text;
}

std::string RoleSentence(const RoleIo& role, uint64_t steps) {
  std::string subject = RoleSubject(role);
  subject[0] = absl::ascii_toupper(subject[0]);
  std::string text = absl::StrCat(
      subject, " made ", common::FormatCount(role.reads), " reads (",
      common::FormatRoundedCount(role.reads_per_s), " a second");
  if (role.reads_per_step && steps > 0) {
    absl::StrAppend(
        &text, ", ", common::FormatRoundedCount(*role.reads_per_step), " and ",
        common::FormatRoundedBytes(role.read_bytes_per_step.value_or(0)),
        " a step");
  }
  absl::StrAppend(&text, ") ", ReadsClause(role), ".");
  return text;
}

// "vda (holding /) was 99.0% busy; its reads averaged 12 KiB and took
// 9.8 ms".
std::string DiskClause(const DiskIo& d) {
  std::string text = d.device;
  if (!d.mount_point.empty()) {
    absl::StrAppend(&text, " (holding ", d.mount_point, ")");
  }
  absl::StrAppend(&text, " was ", common::FormatPercent(d.utilization),
                  " busy");
  if (d.read_await_ms) {
    absl::StrAppend(&text, "; its ", common::FormatRoundedCount(d.reads_per_s),
                    " reads a second averaged ",
                    common::FormatRoundedBytes(d.mean_read_bytes), " and took ",
                    Ms(*d.read_await_ms));
  } else {
    absl::StrAppend(&text, " and read nothing");
  }
  return text;
}

std::string NetworkFsClause(const NetworkFsIo& n) {
  std::string text =
      absl::StrCat(n.fs_type.empty() ? "NFS" : n.fs_type, " ",
                   n.source.empty() ? n.mount_point : n.source, " on ",
                   n.mount_point, ": ", common::FormatCount(n.ops), " RPCs, ",
                   common::FormatCount(n.retransmissions), " retransmitted");
  if (n.ops > 0) {
    absl::StrAppend(
        &text, " (",
        common::FormatPercent(static_cast<double>(n.retransmissions) /
                              static_cast<double>(n.ops)),
        ")");
  }
  if (n.major_timeouts > 0) {
    absl::StrAppend(&text, ", ", common::FormatCount(n.major_timeouts),
                    " timed out");
  }
  if (n.mean_rtt_ms) {
    absl::StrAppend(&text, ", round trip ", Ms(*n.mean_rtt_ms), " on average");
  }
  return text;
}

// The disk that read the most in the window, nullptr when none read.
const DiskIo* BusiestDisk(const IoReport& io) {
  const DiskIo* best = nullptr;
  for (const DiskIo& d : io.disks) {
    if (best == nullptr || d.read_bytes > best->read_bytes) best = &d;
  }
  return best;
}

}  // namespace

std::vector<std::string> IoEvidence(const IoReport& io) {
  std::vector<std::string> out;
  if (!io.available) {
    out.push_back(absl::StrCat("How the input was read is not in this trace: ",
                               io.unavailable_reason, "."));
    return out;
  }
  for (const RoleIo& role : io.roles) {
    if (role.reads == 0) continue;
    out.push_back(RoleSentence(role, io.steps));
  }
  for (const DiskIo& d : io.disks) {
    out.push_back(absl::StrCat("Disk ", DiskClause(d), "."));
  }
  for (const NetworkFsIo& n : io.network_fs) {
    out.push_back(absl::StrCat(NetworkFsClause(n), "."));
  }
  if (io.disks.empty() && io.network_fs.empty() &&
      !io.disks_unavailable_reason.empty()) {
    out.push_back(
        absl::StrCat("No disk figures: ", io.disks_unavailable_reason, "."));
  }
  return out;
}

std::vector<TaggedNextStep> IoNextSteps(const IoReport& io) {
  const RoleIo* role = io.reading_role ? io.Role(*io.reading_role) : nullptr;
  const DiskIo* disk = BusiestDisk(io);
  const IoPattern p = role != nullptr ? io.pattern : IoPattern::kUnknown;

  std::string shards =
      "Pack the samples into shards read sequentially (WebDataset, "
      "TFRecord, Parquet) instead of a file per sample";
  std::string storage =
      "Read from faster storage or a local cache: stage the dataset on "
      "local NVMe or in RAM (/dev/shm)";
  std::string stage =
      "Stage the dataset on a local disk (NVMe, /dev/shm) before the run, "
      "or cache it locally on first read";
  std::string prefetch =
      "Prefetch ahead of the consumer: more loader workers or readahead, so "
      "I/O overlaps GPU work";
  const std::string reads =
      role != nullptr
          ? absl::StrCat(RoleSubject(*role), " made reads ", ReadsClause(*role))
          : "";
  const std::string device =
      disk != nullptr ? absl::StrCat("; ", DiskClause(*disk)) : "";
  switch (p) {
    case IoPattern::kSmallReads:
      absl::StrAppend(&shards, ": ", reads, device);
      break;
    case IoPattern::kLargeReads:
      absl::StrAppend(&storage, ": ", reads, device);
      break;
    case IoPattern::kNetworkFs:
      absl::StrAppend(&stage, ": ",
                      io.network_fs.empty()
                          ? std::string("the data is on a network file system")
                          : NetworkFsClause(io.network_fs.front()),
                      "; ", reads);
      break;
    case IoPattern::kPageCache:
      absl::StrAppend(
          &prefetch, ": ", reads,
          ", so the waits were not the disk's; look at what the readers do "
          "between reads (decoding, locks) and at major page faults");
      break;
    case IoPattern::kUnknown:
      break;
  }
  for (std::string* s : {&shards, &storage, &stage, &prefetch}) {
    s->push_back('.');
  }
  std::vector<std::string> order;
  switch (p) {
    case IoPattern::kNetworkFs:
      order = {stage, shards, prefetch};
      break;
    case IoPattern::kSmallReads:
      order = {shards, storage, prefetch};
      break;
    case IoPattern::kLargeReads:
      order = {storage, prefetch, shards};
      break;
    case IoPattern::kPageCache:
      order = {prefetch, shards, storage};
      break;
    case IoPattern::kUnknown:
      order = {storage, shards, prefetch};
      break;
  }
  std::vector<TaggedNextStep> steps;
  for (std::string& s : order) {
    steps.emplace_back(std::move(s), WhatIfScenarioId::kInputReady);
  }
  return steps;
}

}  // namespace feedprof::analysis
