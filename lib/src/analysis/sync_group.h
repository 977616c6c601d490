// The group a host-blocking call belongs to in the sync point report:
// (the blocking API's name, why it blocked, the call site as printed).
//
// Sync points are reported per group so a report names the line to change,
// and the what-if replay removes one group at a time; both must put a call
// into the same group, so the key is computed here once.
#ifndef FEEDPROF_ANALYSIS_SYNC_GROUP_H_
#define FEEDPROF_ANALYSIS_SYNC_GROUP_H_

#include <cstdint>
#include <string>
#include <tuple>

#include "analysis/api_classifier.h"
#include "analysis/call_site_text.h"
#include "analysis/prepared_timeline.h"
#include "feedprof/timeline.h"

namespace feedprof::analysis {

struct SyncGroupKey {
  StringId api = 0;
  SyncReason reason = SyncReason::kNone;
  std::string call_site;  // as printed (call_site_text.h), "" when unknown
  // The call site of the call that made the group: its whole stack is the
  // group's example. Not part of the group's identity.
  uint32_t site = 0;

  friend bool operator<(const SyncGroupKey& a, const SyncGroupKey& b) {
    return std::tie(a.api, a.reason, a.call_site) <
           std::tie(b.api, b.reason, b.call_site);
  }
  friend bool operator==(const SyncGroupKey& a, const SyncGroupKey& b) {
    return a.api == b.api && a.reason == b.reason && a.call_site == b.call_site;
  }
};

// The group of a blocking top-level call (call.sync != kNone): named by the
// outermost blocking call, with the outer call's site (else the blocking
// call's own).
SyncGroupKey SyncGroupOf(const PreparedTimeline& prepared,
                         const ThreadCall& call);

}  // namespace feedprof::analysis

#endif  // FEEDPROF_ANALYSIS_SYNC_GROUP_H_
