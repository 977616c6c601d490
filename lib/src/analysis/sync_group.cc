// Sync point groups (see sync_group.h).
#include "analysis/sync_group.h"

namespace feedprof::analysis {

SyncGroupKey SyncGroupOf(const PreparedTimeline& prepared,
                         const ThreadCall& call) {
  const Timeline& tl = prepared.timeline();
  const ApiCall& named = tl.api_calls[prepared.SyncApiOf(call)];
  const ApiCall& outer = tl.api_calls[call.api];
  const uint32_t site =
      outer.call_site != 0 ? outer.call_site : named.call_site;
  return SyncGroupKey{named.name, call.sync,
                      CallSiteText(tl, site, prepared.user_code()), site};
}

}  // namespace feedprof::analysis
