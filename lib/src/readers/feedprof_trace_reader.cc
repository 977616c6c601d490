// ReadFeedprofTrace: expands the path into trace files, streams each file's
// packets into one FeedprofTimelineBuilder, and turns "nothing readable" into
// one error that says, file by file, what was wrong.
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/read_progress.h"
#include "feedprof/trace_reader.h"
#include "readers/feedprof_timeline_builder.h"
#include "readers/packet_stream.h"
#include "readers/trace_files.h"

namespace feedprof {

absl::StatusOr<Timeline> ReadFeedprofTrace(const std::string& path) {
  absl::StatusOr<std::vector<std::string>> files =
      readers::ListTraceFiles(path);
  if (!files.ok()) return files.status();

  Timeline timeline;
  timeline.format = SourceFormat::kFeedprof;
  timeline.source_path = path;
  readers::FeedprofTimelineBuilder builder(&timeline);

  uint64_t total_bytes = 0;
  for (const std::string& file : *files) {
    std::error_code ignored;
    const uintmax_t size = std::filesystem::file_size(file, ignored);
    if (!ignored) total_bytes += size;
  }
  common::ReadProgress progress(path, total_bytes);
  uint64_t bytes_before = 0;

  uint64_t total_packets = 0;
  std::vector<std::string> unreadable;
  for (const std::string& file : *files) {
    absl::StatusOr<std::unique_ptr<readers::PacketStreamReader>> stream =
        readers::PacketStreamReader::Open(file);
    if (!stream.ok()) {
      if (files->size() == 1) return stream.status();
      unreadable.push_back(std::string(stream.status().message()));
      continue;
    }
    readers::PacketStreamReader& packets = **stream;
    builder.BeginFile(file);
    while (const trace::Packet* packet = packets.Next()) {
      builder.AddPacket(*packet);
      progress.Update(bytes_before + packets.bytes_consumed());
    }
    bytes_before += packets.file_size();
    builder.EndFile();
    total_packets += packets.packets_read();

    if (packets.packets_read() == 0) {
      unreadable.push_back(packets.NoPacketError());
      continue;
    }
    if (std::string damage = packets.DamageWarning(); !damage.empty()) {
      timeline.warnings.push_back(std::move(damage));
    }
    if (packets.repaired_packets() > 0) {
      timeline.warnings.push_back(absl::StrFormat(
          "%s: %d packets held names that are not valid UTF-8; the invalid "
          "bytes are shown as U+FFFD",
          file, packets.repaired_packets()));
    }
  }

  if (total_packets == 0) {
    return absl::InvalidArgumentError(absl::StrJoin(unreadable, "\n"));
  }
  for (std::string& reason : unreadable) {
    timeline.warnings.push_back(reason + " (skipped)");
  }
  builder.Finish();
  return timeline;
}

}  // namespace feedprof
