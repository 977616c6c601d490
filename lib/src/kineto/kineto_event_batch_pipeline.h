// The pipeline that reads batches of Kineto events on worker threads and
// hands them back in file order (common/ordered_batch_pipeline.h), with
// ReadKinetoEventBatch as the work.
#ifndef FEEDPROF_LIB_SRC_KINETO_KINETO_EVENT_BATCH_PIPELINE_H_
#define FEEDPROF_LIB_SRC_KINETO_KINETO_EVENT_BATCH_PIPELINE_H_

#include "common/ordered_batch_pipeline.h"
#include "kineto/kineto_event_batch.h"

namespace feedprof::kineto {

using KinetoEventBatchPipeline = common::OrderedBatchPipeline<KinetoEventBatch>;

}  // namespace feedprof::kineto

#endif  // FEEDPROF_LIB_SRC_KINETO_KINETO_EVENT_BATCH_PIPELINE_H_
