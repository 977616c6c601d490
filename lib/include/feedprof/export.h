// Exports a timeline as Chrome trace events, the JSON that Perfetto, the
// Chrome trace viewer, TensorBoard and HTA open.
//
// A report says *what* limits a run; the timeline export lets a user see it:
// the host threads with their NVTX ranges and CUDA calls, their scheduler
// state, each stream's kernels and copies, the GPU's idle gaps named by
// cause, launch→kernel arrows and counters. The layout follows what the
// PyTorch profiler (Kineto) writes — GPU work in pid = device, tid = stream,
// the categories and args Kineto uses, flows "ac2g" — so feedprof's own
// Kineto reader, HTA and TensorBoard read the export back. Events are
// written as they are produced into a ByteSink; nothing holds the whole
// output. docs/export.md describes the tracks, names, args and limits.
#ifndef FEEDPROF_EXPORT_H_
#define FEEDPROF_EXPORT_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "feedprof/analysis_report.h"
#include "feedprof/timeline.h"

namespace feedprof {

// Where exported bytes go. Write may be called many times; Close once at
// the end (a sink that buffers or compresses writes its tail then).
class ByteSink {
 public:
  virtual ~ByteSink() = default;
  [[nodiscard]] virtual absl::Status Write(std::string_view bytes) = 0;
  [[nodiscard]] virtual absl::Status Close() = 0;
};

// Collects everything in memory (tests, small exports).
class StringByteSink : public ByteSink {
 public:
  absl::Status Write(std::string_view bytes) override {
    text_.append(bytes);
    return absl::OkStatus();
  }
  absl::Status Close() override { return absl::OkStatus(); }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

// A file, gzip-compressed when `gzip` is set. Opening creates or truncates
// `path`; errors name the file.
absl::StatusOr<std::unique_ptr<ByteSink>> OpenFileByteSink(
    const std::string& path, bool gzip);

struct ExportOptions {
  // Window and rank, as `analyze` takes them (relative to the trace start).
  AnalysisOptions analysis;
  // Steps first..last (1-based, in the order of Report::steps, inclusive):
  // the window becomes [start of step first, end of step last]. Exclusive
  // with analysis.from / analysis.to.
  std::optional<uint64_t> first_step;
  std::optional<uint64_t> last_step;
  // Counter tracks: GPU busy share in buckets of at least `busy_bucket_ns`,
  // widened so a device has at most `max_counter_buckets` of them; CPU use
  // in buckets of at least `cpu_bucket_ns`, capped the same way.
  TimeNs busy_bucket_ns = 1'000'000;
  TimeNs cpu_bucket_ns = 10'000'000;
  uint32_t max_counter_buckets = 10'000;
};

// What an export wrote.
struct ExportStats {
  uint64_t events = 0;  // trace events (metadata, slices, flows, counters)
  uint64_t bytes = 0;   // uncompressed JSON bytes
};

// Turns the step bounds of `options` into a window: the analysis options to
// analyse and export with. Errors: a step range outside the report's steps
// (the message says how many there are), steps together with --from/--to.
absl::StatusOr<AnalysisOptions> ResolveExportWindow(
    const Timeline& timeline, const ExportOptions& options);

// Roughly how many bytes the export of `timeline` in `report`'s window
// takes (events × their typical size), for a warning before a big write.
uint64_t EstimateExportBytes(const Timeline& timeline, const Report& report);

// Writes the trace of `timeline` in the window and rank of `analysis`
// (the options `report` was analysed with) to `sink`, and closes it.
absl::StatusOr<ExportStats> ExportChromeTrace(const Timeline& timeline,
                                              const Report& report,
                                              const AnalysisOptions& analysis,
                                              const ExportOptions& options,
                                              ByteSink& sink);

// Writes the export to `path` (gzip when it ends in ".gz") through a
// temporary file beside it (PATH.tmp-PID) renamed over `path` at the end, so
// a failed export never leaves a half-written file.
absl::StatusOr<ExportStats> ExportChromeTraceToFile(
    const Timeline& timeline, const Report& report,
    const AnalysisOptions& analysis, const ExportOptions& options,
    const std::string& path);

}  // namespace feedprof

#endif  // FEEDPROF_EXPORT_H_
