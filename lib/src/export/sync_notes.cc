// What the slice of a blocking CUDA call says: why it blocked (the
// analysis's own reason for it, so the trace and the report agree) and how
// much GPU idle followed it.
//
// The report groups sync points by (API, reason, call site); in the trace a
// user looks at one call, so every idle gap whose launching thread had just
// been blocked in a sync (IdleGap::after_sync) is given to that thread's
// last blocking call before the work that ended the gap was issued.
#include <algorithm>

#include "export/export_context.h"

namespace feedprof::exporter {

void CollectSyncNotes(ExportContext& ctx) {
  const Timeline& tl = ctx.tl;
  for (const analysis::ThreadView& thread : ctx.prepared.threads()) {
    for (const analysis::ThreadCall& call : thread.calls) {
      if (call.sync == analysis::SyncReason::kNone) continue;
      ctx.sync_notes[call.api].reason = call.sync;
    }
  }
  if (ctx.sync_notes.empty()) return;
  absl::Status status =
      ForEachIdleGap(tl, ctx.analysis, [&](const IdleGap& gap) {
        if (!gap.after_sync || gap.ending_op >= tl.gpu_ops.size()) return;
        const GpuOp& op = tl.gpu_ops[gap.ending_op];
        auto launch = ctx.launches.find({op.pid, op.correlation});
        if (launch == ctx.launches.end()) return;
        const ApiCall& l = tl.api_calls[launch->second];
        const analysis::ThreadView* thread =
            ctx.prepared.FindThread(l.pid, l.tid);
        if (thread == nullptr) return;
        // The last blocking top-level call that started before the
        // launch.
        auto it = std::lower_bound(thread->calls.begin(), thread->calls.end(),
                                   l.start,
                                   [](const analysis::ThreadCall& c, TimeNs t) {
                                     return c.start < t;
                                   });
        while (it != thread->calls.begin()) {
          --it;
          if (it->sync == analysis::SyncReason::kNone) continue;
          SyncNote& note = ctx.sync_notes[it->api];
          note.idle_after_ns += gap.end - gap.start;
          ++note.gaps_after;
          return;
        }
      });
  (void)status;  // the analysis already succeeded on the same options
}

}  // namespace feedprof::exporter
