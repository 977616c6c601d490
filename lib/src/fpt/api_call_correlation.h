// Correlation ids of the API calls of one EventBatch.
//
// The recorder writes each call's correlation id as a delta from the
// previous call of the batch (the first: from base_correlation_id), which
// takes a byte where the id takes three or more; other producers (CUPTI
// activity records, older files) write the absolute correlation_id. Both
// readers of the format (the timeline builder and the dumper) walk the
// calls in order through this one chain so they agree.
#ifndef FEEDPROF_LIB_SRC_READERS_API_CALL_CORRELATION_H_
#define FEEDPROF_LIB_SRC_READERS_API_CALL_CORRELATION_H_

#include <cstdint>

#include "feedprof.pb.h"

namespace feedprof::fpt {

class ApiCallCorrelationChain {
 public:
  explicit ApiCallCorrelationChain(const trace::EventBatch& batch)
      : previous_(batch.base_correlation_id()) {}

  // The correlation id of `call`, the next call of the batch: its
  // correlation_id when present and nonzero, else the previous call's id
  // plus its correlation_delta. Call once per call, in order.
  uint64_t Next(const trace::ApiCall& call) {
    previous_ =
        call.correlation_id() != 0
            ? call.correlation_id()
            : previous_ + static_cast<uint64_t>(call.correlation_delta());
    return previous_;
  }

 private:
  uint64_t previous_;
};

}  // namespace feedprof::fpt

#endif  // FEEDPROF_LIB_SRC_READERS_API_CALL_CORRELATION_H_
