// The CUPTI collector of this process: the state behind cupti_entry.h.
//
// StartCollection loads libcupti, decides how much collection is possible
// and says so in at most one `feedprof:` line:
//  * subscriber and activities: full collection (activity records plus
//    blocking calls with call sites);
//  * activities without a subscriber (another tool holds CUPTI's one
//    subscriber, CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED): activity
//    records only, no call sites;
//  * no activities (no driver, no device, CUPTI unusable): host-only.
// The decision is a pure function (PlanCollection) so every branch is
// tested with real CUPTI result codes.
#ifndef FEEDPROF_CUPTI_HOOKS_COLLECTOR_H_
#define FEEDPROF_CUPTI_HOOKS_COLLECTOR_H_

#include <cupti.h>

#include <cstddef>

#include "cupti_hooks/cupti_api.h"
#include "cupti_hooks/recorder_sink.h"

namespace feedprof::cupti {

enum class CollectionMode {
  kFull,          // activities + callbacks with call sites
  kActivityOnly,  // activities, no call sites
  kHostOnly,      // nothing from CUPTI
};

// What to do given the results of cuptiSubscribe and of enabling the
// concurrent-kernel activity. `message` gets the one line to print (empty
// when nothing needs saying), without the "feedprof: " prefix.
CollectionMode PlanCollection(const CuptiApi& api, CUptiResult subscribe,
                              CUptiResult enable_activity, char* message,
                              size_t message_size);

namespace testing {
// Forgets that collection was started, so a test can start it again.
void ResetCollectionForTest();
// Mode chosen by the last StartCollection.
CollectionMode LastCollectionMode();
// The sink the next StartCollection uses (null: the process recorder).
void SetRecorderSinkForTest(const RecorderSink* sink);
// CUPTI's buffer callbacks, as the driver calls them. They work after a
// StartCollection that loaded libcupti, whatever mode it chose.
void RequestBufferForTest(uint8_t** buffer, size_t* size, size_t* max_records);
void CompleteBufferForTest(uint8_t* buffer, size_t size, size_t valid_size);
// cuptiActivityFlushAll through `api` as Flush/StopCollection issue it.
void FlushAllForTest(const CuptiApi& api, uint32_t flag);
}  // namespace testing

}  // namespace feedprof::cupti

#endif  // FEEDPROF_CUPTI_HOOKS_COLLECTOR_H_
