// Where each host thread spent its time, by stack (feedprof/analysis_report.h,
// HostCode).
//
// "The launching thread was busy" is half an answer; the line it was busy
// in is the other half. A Kineto trace recorded with `with_stack=True`
// holds every Python call and framework operator of a thread as nested
// events, and its CUDA runtime calls inside them: a continuous stack over
// time. A sampling profiler's export holds stacks at moments, each standing
// for its sampling period. Either way each thread's time goes into a tree
// of stacks (a calling-context tree); merged by thread role, the tree gives
// the top locations by self and total time, the lines of the user's code
// the time was spent under, and the folded stacks of flame graphs.
//
// The trees are built while the timeline's ranges are still there (they
// are freed early in the analysis: range_digest.h) and merged by role once
// the host pass has said which threads launch GPU work.
#ifndef FEEDPROF_ANALYSIS_CODE_PROFILE_H_
#define FEEDPROF_ANALYSIS_CODE_PROFILE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "feedprof/analysis_report.h"
#include "feedprof/timeline.h"

namespace feedprof::analysis {

class CodeProfiles {
 public:
  // The profiles of the threads of the processes `pids` (sorted; empty:
  // all) over `window`: from `stack_ranges` (indices of the timeline's
  // Python function and operator ranges, in its order) with each thread's
  // CUDA calls as the innermost frames, or, when there are none, from the
  // timeline's stack samples. `rule` says which frames are the user's
  // (user_code.h).
  static CodeProfiles Build(const Timeline& timeline,
                            const std::vector<uint32_t>& stack_ranges,
                            const std::vector<int32_t>& pids,
                            const Window& window,
                            const UserCodeRule& rule = {});

  bool empty() const { return threads_.empty(); }

  // The report's section, the threads merged by `role_of(pid, tid)`.
  HostCode Finish(
      const std::function<ThreadRole(int32_t pid, int32_t tid)>& role_of) const;

 private:
  struct FrameInfo {
    std::string label;  // "function (file:line)", an operator or a CUDA call
    CodeFrameKind kind = CodeFrameKind::kNative;
    bool user() const { return kind == CodeFrameKind::kUserCode; }
  };
  // A node of a thread's calling-context tree: the stack of its parent's
  // plus one frame. Node 0 is the root (no frame).
  struct Node {
    uint32_t parent = 0;
    uint32_t frame = 0;  // index into frames_
    TimeNs self_ns = 0;
  };
  struct ThreadTree {
    int32_t pid = 0;
    int32_t tid = 0;
    std::vector<Node> nodes{Node{}};
    std::unordered_map<uint64_t, uint32_t> children;  // (parent, frame)

    uint32_t Child(uint32_t parent, uint32_t frame);
  };

  struct RoleTally;

  void AddRanges(const Timeline& timeline,
                 const std::vector<uint32_t>& stack_ranges,
                 const std::vector<int32_t>& pids, const Window& window,
                 const UserCodeRule& rule);
  void AddSamples(const Timeline& timeline, const std::vector<int32_t>& pids,
                  const Window& window, const UserCodeRule& rule);
  ThreadTree& TreeOf(int32_t pid, int32_t tid);

  CodeProfileBasis basis_ = CodeProfileBasis::kStackTimeline;
  std::vector<FrameInfo> frames_;
  std::unordered_map<std::string, uint32_t> frame_index_;
  std::vector<ThreadTree> threads_;  // by (pid, tid)
  std::unordered_map<uint64_t, uint32_t> thread_index_;

  uint32_t FrameOf(std::string label, CodeFrameKind kind);
};

}  // namespace feedprof::analysis

#endif  // FEEDPROF_ANALYSIS_CODE_PROFILE_H_
