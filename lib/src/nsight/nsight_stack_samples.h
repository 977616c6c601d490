// Sampled host stacks from an Nsight Systems export.
//
// With CPU sampling (`nsys profile --sample=process-tree` or `--sample=cpu`
// with backtraces) nsys interrupts the traced threads at a fixed rate and
// walks their stacks. The export keeps each sample in COMPOSITE_EVENTS (id,
// time, thread) and its stack in SAMPLING_CALLCHAINS (one row per frame:
// sample id, depth from the innermost frame, symbol and module as StringIds).
// Those become Timeline::stack_samples, so the analysis can tell what a
// thread was running while the GPU waited, as it does with the samples of
// feedprof's own traces.
//
// The export does not state the sampling period. Each sample stands for the
// period, which is one setting of the capture, so it is taken from the data:
// the median gap between consecutive samples of one thread, pooled over
// every thread (a running thread is sampled once per period; the gaps in
// which it was off the CPU are longer and fewer).
#ifndef FEEDPROF_LIB_SRC_NSIGHT_NSIGHT_STACK_SAMPLES_H_
#define FEEDPROF_LIB_SRC_NSIGHT_NSIGHT_STACK_SAMPLES_H_

#include <string_view>

#include "nsight/nsight_import_context.h"

namespace feedprof::nsight {

inline constexpr std::string_view kCompositeEventsTable = "COMPOSITE_EVENTS";
inline constexpr std::string_view kSamplingCallchainsTable =
    "SAMPLING_CALLCHAINS";

// Appends the CPU samples of the traced processes to
// ctx.timeline.stack_samples (sorted by time), their stacks to
// ctx.timeline.call_sites (one call site per distinct stack) and threads
// not yet listed to ctx.timeline.threads. Runs after the processes are
// known. An export without COMPOSITE_EVENTS gives no samples and no warning.
void ReadStackSamples(ImportContext& ctx);

}  // namespace feedprof::nsight

#endif  // FEEDPROF_LIB_SRC_NSIGHT_NSIGHT_STACK_SAMPLES_H_
