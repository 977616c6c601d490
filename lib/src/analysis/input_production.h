// Where a thread produced its own input: the host time it spent making the
// next batch rather than waiting for one.
//
// A training loop whose DataLoader has no workers runs `__next__` on the
// thread that launches the GPU work: reading, decoding and collating the
// batch take a third of a step there, on the CPU, often while the GPU is
// still busy with the previous step. Such time is not a wait in a GPU idle
// gap, so the idle-gap causes alone do not see it; "next batch always
// ready" must remove it all the same (docs/what-if.md, "Input produced
// inline"). The trace says where it is in four ways, each kept as spans
// of the thread it ran on:
//   - DataLoader operators of a PyTorch profiler trace
//     ("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
//   - annotations (NVTX ranges, record_function) named for loading input;
//   - Python function ranges (a trace recorded with stacks) in the code of
//     a data-loading library;
//   - stack samples whose stack holds a frame of such code.
#ifndef FEEDPROF_ANALYSIS_INPUT_PRODUCTION_H_
#define FEEDPROF_ANALYSIS_INPUT_PRODUCTION_H_

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "feedprof/analysis_report.h"
#include "feedprof/timeline.h"

namespace feedprof::analysis {

// What says a span of host time produced input.
enum class InputEvidence : uint8_t {
  kDataLoaderOp,
  kInputAnnotation,
  kDataLoadingCode,     // Python function ranges
  kDataLoadingSamples,  // stack samples
};
inline constexpr size_t kInputEvidenceKinds = 4;

// A thread's host time producing input.
struct InputSpan {
  int32_t pid = 0;
  int32_t tid = 0;
  TimeNs start = 0;
  TimeNs end = 0;
};

struct InputProduction {
  // Each thread's spans merged (overlaps and nesting counted once), by
  // (pid, tid, start).
  std::vector<InputSpan> spans;
  // The time each kind of evidence found, before merging.
  std::array<TimeNs, kInputEvidenceKinds> by_evidence{};

  // The spans of thread (pid, tid), a range of `spans`.
  std::pair<const InputSpan*, const InputSpan*> Of(int32_t pid,
                                                   int32_t tid) const;
};

// An annotation named for loading input: lower-cased, with spaces, dots
// and dashes read as underscores, it starts with one of data_load,
// dataload, load_batch, load_data, next_batch, get_batch, fetch_batch,
// read_batch, input_pipeline, or holds "dataloader".
bool NamesInputLoading(std::string_view name);

// A Python source path (or a Python function range's name, which begins
// with it) in a data-loading library: torch/utils/data/, torchdata/,
// webdataset/.
bool InDataLoadingCode(std::string_view path);

// The input production of the processes `pids` (sorted; empty: all) in
// `window`: from the timeline's ranges (`range_indices`: the DataLoader,
// annotation and Python function ranges to look at, indices into
// Timeline::ranges) and its stack samples.
InputProduction FindInputProduction(const Timeline& timeline,
                                    const std::vector<uint32_t>& range_indices,
                                    const std::vector<int32_t>& pids,
                                    const Window& window);

}  // namespace feedprof::analysis

#endif  // FEEDPROF_ANALYSIS_INPUT_PRODUCTION_H_
