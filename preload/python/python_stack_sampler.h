// Samples the Python stack of every thread of this process that runs
// Python, from the host sampling thread, without signals and without the
// GIL.
//
// Each round walks the interpreter's thread list and each thread's frames
// through reads that cannot fault (SafeMemory): the threads keep running,
// so a frame may be popped and freed under the reader. What was read is
// validated (type pointers, bounded depth, no loops); a stack that fails
// is dropped and counted as torn. For 3.11+ the newest frames are read in
// one piece from the thread's data stack, and code objects in one batched
// read per stack, so a 40-frame stack costs a few system calls.
//
// Frames and stacks are interned: a frame (file, function, line) becomes
// a node whose parent is the stack it was called from, announced once in
// a StackNodes packet; a sample is then the innermost node's id, a few
// bytes in the thread's HostSampleBatch sample. Code objects are cached by
// address and recognised by their fields, so a reused address is not
// mistaken for the old code.
//
// All memory is allocated in Init; a round allocates nothing. Used by one
// thread at a time (the sampling thread).
#ifndef FEEDPROF_PRELOAD_PYTHON_PYTHON_STACK_SAMPLER_H_
#define FEEDPROF_PRELOAD_PYTHON_PYTHON_STACK_SAMPLER_H_

#include <pthread.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "preload/python/process_memory.h"
#include "preload/python/python_frame_walker.h"
#include "preload/python/python_objects.h"

namespace feedprof::preload::python {

// Values of the proto enum feedprof.trace.PythonStackState.
enum class PythonStackState : uint32_t {
  kUnknown = 0,      // no CPython seen (yet)
  kOn = 1,           // stacks are recorded
  kUnsupported = 2,  // a CPython feedprof cannot read (detail says why)
  kUnreadable = 3,   // memory reads refused (detail says why)
  kDisabled = 4,     // FEEDPROF_PYTHON_STACKS=0
};

struct PythonStackSinks {
  bool (*submit_packet)(const uint8_t* data, size_t size,
                        void* context) = nullptr;
  uint32_t (*intern_string)(std::string_view text, void* context) = nullptr;
  void* context = nullptr;
};

struct ThreadStack {
  uint32_t tid = 0;
  uint32_t stack_id = 0;  // innermost StackNode id
};

class PythonStackSampler {
 public:
  static constexpr uint32_t kMaxDepth = 128;  // frames kept, innermost
  static constexpr size_t kMaxThreads = 1024;

  PythonStackSampler() = default;
  ~PythonStackSampler();
  PythonStackSampler(const PythonStackSampler&) = delete;
  PythonStackSampler& operator=(const PythonStackSampler&) = delete;

  // Allocates the tables. False when memory is short.
  bool Init(const PythonStackSinks& sinks);
  void Release();
  // In the child of a fork: the pid changed; caches stay valid (the
  // child's memory is a copy), announced ids are the parent's file's, so
  // everything is announced again.
  void ResetAfterFork();

  // One round: the stacks of the threads running Python, into `out` (up
  // to kMaxThreads). Submits the StackNodes packet of new nodes first.
  // Returns how many threads have a stack.
  size_t SampleRound(ThreadStack* out, size_t max);

  PythonStackState state() const { return state_; }
  const char* detail() const { return detail_; }
  uint32_t version_hex() const { return version_hex_; }
  uint64_t stacks() const { return stacks_; }
  uint64_t torn() const { return torn_; }
  uint64_t truncated() const { return truncated_; }
  // Submits a PythonStackStatus packet (state, counters).
  void SubmitStatus();
  // Stacks were turned off by the user (no Init needed): the next
  // SubmitDueStatus says so.
  void MarkDisabled(const PythonStackSinks& sinks);
  // Submits the status when a change is waiting to be said. Called by the
  // sampling thread each round: the thread that starts sampling or forks
  // may be inside the recorder, where packets are refused.
  void SubmitDueStatus() {
    if (status_due_) {
      status_due_ = false;
      SubmitStatus();
    }
  }

  // One thread's stack, interned: reads PyThreadState `tstate` and its
  // frames and returns the innermost node id (0: no Python frames, or torn
  // and counted). `*tid` gets the thread's kernel tid, `*next` the next
  // thread state of its interpreter. Flushes no packet: SampleRound does.
  uint32_t SampleThread(uint64_t tstate, uint32_t* tid, uint64_t* next);
  // The PyThreadState of kernel thread `tid`, or 0 (tests, benchmarks).
  uint64_t ThreadStateOf(uint32_t tid);
  // Submits the StackNodes packet of the nodes made since the last one.
  void FlushNodes();

 private:
  struct CodeEntry;
  struct NodeEntry;

  bool Ready();
  // Calls `visit(tstate)` for each thread state of each interpreter until
  // it returns false; false when the runtime could not be read.
  template <typename Visit>
  bool ForEachThreadState(Visit visit);
  // The frames of the thread whose state bytes are `tstate_bytes`.
  WalkResult ReadStack(const uint8_t* tstate_bytes, PythonFrameRef* frames,
                       uint32_t* count);
  uint32_t ThreadTid(const uint8_t* tstate_bytes);
  // Validates the stack's code objects in one batched read and turns the
  // frames into the innermost node id; 0 when torn.
  uint32_t InternStack(const PythonFrameRef* frames, uint32_t count);
  CodeEntry* CodeOf(uint64_t code, const CodeFields& fields);
  uint32_t LineOf(CodeEntry* entry, int32_t offset);
  uint32_t NodeOf(uint32_t parent, uint32_t file, uint32_t function,
                  uint32_t line);
  void ClearCaches();

  PythonStackSinks sinks_;
  SafeMemory memory_;
  PythonStackState state_ = PythonStackState::kUnknown;
  char detail_[240] = {};
  uint32_t version_hex_ = 0;
  bool memory_open_ = false;
  bool status_due_ = false;
  // 3.10 keeps pthread_t, not the kernel tid: the tid's offset in glibc's
  // thread descriptor (-1: unknown).
  int32_t pthread_tid_offset_ = -2;

  CodeEntry* codes_ = nullptr;  // kCodeSlots
  uint8_t* tables_ = nullptr;   // line tables, kTableBytes
  size_t tables_used_ = 0;
  uint64_t* line_keys_ = nullptr;  // kLineSlots
  uint32_t* line_values_ = nullptr;
  NodeEntry* nodes_ = nullptr;  // kNodeSlots
  size_t node_count_ = 0;
  uint32_t next_node_id_ = 1;
  uint32_t code_serial_ = 0;
  uint32_t cache_generation_ = 0;   // counts ClearCaches
  uint8_t* node_packet_ = nullptr;  // kNodePacketBytes
  uint8_t* scratch_ = nullptr;      // data stack window, code heads
  size_t node_packet_size_ = 0;
  size_t nodes_in_packet_ = 0;

  uint64_t stacks_ = 0;
  uint64_t torn_ = 0;
  uint64_t truncated_ = 0;
};

// The byte offset of the kernel tid in glibc's thread descriptor
// (pthread_t points at it), found by looking for the calling thread's tid
// there; -1 when not found.
int32_t FindPthreadTidOffset();

}  // namespace feedprof::preload::python

#endif  // FEEDPROF_PRELOAD_PYTHON_PYTHON_STACK_SAMPLER_H_
