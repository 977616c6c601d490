// ReadKinetoTrace: walks the top level of a Kineto trace document and feeds
// each event to the mapper, turning tokenizer and gzip failures into the
// errors and salvage warnings users see.
#include "feedprof/kineto_reader.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/read_progress.h"
#include "kineto/gzip_input.h"
#include "kineto/json_tokenizer.h"
#include "kineto/kineto_event.h"
#include "kineto/kineto_event_batch_pipeline.h"
#include "kineto/kineto_event_mapper.h"
#include "kineto/kineto_read_options.h"
#include "kineto/kineto_time.h"
#include "kineto/prefetching_byte_source.h"
#include "kineto/trace_events_array.h"
#include "platform/usable_cores.h"
#include "timeline/event_vector_room.h"
#include "timeline/time_limits.h"

namespace feedprof {
namespace {

using kineto::JsonToken;
using kineto::JsonTokenizer;

// A gzip file smaller than this is inflated on the calling thread: starting
// a thread costs more than it saves.
constexpr uint64_t kPrefetchThresholdBytes = 512 * 1024;
// Longer events are read by the tokenizer on the calling thread.
constexpr size_t kMaxSplitEventBytes = 256 * 1024;

// Reads one scalar integer value (a container is skipped). False on error.
bool ReadIntValue(JsonTokenizer& tokens, bool* present, int64_t* value) {
  const JsonToken t = tokens.Next();
  if (t == JsonToken::kObjectBegin || t == JsonToken::kArrayBegin) {
    return tokens.SkipRestOfContainer();
  }
  if (t == JsonToken::kNumber) {
    *present = kineto::ParseInteger(tokens.text(), value);
  }
  return t != JsonToken::kError;
}

// "deviceProperties": [{"id": 0, "name": "...", "numSms": 108,
// "totalGlobalMem": 42297524224, ...}, ...]
bool ReadDeviceProperties(JsonTokenizer& tokens,
                          kineto::KinetoEventMapper& mapper) {
  JsonToken t = tokens.Next();
  if (t == JsonToken::kObjectBegin) return tokens.SkipRestOfContainer();
  if (t != JsonToken::kArrayBegin) return t != JsonToken::kError;
  for (;;) {
    t = tokens.Next();
    if (t == JsonToken::kArrayEnd) return true;
    if (t == JsonToken::kError) return false;
    if (t == JsonToken::kArrayBegin) {
      if (!tokens.SkipRestOfContainer()) return false;
      continue;
    }
    if (t != JsonToken::kObjectBegin) continue;
    kineto::KinetoDeviceProperties device;
    for (;;) {
      t = tokens.Next();
      if (t == JsonToken::kObjectEnd) break;
      if (t != JsonToken::kKey) return false;
      const std::string_view key = tokens.text();
      bool present = false;
      int64_t v = 0;
      if (key == "id") {
        if (!ReadIntValue(tokens, &present, &v)) return false;
        if (present) device.id = static_cast<int32_t>(v);
      } else if (key == "numSms") {
        if (!ReadIntValue(tokens, &present, &v)) return false;
        if (present && v > 0) device.sm_count = static_cast<uint32_t>(v);
      } else if (key == "totalGlobalMem") {
        if (!ReadIntValue(tokens, &present, &v)) return false;
        if (present && v > 0) device.memory_bytes = static_cast<uint64_t>(v);
      } else if (key == "name") {
        t = tokens.Next();
        if (t == JsonToken::kString) {
          device.name.assign(tokens.text());
        } else if (t == JsonToken::kObjectBegin ||
                   t == JsonToken::kArrayBegin) {
          if (!tokens.SkipRestOfContainer()) return false;
        } else if (t == JsonToken::kError) {
          return false;
        }
      } else if (!tokens.SkipValue()) {
        return false;
      }
    }
    mapper.AddDevice(std::move(device));
  }
}

// "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 16, ...}
bool ReadDistributedInfo(JsonTokenizer& tokens,
                         kineto::KinetoEventMapper& mapper) {
  JsonToken t = tokens.Next();
  if (t == JsonToken::kArrayBegin) return tokens.SkipRestOfContainer();
  if (t != JsonToken::kObjectBegin) return t != JsonToken::kError;
  bool has_rank = false;
  bool has_world = false;
  int64_t rank = -1;
  int64_t world = 0;
  for (;;) {
    t = tokens.Next();
    if (t == JsonToken::kObjectEnd) break;
    if (t != JsonToken::kKey) return false;
    const std::string_view key = tokens.text();
    if (key == "rank") {
      if (!ReadIntValue(tokens, &has_rank, &rank)) return false;
    } else if (key == "world_size") {
      if (!ReadIntValue(tokens, &has_world, &world)) return false;
    } else if (!tokens.SkipValue()) {
      return false;
    }
  }
  mapper.SetDistributed(has_rank ? static_cast<int32_t>(rank) : -1,
                        has_world ? static_cast<int32_t>(world) : 0);
  return true;
}

struct DocumentResult {
  bool saw_trace_events = false;
  bool trace_events_is_array = true;
  bool has_time_base = false;  // a number in "baseTimeNanoseconds"
  int64_t time_base_ns = 0;
};

// Walks the document; returns false with `*failure` when the JSON is
// malformed or ends early (the caller decides between error and salvage).
bool ReadDocument(JsonTokenizer& tokens, kineto::KinetoEventMapper& mapper,
                  const kineto::TraceEventsBatching& batching,
                  const std::function<void()>& on_mapped,
                  DocumentResult* result, bool* top_level_not_object,
                  kineto::JsonFailure* failure) {
  auto tokenizer_failed = [&] {
    failure->message = tokens.error();
    failure->offset = tokens.error_offset();
    failure->truncated = tokens.truncated();
    return false;
  };
  JsonToken t = tokens.Next();
  if (t == JsonToken::kError) return tokenizer_failed();
  if (t != JsonToken::kObjectBegin) {
    *top_level_not_object = true;
    return true;
  }
  for (;;) {
    t = tokens.Next();
    if (t == JsonToken::kObjectEnd) break;
    if (t != JsonToken::kKey) return tokenizer_failed();
    const std::string_view key = tokens.text();
    if (key == "traceEvents") {
      result->saw_trace_events = true;
      t = tokens.Next();
      if (t == JsonToken::kError) return tokenizer_failed();
      if (t != JsonToken::kArrayBegin) {
        result->trace_events_is_array = false;
        if ((t == JsonToken::kObjectBegin) && !tokens.SkipRestOfContainer()) {
          return tokenizer_failed();
        }
        continue;
      }
      const bool ok = batching.pipeline != nullptr
                          ? kineto::ReadTraceEventsInBatches(
                                tokens, mapper, batching, on_mapped, failure)
                          : kineto::ReadTraceEventsSerially(tokens, mapper,
                                                            on_mapped, failure);
      if (!ok) return false;
    } else if (key == "deviceProperties") {
      if (!ReadDeviceProperties(tokens, mapper)) return tokenizer_failed();
    } else if (key == "distributedInfo") {
      if (!ReadDistributedInfo(tokens, mapper)) return tokenizer_failed();
    } else if (key == "baseTimeNanoseconds") {
      if (!ReadIntValue(tokens, &result->has_time_base,
                        &result->time_base_ns)) {
        return tokenizer_failed();
      }
    } else if (!tokens.SkipValue()) {
      return tokenizer_failed();
    }
  }
  t = tokens.Next();
  if (t == JsonToken::kEnd) return true;
  return tokenizer_failed();
}

// Threads that read events besides the calling one, for a file of
// `file_bytes` on disk; -1: read serially.
int EventThreads(const kineto::KinetoReadOptions& options,
                 uint64_t file_bytes) {
  if (options.event_threads == 0 ||
      file_bytes < options.threads_from_file_bytes) {
    return -1;
  }
  if (options.event_threads > 0) return options.event_threads;
  const unsigned cores = platform::UsableCores();
  if (cores <= 1) return -1;
  return static_cast<int>(
      std::min<unsigned>(cores - 1, kineto::kMaxKinetoEventThreads));
}

}  // namespace

absl::StatusOr<Timeline> ReadKinetoTrace(const std::string& path) {
  return kineto::ReadKinetoTraceWithOptions(path, kineto::KinetoReadOptions());
}

namespace kineto {

absl::StatusOr<Timeline> ReadKinetoTraceWithOptions(
    const std::string& path, const KinetoReadOptions& options) {
  auto opened = kineto::GzipFileInput::Open(path);
  if (!opened.ok()) return opened.status();
  std::unique_ptr<kineto::GzipFileInput> file = std::move(*opened);

  Timeline timeline;
  timeline.format = SourceFormat::kKineto;
  timeline.source_path = path;
  kineto::KinetoEventMapper mapper(&timeline);

  DocumentResult result;
  bool top_level_not_object = false;
  bool document_ok = false;
  std::string tokenizer_error;
  bool truncated = false;
  uint64_t truncated_at = 0;
  // The threads that read this file's events also sort them.
  const int event_threads = EventThreads(options, file->file_size());
  const size_t threads = event_threads >= 0 ? event_threads + 1 : 1;
  {
    std::unique_ptr<kineto::PrefetchingByteSource> prefetch;
    kineto::ByteSource* source = file.get();
    // Only inflation goes to a thread of its own. A plain file is read
    // straight into the tokenizer's buffer: a prefetching thread would copy
    // every byte once more and wake the reader at every chunk (on the
    // 1 GB trace its system time was 0.5 s against 0.15 s), while the
    // kernel's read-ahead and the event threads' batches already keep the
    // disk and the parsing going side by side.
    if (file->is_gzip() && file->file_size() >= kPrefetchThresholdBytes) {
      prefetch = std::make_unique<kineto::PrefetchingByteSource>(file.get());
      source = prefetch.get();
    }
    JsonTokenizer::Limits limits;
    limits.initial_buffer_bytes = options.buffer_bytes;
    JsonTokenizer tokens(source, limits);
    common::ReadProgress progress(path, file->file_size());
    const kineto::GzipFileInput& input = *file;
    // A large file's event vectors get room for the rest once a sixteenth
    // is mapped (timeline/event_vector_room.h).
    timeline::EventVectorRoom room(&timeline, input.file_size());
    const std::function<void()> on_mapped = [&] {
      progress.Update(input.file_bytes_read());
      // The room is sized from the events mapped so far, and so from the
      // bytes that hold them: the file is read a few MiB ahead of them
      // (the prefetch chunks and the tokenizer's buffer), which would make
      // the events per byte look up to a tenth too few at a sixteenth of a
      // 1 GB file, and the vectors outgrow their room at the end.
      room.Update(input.FileBytesOfText(tokens.offset()));
    };
    kineto::TraceEventsBatching batching;
    std::unique_ptr<kineto::KinetoEventBatchPipeline> pipeline;
    if (event_threads >= 0) {
      pipeline = std::make_unique<kineto::KinetoEventBatchPipeline>(
          kineto::ReadKinetoEventBatch, event_threads,
          2 * (event_threads + 1) + 2);
    }
    batching.pipeline = pipeline.get();
    batching.batch_bytes = options.batch_bytes;
    batching.max_batch_bytes = options.max_batch_bytes;
    batching.split.max_event_bytes =
        std::min<size_t>(kMaxSplitEventBytes, options.buffer_bytes / 2);
    kineto::JsonFailure failure;
    document_ok = ReadDocument(tokens, mapper, batching, on_mapped, &result,
                               &top_level_not_object, &failure);
    room.Finish();
    if (!document_ok) {
      tokenizer_error = failure.message;
      truncated = failure.truncated;
      truncated_at = failure.offset;
    }
    // `pipeline` and `prefetch` stop their threads here, before `file` is
    // inspected.
  }

  using Gz = kineto::GzipFileInput;
  if (!document_ok && !truncated && file->is_gzip() &&
      file->end() == Gz::End::kNotYet) {
    // A JSON error inside a gzip file may come from corrupt deflate data
    // that inflated to garbage; only the checksum at the end of the member
    // tells. Read on to it so the message names the real damage.
    std::vector<char> sink(1 << 16);
    while (file->Read(sink.data(), sink.size()) > 0) {
    }
  }
  if (file->end() == Gz::End::kReadError) {
    return absl::DataLossError(
        absl::StrCat(path, ": cannot read the file: ", file->detail()));
  }
  const bool gzip_damaged =
      file->end() == Gz::End::kTruncated || file->end() == Gz::End::kCorrupt;

  // Corrupt deflate data can inflate to a few garbage bytes before zlib
  // notices; whatever JSON error follows is the damage, not the format.
  if (!document_ok && gzip_damaged) truncated = true;

  if (top_level_not_object) {
    return absl::InvalidArgumentError(absl::StrCat(
        path,
        ": not a Kineto trace: the top-level JSON value is not an object; "
        "expected {\"traceEvents\": [...]} as written by the PyTorch "
        "profiler (export_chrome_trace / tensorboard_trace_handler)"));
  }
  if (!document_ok && !truncated) {
    if (tokenizer_error.empty()) {
      tokenizer_error = "unexpected token in the document structure";
    }
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": malformed JSON ", tokenizer_error,
                     "; the file is damaged or is not a JSON trace"));
  }
  const uint64_t events = mapper.counts().events;
  if (truncated) {
    if (events == 0) {
      return absl::DataLossError(absl::StrCat(
          path, ": JSON ends early at byte ", truncated_at,
          " (truncated?) before any trace event",
          gzip_damaged ? absl::StrCat("; ", file->detail()) : "",
          "; nothing could be salvaged. Re-export or copy the trace again"));
    }
    if (file->end() == Gz::End::kCorrupt) {
      timeline.warnings.push_back(
          absl::StrCat(path, ": JSON breaks off at byte ", truncated_at,
                       " (corrupt gzip data); analysed the ", events,
                       " events read before it"));
    } else {
      timeline.warnings.push_back(absl::StrCat(
          path, ": JSON ends early at byte ", truncated_at,
          " (truncated?); analysed the ", events, " events read before it"));
    }
  }
  if (gzip_damaged) {
    timeline.warnings.push_back(absl::StrCat(path, ": ", file->detail()));
  }
  if (!result.saw_trace_events) {
    if (truncated) {
      return absl::DataLossError(
          absl::StrCat(path, ": JSON ends early at byte ", truncated_at,
                       " (truncated?) before the traceEvents array"));
    }
    return absl::InvalidArgumentError(absl::StrCat(
        path,
        ": not a Kineto trace: valid JSON, but it has no \"traceEvents\" "
        "array; expected a PyTorch profiler trace (export_chrome_trace / "
        "tensorboard_trace_handler output)"));
  }
  if (!result.trace_events_is_array) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": not a Kineto trace: \"traceEvents\" is not an array"));
  }
  mapper.Finish(threads);
  if (result.has_time_base) {
    if (result.time_base_ns >= 0 &&
        result.time_base_ns <= timeline::kMaxAbsTimeNs) {
      timeline.time_base_ns = result.time_base_ns;
    } else {
      timeline.warnings.push_back(absl::StrCat(
          path, ": baseTimeNanoseconds ", result.time_base_ns,
          " is not a time since 1970 in nanoseconds; ignored (the times "
          "stay as written, which matters only beside other ranks' files)"));
    }
  }
  const uint64_t unusable_times =
      mapper.counts().without_timestamp + mapper.counts().time_out_of_range;
  if (unusable_times > 0) {
    timeline.warnings.push_back(absl::StrCat(
        path, ": skipped ", unusable_times,
        " events without a usable time (\"ts\" missing or not a number, "
        "or \"ts\" + \"dur\" beyond ±146 years); the rest was analysed. "
        "Check the exporter that wrote the trace"));
  }
  if (events == 0) {
    timeline.warnings.push_back(
        absl::StrCat(path, ": the trace has no events (empty traceEvents)"));
  } else if (timeline.gpu_ops.empty()) {
    timeline.warnings.push_back(absl::StrCat(
        path,
        ": the trace has no GPU activity (no kernel, memcpy or memset "
        "events); was the profiler run with ProfilerActivity.CUDA?"));
    timeline.warned_no_gpu_activity = true;
  }
  return timeline;
}

}  // namespace kineto
}  // namespace feedprof
