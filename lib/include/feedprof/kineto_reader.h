// Reads PyTorch profiler (Kineto) Chrome-trace JSON into the timeline model.
//
// Kineto writes one JSON object with a `traceEvents` array of complete ("X"),
// instant ("i"), flow ("s"/"f") and metadata ("M") events, plus top-level
// `deviceProperties` and `distributedInfo`. Traces of real training runs are
// hundreds of MiB once decompressed, so the reader streams: it decompresses
// gzip in chunks, tokenizes without building a document, and maps one event
// at a time into `feedprof::Timeline`. See docs/kineto.md for the mapping.
#ifndef FEEDPROF_KINETO_READER_H_
#define FEEDPROF_KINETO_READER_H_

#include <string>

#include "absl/status/statusor.h"
#include "feedprof/timeline.h"

namespace feedprof {

// Reads a `.json` or `.json.gz` Kineto trace (gzip is detected by its magic
// bytes, not the file name). A truncated file or gzip stream yields the
// events read before the damage plus a warning in `Timeline::warnings`; it
// is an error only when nothing could be salvaged. Malformed JSON, a file
// that is not a Kineto trace, or an unreadable file is an error naming the
// file, the byte offset and what was expected.
absl::StatusOr<Timeline> ReadKinetoTrace(const std::string& path);

}  // namespace feedprof

#endif  // FEEDPROF_KINETO_READER_H_
