// ReadFeedprofTrace: expands the path into trace files, reads each file into
// its own partial timeline on a pool of threads (one file per core), appends
// the partials in file-name order as they become ready
// (FeedprofTimelineBuilder::AppendFile), and turns "nothing readable" into
// one error that says, file by file, what was wrong. One thread reads the
// same way, file after file; the timeline is the same for any thread count.
#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/in_order_parallel_reads.h"
#include "common/read_progress.h"
#include "feedprof/trace_reader.h"
#include "fpt/feedprof_read_options.h"
#include "fpt/feedprof_timeline_builder.h"
#include "fpt/packet_stream.h"
#include "fpt/parallel_packet_reader.h"
#include "fpt/trace_files.h"
#include "platform/usable_cores.h"
#include "timeline/event_vector_room.h"
#include "timeline/timeline_append.h"

namespace feedprof {
namespace {

// One file read on a worker.
struct FileRead {
  std::unique_ptr<Timeline> timeline = std::make_unique<Timeline>();
  std::unique_ptr<fpt::FeedprofTimelineBuilder> builder =
      std::make_unique<fpt::FeedprofTimelineBuilder>(timeline.get());
  uint64_t packets = 0;
  uint64_t bytes = 0;       // the file's size
  absl::Status open_error;  // the file could not be opened
  std::string unreadable;   // why nothing of it was read; empty when read
};

// Packet worker threads for a file of `file_bytes` when `readers` files
// are read side by side; 0: read packet by packet.
size_t PacketWorkers(const fpt::FeedprofReadOptions& options,
                     uint64_t file_bytes, unsigned readers) {
  if (options.packet_worker_threads == 0 ||
      file_bytes < options.parallel_from_file_bytes) {
    return 0;
  }
  if (options.packet_worker_threads > 0) {
    return static_cast<size_t>(options.packet_worker_threads);
  }
  return std::min(
      fpt::kMaxPacketWorkerThreads,
      common::SpareThreadsPerFile(readers, platform::UsableCores()));
}

FileRead ReadOneFile(const std::string& file, common::ReadProgress* progress,
                     const fpt::FeedprofReadOptions& options,
                     unsigned readers) {
  FileRead read;
  std::error_code ignored;
  const uintmax_t size = std::filesystem::file_size(file, ignored);
  common::ReadProgress part(progress, ignored ? 0 : size);
  read.bytes = ignored ? 0 : size;

  absl::StatusOr<std::unique_ptr<fpt::PacketStreamReader>> stream =
      fpt::PacketStreamReader::Open(file);
  if (!stream.ok()) {
    read.open_error = stream.status();
    read.unreadable = std::string(stream.status().message());
    return read;
  }
  fpt::PacketStreamReader& packets = **stream;
  Timeline& timeline = *read.timeline;
  read.builder->BeginFile(file);
  // A large file's event vectors get room for the rest once a sixteenth
  // is read, faulted in ahead of this thread (timeline/event_vector_room.h).
  timeline::EventVectorRoom room(&timeline, read.bytes);
  auto on_progress = [&](uint64_t bytes_read) {
    part.Update(bytes_read);
    room.Update(bytes_read);
  };
  const size_t workers = PacketWorkers(options, read.bytes, readers);
  if (workers > 0) {
    fpt::ParallelPacketOptions parallel;
    parallel.worker_threads = workers;
    parallel.batch_bytes = options.batch_bytes;
    fpt::ReadPacketsInParallel(packets, *read.builder, parallel, on_progress);
  } else {
    while (const trace::Packet* packet = packets.Next()) {
      read.builder->AddPacket(*packet);
      on_progress(packets.bytes_consumed());
    }
  }
  read.builder->EndFile();
  room.Finish();
  // Sorted here, on the worker: the merged session then only merges runs.
  // The threads that decoded the packets sort vectors beside it.
  read.builder->SortEvents(workers + 1);
  read.packets = packets.packets_read();

  if (packets.packets_read() == 0) {
    read.unreadable = packets.NoPacketError();
    return read;
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
  return read;
}

}  // namespace

absl::StatusOr<Timeline> ReadFeedprofTrace(const std::string& path) {
  return fpt::ReadFeedprofTraceWithOptions(path, fpt::FeedprofReadOptions());
}

namespace fpt {

absl::StatusOr<Timeline> ReadFeedprofTraceWithOptions(
    const std::string& path, const FeedprofReadOptions& options) {
  absl::StatusOr<std::vector<std::string>> files = fpt::ListTraceFiles(path);
  if (!files.ok()) return files.status();

  Timeline timeline;
  timeline.format = SourceFormat::kFeedprof;
  timeline.source_path = path;
  fpt::FeedprofTimelineBuilder builder(&timeline);

  uint64_t total_bytes = 0;
  for (const std::string& file : *files) {
    std::error_code ignored;
    const uintmax_t size = std::filesystem::file_size(file, ignored);
    if (!ignored) total_bytes += size;
  }
  common::ReadProgress progress(path, total_bytes);

  uint64_t total_packets = 0;
  absl::Status single_file_error;
  std::vector<std::string> unreadable;
  const unsigned threads =
      common::ReadThreadCount(files->size(), platform::UsableCores());
  common::ReadInParallelMergeInOrder<FileRead>(
      files->size(), threads,
      [&](size_t i) {
        return ReadOneFile((*files)[i], &progress, options, threads);
      },
      [&](size_t, FileRead&& read) {
        if (!read.open_error.ok()) single_file_error = read.open_error;
        if (!read.unreadable.empty()) {
          unreadable.push_back(std::move(read.unreadable));
        }
        total_packets += read.packets;
        builder.AppendFile(*read.builder);
      });

  if (files->size() == 1 && !single_file_error.ok()) return single_file_error;
  if (total_packets == 0) {
    return absl::InvalidArgumentError(absl::StrJoin(unreadable, "\n"));
  }
  for (std::string& reason : unreadable) {
    timeline.warnings.push_back(reason + " (skipped)");
  }
  progress.ShowStage(files->size() > 1 ? common::MergingFilesStage(
                                             files->size() - unreadable.size())
                                       : std::string("ordering the events"));
  builder.Finish(platform::UsableCores());
  return timeline;
}

}  // namespace fpt
}  // namespace feedprof
