// The one sentence a user reads first: what happened to the idle cause that
// changed most, and what happened to the step time (or, without steps, to
// the GPU's busy share), with the noise verdict, e.g. "host wait on CPU
// fell from 41 ms to 3 ms per step; step time -18% (230 ms -> 189 ms
// median, beyond noise)" ("slower beyond noise" or "no slowdown beyond
// noise" when the --fail-if-slower gate made the test one-sided).
#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/units.h"
#include "compare/compare_passes.h"

namespace feedprof::compare {
namespace {

using common::FormatDuration;
using common::FormatPercent;

const char* CauseWords(IdleCause cause) {
  switch (cause) {
    case IdleCause::kHostWaitSync:
      return "host wait in sync calls";
    case IdleCause::kHostWaitCudaApi:
      return "host wait in other CUDA calls";
    case IdleCause::kHostWaitOnCpu:
      return "host wait on CPU";
    case IdleCause::kHostWaitOffCpuIo:
      return "host wait in I/O";
    case IdleCause::kHostWaitOffCpuWait:
      return "host wait for other threads";
    case IdleCause::kHostWaitUnknown:
      return "host wait (no CPU samples)";
    case IdleCause::kLaunchOverhead:
      return "launch overhead";
    case IdleCause::kQueueLatency:
      return "queue latency";
    case IdleCause::kUnattributed:
      return "unattributed idle";
  }
  return "idle";
}

TimeNs Ns(double v) { return static_cast<TimeNs>(std::llround(v)); }

}  // namespace

std::string Headline(const Comparison& c) {
  std::string idle = "idle by cause unchanged";
  if (!c.idle.largest.empty()) {
    const IdleCauseChange& top =
        c.idle.causes[static_cast<size_t>(c.idle.largest.front())];
    const Change& ch = top.per_unit_ns;
    if (std::llround(ch.delta) != 0) {
      idle = absl::StrCat(
          CauseWords(top.cause), ch.delta < 0 ? " fell from " : " rose from ",
          common::FormatDuration(Ns(ch.before)), " to ",
          common::FormatDuration(Ns(ch.after)), " per ", c.unit);
    }
  }
  const StepTimeComparison& s = c.step_time;
  if (!s.available) {
    return absl::StrCat(idle, "; GPU busy ",
                        common::FormatPercent(s.gpu_busy_share.before), " -> ",
                        common::FormatPercent(s.gpu_busy_share.after),
                        " (no steps: ", s.noise.explanation, ")");
  }
  const std::string relative =
      s.median_ns.relative
          ? absl::StrFormat("%+.0f%%", *s.median_ns.relative * 100)
          : std::string("n/a");
  return absl::StrCat(idle, "; step time ", relative, " (",
                      common::FormatDuration(s.before.median_ns), " -> ",
                      common::FormatDuration(s.after.median_ns), " median, ",
                      NoiseWords(s.noise), ")");
}

}  // namespace feedprof::compare
