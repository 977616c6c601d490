// Fuzzes the reader of feedprof's own trace files (.fpt) and the raw packet
// dumper behind `feedprof dump`.
//
// A recorder killed at any byte leaves a damaged file, and the reader
// promises to read such a file up to its last whole packet: any input must
// give a timeline or a clear error, never a crash, a hang or a read past a
// buffer. The file is read once more with its EventBatch packets parsed on
// worker threads (forced, with batches of a size taken from the input's
// length), which must give the same timeline, field by field, or the same
// error. The dumper walks the same packets on its own path, and what it
// prints must be valid JSON, one value per line, whatever the file held.
#include <stdio.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "feedprof/trace_dump.h"
#include "feedprof/trace_reader.h"
#include "fpt/feedprof_read_options.h"
#include "tests/fuzz/fuzz_input_file.h"
#include "tests/fuzz/strict_json_check.h"
#include "tests/testing/timeline_text.h"

namespace {

// Every line of the dump parses as JSON on its own.
void CheckDumpLines(std::string_view dump) {
  while (!dump.empty()) {
    const size_t end = dump.find('\n');
    const std::string_view line = dump.substr(0, end);
    size_t error_offset = 0;
    if (!feedprof::fuzz::IsStrictJson(line, &error_offset)) {
      std::fprintf(stderr, "dump line is not valid JSON at byte %zu: %.*s\n",
                   error_offset, static_cast<int>(line.size()), line.data());
      std::abort();
    }
    if (end == std::string_view::npos) break;
    dump.remove_prefix(end + 1);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static feedprof::fuzz::FuzzInputFile input(".fpt");
  const std::string& path = input.Write(data, size);

  absl::StatusOr<feedprof::Timeline> timeline =
      feedprof::ReadFeedprofTrace(path);
  if (timeline.ok() && timeline->format != feedprof::SourceFormat::kFeedprof) {
    std::fprintf(stderr, "the .fpt reader tagged its timeline with format %d\n",
                 static_cast<int>(timeline->format));
    std::abort();
  }

  feedprof::fpt::FeedprofReadOptions parallel_options;
  parallel_options.packet_worker_threads = 1 + static_cast<int>(size % 2);
  parallel_options.parallel_from_file_bytes = 0;
  parallel_options.batch_bytes = 1 + size % 4093;
  const absl::StatusOr<feedprof::Timeline> parallel =
      feedprof::fpt::ReadFeedprofTraceWithOptions(path, parallel_options);
  const std::string serial_text =
      timeline.ok() ? feedprof::testing::TimelineText(*timeline)
                    : timeline.status().ToString();
  const std::string parallel_text =
      parallel.ok() ? feedprof::testing::TimelineText(*parallel)
                    : parallel.status().ToString();
  if (serial_text != parallel_text) {
    std::fprintf(
        stderr, "serial and parallel reads disagree: %s\n",
        feedprof::testing::FirstDifference(serial_text, parallel_text).c_str());
    std::abort();
  }

  char* dump = nullptr;
  size_t dump_size = 0;
  std::FILE* out = open_memstream(&dump, &dump_size);
  if (out == nullptr) std::abort();
  const auto summary = feedprof::DumpTraceAsJsonLines(path, out);
  std::fclose(out);
  if (summary.ok()) CheckDumpLines(std::string_view(dump, dump_size));
  std::free(dump);
  return 0;
}
