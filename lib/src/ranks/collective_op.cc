#include "ranks/collective_op.h"

#include <array>
#include <utility>

#include "common/ascii_match.h"

namespace feedprof::ranks {

CollectiveOp CollectiveOpOfKernel(std::string_view name) {
  // Longer names first: "reducescatter" before "reduce", "alltoall" before
  // "all".
  static constexpr std::array<std::pair<std::string_view, CollectiveOp>, 10>
      kWords = {{
          {"reducescatter", CollectiveOp::kReduceScatter},
          {"reduce_scatter", CollectiveOp::kReduceScatter},
          {"allreduce", CollectiveOp::kAllReduce},
          {"allgather", CollectiveOp::kAllGather},
          {"alltoall", CollectiveOp::kAllToAll},
          {"sendrecv", CollectiveOp::kSendRecv},
          {"broadcast", CollectiveOp::kBroadcast},
          {"send", CollectiveOp::kSendRecv},
          {"recv", CollectiveOp::kSendRecv},
          {"reduce", CollectiveOp::kReduce},
      }};
  for (const auto& [word, op] : kWords) {
    if (common::ContainsIgnoreCase(name, word)) return op;
  }
  return CollectiveOp::kOther;
}

}  // namespace feedprof::ranks
