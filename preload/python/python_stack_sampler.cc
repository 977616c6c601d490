#include "preload/python/python_stack_sampler.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "preload/python/line_table.h"
#include "preload/python/python_runtime.h"
#include "preload/trace_framing.h"
#include "preload/wire_writer.h"

namespace feedprof::preload::python {

struct PythonStackSampler::CodeEntry {
  uint64_t code;  // 0: empty
  CodeFields fields;
  uint32_t serial;  // a new one each time the entry is (re)described
  uint32_t file_id;
  uint32_t function_id;
  uint32_t table_offset;
  uint32_t table_size;
};

struct PythonStackSampler::NodeEntry {
  uint64_t hash;  // 0: empty
  uint32_t parent, file, function, line, id;
};

namespace {

constexpr size_t kCodeSlots = 8192;           // power of two
constexpr size_t kLineSlots = 32768;          // power of two
constexpr size_t kNodeSlots = 65536;          // power of two
constexpr size_t kTableBytes = 2u << 20;      // line table copies
constexpr size_t kMaxTableBytes = 64 * 1024;  // per code object
constexpr size_t kNodePacketBytes = 32 * 1024;
constexpr size_t kWindowBytes = 16 * 1024;   // data stack read at once
constexpr size_t kCodeHeadBytes = 256;       // a code object's fields
constexpr size_t kScratchBytes = 32 * 1024;  // the window, then code heads
static_assert(kWindowBytes <= kScratchBytes);
constexpr uint32_t kMaxInterpreters = 64;
constexpr uint32_t kMaxThreadStates = 4096;
// A visitor's answer that ends the walk (no thread state lives there).
constexpr uint64_t kStopVisit = 1;

// Field numbers (proto/feedprof.proto).
constexpr uint32_t kStackNodesNode = 1;
constexpr uint32_t kNodeId = 1, kNodeParent = 2, kNodeFile = 3,
                   kNodeFunction = 4, kNodeLine = 5;
constexpr uint32_t kStatusState = 1, kStatusDetail = 2, kStatusVersion = 3,
                   kStatusStacks = 4, kStatusTorn = 5, kStatusTruncated = 6;

uint64_t Mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h *= 0xff51afd7ed558ccdULL;
  return h ^ (h >> 32);
}

// The newest frames of a thread, read in one piece; other reads go to the
// safe reader.
class WindowMemory {
 public:
  WindowMemory(const SafeMemory& base, uint8_t* buffer)
      : base_(base), buffer_(buffer) {}

  void Load(uint64_t start, uint64_t end) {
    start_ = start;
    size_ = end > start ? base_.ReadPrefix(start, buffer_, end - start) : 0;
  }
  bool Read(uint64_t address, void* out, size_t size) const {
    if (address >= start_ && address - start_ + size <= size_) {
      std::memcpy(out, buffer_ + (address - start_), size);
      return true;
    }
    return base_.Read(address, out, size);
  }

 private:
  const SafeMemory& base_;
  uint8_t* buffer_;
  uint64_t start_ = 0;
  size_t size_ = 0;
};

}  // namespace

int32_t FindPthreadTidOffset() {
  const auto tid = static_cast<int32_t>(syscall(SYS_gettid));
  const auto* self = reinterpret_cast<const uint8_t*>(pthread_self());
  // glibc's struct pthread starts with the TCB header; the tid lies within
  // its first kilobyte on every architecture glibc supports.
  for (int32_t offset = 0; offset < 2048; offset += 4) {
    int32_t value;
    std::memcpy(&value, self + offset, sizeof value);
    if (value == tid) return offset;
  }
  return -1;
}

PythonStackSampler::~PythonStackSampler() { Release(); }

bool PythonStackSampler::Init(const PythonStackSinks& sinks) {
  Release();
  sinks_ = sinks;
  codes_ = static_cast<CodeEntry*>(std::calloc(kCodeSlots, sizeof(CodeEntry)));
  tables_ = static_cast<uint8_t*>(std::malloc(kTableBytes));
  line_keys_ =
      static_cast<uint64_t*>(std::calloc(kLineSlots, sizeof(uint64_t)));
  line_values_ =
      static_cast<uint32_t*>(std::calloc(kLineSlots, sizeof(uint32_t)));
  nodes_ = static_cast<NodeEntry*>(std::calloc(kNodeSlots, sizeof(NodeEntry)));
  node_packet_ = static_cast<uint8_t*>(std::malloc(kNodePacketBytes));
  scratch_ = static_cast<uint8_t*>(std::malloc(kScratchBytes));
  if (codes_ == nullptr || tables_ == nullptr || line_keys_ == nullptr ||
      line_values_ == nullptr || nodes_ == nullptr || node_packet_ == nullptr ||
      scratch_ == nullptr) {
    Release();
    return false;
  }
  return true;
}

void PythonStackSampler::Release() {
  std::free(codes_);
  std::free(tables_);
  std::free(line_keys_);
  std::free(line_values_);
  std::free(nodes_);
  std::free(node_packet_);
  std::free(scratch_);
  scratch_ = nullptr;
  codes_ = nullptr;
  tables_ = nullptr;
  line_keys_ = nullptr;
  line_values_ = nullptr;
  nodes_ = nullptr;
  node_packet_ = nullptr;
  memory_.Close();
  memory_open_ = false;
}

void PythonStackSampler::ResetAfterFork() {
  if (memory_open_ && !memory_.ReopenAfterFork()) {
    memory_open_ = false;
    state_ = PythonStackState::kUnreadable;
    std::snprintf(detail_, sizeof detail_, "%s", memory_.why());
  }
  // The child's trace has seen none of the parent's ids.
  ClearCaches();
  node_packet_size_ = 0;
  nodes_in_packet_ = 0;
  stacks_ = torn_ = truncated_ = 0;
  // Said again in the child's own trace, from its sampling thread.
  status_due_ = state_ != PythonStackState::kUnknown;
}

void PythonStackSampler::ClearCaches() {
  if (codes_ == nullptr) return;
  ++cache_generation_;
  for (size_t i = 0; i < kCodeSlots; ++i) codes_[i].code = 0;
  std::memset(line_keys_, 0, kLineSlots * sizeof(uint64_t));
  std::memset(nodes_, 0, kNodeSlots * sizeof(NodeEntry));
  tables_used_ = 0;
  node_count_ = 0;
}

bool PythonStackSampler::Ready() {
  if (state_ == PythonStackState::kOn) return true;
  if (state_ != PythonStackState::kUnknown || codes_ == nullptr) return false;
  PythonRuntime& runtime = Runtime();
  const RuntimeState rs = runtime.Resolve();
  if (rs == RuntimeState::kNotYet || rs == RuntimeState::kNotPython) {
    return false;
  }
  version_hex_ = runtime.version_hex();
  if (rs == RuntimeState::kUnsupported) {
    state_ = PythonStackState::kUnsupported;
    std::snprintf(detail_, sizeof detail_, "%s", runtime.why());
  } else if (!memory_.Open()) {
    state_ = PythonStackState::kUnreadable;
    std::snprintf(detail_, sizeof detail_, "%s", memory_.why());
  } else {
    memory_open_ = true;
    if (runtime.layout().tstate_native_thread_id == 0) {
      pthread_tid_offset_ = FindPthreadTidOffset();
    }
    state_ = PythonStackState::kOn;
  }
  SubmitStatus();
  return state_ == PythonStackState::kOn;
}

uint32_t PythonStackSampler::ThreadTid(const uint8_t* tstate_bytes) {
  const PythonLayout& layout = Runtime().layout();
  if (layout.tstate_native_thread_id != 0) {
    uint64_t tid = 0;
    std::memcpy(&tid, tstate_bytes + layout.tstate_native_thread_id,
                sizeof tid);
    return static_cast<uint32_t>(tid);
  }
  uint64_t pthread = 0;
  std::memcpy(&pthread, tstate_bytes + layout.tstate_thread_id, sizeof pthread);
  int32_t tid = 0;
  if (pthread_tid_offset_ < 0 ||
      !memory_.Read(pthread + static_cast<uint32_t>(pthread_tid_offset_), &tid,
                    sizeof tid)) {
    return 0;
  }
  return tid > 0 ? static_cast<uint32_t>(tid) : 0;
}

WalkResult PythonStackSampler::ReadStack(const uint8_t* tstate_bytes,
                                         PythonFrameRef* frames,
                                         uint32_t* count) {
  *count = 0;
  const PythonLayout& layout = Runtime().layout();
  uint64_t frame = 0;
  if (!CurrentFrame(layout, memory_, tstate_bytes, &frame)) {
    return WalkResult::kTorn;
  }
  if (frame == 0) return WalkResult::kComplete;
  WindowMemory window(memory_, scratch_);
  if (layout.tstate_datastack_chunk != 0) {
    uint64_t chunk = 0;
    std::memcpy(&chunk, tstate_bytes + layout.tstate_datastack_chunk,
                sizeof chunk);
    const uint64_t end = frame + layout.frame_read_size;
    if (chunk != 0 && frame > chunk && frame - chunk < (uint64_t{1} << 30)) {
      window.Load(std::max(chunk, end > kWindowBytes ? end - kWindowBytes : 0),
                  end);
    }
  }
  return WalkFrames(layout, window, frame, frames, kMaxDepth, count);
}

uint32_t PythonStackSampler::SampleThread(uint64_t tstate, uint32_t* tid,
                                          uint64_t* next) {
  *tid = 0;
  *next = 0;
  if (!Ready()) return 0;
  const PythonLayout& layout = Runtime().layout();
  uint8_t bytes[512];
  if ((tstate & 7) != 0 || layout.tstate_read_size > sizeof bytes ||
      !memory_.Read(tstate, bytes, layout.tstate_read_size)) {
    ++torn_;
    return 0;
  }
  std::memcpy(next, bytes + layout.tstate_next, sizeof *next);
  *tid = ThreadTid(bytes);
  PythonFrameRef frames[kMaxDepth];
  uint32_t count = 0;
  const WalkResult result = ReadStack(bytes, frames, &count);
  if (result == WalkResult::kTorn) {
    ++torn_;
    return 0;
  }
  if (count == 0 || *tid == 0) return 0;
  if (result == WalkResult::kTruncated) ++truncated_;
  const uint32_t stack = InternStack(frames, count);
  if (stack != 0) ++stacks_;
  return stack;
}

template <typename Visit>
bool PythonStackSampler::ForEachThreadState(Visit visit) {
  const PythonRuntime& runtime = Runtime();
  const PythonLayout& layout = runtime.layout();
  const uint64_t base = runtime.runtime_address();
  uint64_t finalizing = 0;
  uint64_t interp = 0;
  if (!memory_.Read(base + layout.runtime_finalizing, &finalizing,
                    sizeof finalizing) ||
      finalizing != 0 ||
      !memory_.Read(base + layout.runtime_interpreters_head, &interp,
                    sizeof interp)) {
    return false;  // shutting down: its threads' frames are being torn down
  }
  uint32_t thread_states = 0;
  for (uint32_t i = 0; interp != 0 && i < kMaxInterpreters; ++i) {
    uint64_t tstate = 0;
    uint64_t next_interp = 0;
    if (!memory_.Read(interp + layout.interp_threads_head, &tstate,
                      sizeof tstate) ||
        !memory_.Read(interp + layout.interp_next, &next_interp,
                      sizeof next_interp)) {
      return false;
    }
    while (tstate != 0 && ++thread_states <= kMaxThreadStates) {
      const uint64_t next = visit(tstate);
      if (next == kStopVisit) return true;
      tstate = next;
    }
    interp = next_interp;
  }
  return true;
}

uint64_t PythonStackSampler::ThreadStateOf(uint32_t tid) {
  if (!Ready()) return 0;
  const PythonLayout& layout = Runtime().layout();
  uint64_t found = 0;
  ForEachThreadState([&](uint64_t tstate) -> uint64_t {
    uint8_t bytes[512];
    if (!memory_.Read(tstate, bytes, layout.tstate_read_size)) {
      return kStopVisit;
    }
    if (ThreadTid(bytes) == tid) {
      found = tstate;
      return kStopVisit;
    }
    uint64_t next = 0;
    std::memcpy(&next, bytes + layout.tstate_next, sizeof next);
    return next;
  });
  return found;
}

size_t PythonStackSampler::SampleRound(ThreadStack* out, size_t max) {
  if (!Ready()) return 0;
  size_t n = 0;
  ForEachThreadState([&](uint64_t tstate) -> uint64_t {
    if (n == max) return kStopVisit;
    uint32_t tid = 0;
    uint64_t next = 0;
    const uint32_t stack = SampleThread(tstate, &tid, &next);
    if (stack != 0) out[n++] = ThreadStack{tid, stack};
    return next == 0 ? 0 : next;
  });
  FlushNodes();
  return n;
}

uint32_t PythonStackSampler::InternStack(const PythonFrameRef* frames,
                                         uint32_t count) {
  const PythonRuntime& runtime = Runtime();
  const PythonLayout& layout = runtime.layout();
  // Each distinct code object once, in one read.
  uint64_t unique[kMaxDepth];
  uint32_t unique_count = 0;
  for (uint32_t i = 0; i < count; ++i) {
    bool seen = false;
    for (uint32_t u = 0; u < unique_count && !seen; ++u) {
      seen = unique[u] == frames[i].code;
    }
    if (!seen) unique[unique_count++] = frames[i].code;
  }
  static_assert(kMaxDepth * kCodeHeadBytes <= kScratchBytes);
  if (layout.code_read_size > kCodeHeadBytes) return 0;
  // The window's buffer is free again once the frames were walked.
  uint8_t* heads = scratch_;
  constexpr size_t kHead = kCodeHeadBytes;
  iovec local[kMaxDepth];
  iovec remote[kMaxDepth];
  for (uint32_t u = 0; u < unique_count; ++u) {
    local[u] = iovec{heads + u * kHead, layout.code_read_size};
    remote[u] =
        iovec{reinterpret_cast<void*>(unique[u]), layout.code_read_size};
  }
  if (memory_.ReadMany(local, remote, unique_count) != unique_count) {
    ++torn_;
    return 0;
  }
  CodeEntry* entries[kMaxDepth];
  CodeFields fields[kMaxDepth];
  for (uint32_t u = 0; u < unique_count; ++u) {
    if (!DecodeCodeFields(layout, heads + u * kHead, runtime.code_type(),
                          &fields[u])) {
      ++torn_;
      return 0;
    }
  }
  // A cache reset while the entries are looked up invalidates those found
  // before it: look them all up again (a second reset in one stack cannot
  // happen: the caches then hold this stack's codes alone).
  for (int attempt = 0; attempt < 2; ++attempt) {
    const uint32_t generation = cache_generation_;
    for (uint32_t u = 0; u < unique_count; ++u) {
      entries[u] = CodeOf(unique[u], fields[u]);
      if (entries[u] == nullptr) {
        ++torn_;
        return 0;
      }
    }
    if (generation == cache_generation_) break;
  }
  uint32_t node = 0;
  for (uint32_t i = count; i-- > 0;) {
    uint32_t u = 0;
    while (unique[u] != frames[i].code) ++u;
    CodeEntry* entry = entries[u];
    node = NodeOf(node, entry->file_id, entry->function_id,
                  LineOf(entry, frames[i].offset));
    if (node == 0) return 0;
  }
  return node;
}

PythonStackSampler::CodeEntry* PythonStackSampler::CodeOf(
    uint64_t code, const CodeFields& fields) {
  const size_t mask = kCodeSlots - 1;
  size_t slot = static_cast<size_t>(Mix(0, code)) & mask;
  size_t used = 0;
  for (size_t probe = 0; probe < kCodeSlots; ++probe) {
    CodeEntry& e = codes_[(slot + probe) & mask];
    if (e.code == code) {
      if (e.fields == fields) return &e;
      slot = (slot + probe) & mask;  // the address was reused: describe again
      break;
    }
    if (e.code == 0) {
      slot = (slot + probe) & mask;
      break;
    }
    ++used;
  }
  if (used >= kCodeSlots / 8 * 7) {
    ClearCaches();
    return CodeOf(code, fields);
  }
  const PythonRuntime& runtime = Runtime();
  const PythonLayout& layout = runtime.layout();
  CodeEntry& e = codes_[slot];
  if (tables_used_ + kMaxTableBytes > kTableBytes) {
    ClearCaches();
    return CodeOf(code, fields);
  }
  // A frame read a moment ago may point at a code object that was freed
  // since (its memory keeps its type) or is being built again: every part
  // must read, and the object must still hold the same fields afterwards,
  // or the stack is dropped as torn.
  char file[512];
  char function[512];
  CodeFields again;
  const int64_t table_size =
      ReadBytes(layout, memory_, fields.linetable, runtime.bytes_type(),
                tables_ + tables_used_, kMaxTableBytes);
  if (table_size < 0 ||
      !ReadUnicode(layout, memory_, fields.filename, runtime.unicode_type(),
                   file, sizeof file) ||
      !ReadUnicode(layout, memory_, fields.name, runtime.unicode_type(),
                   function, sizeof function) ||
      !ReadCodeFields(layout, memory_, code, runtime.code_type(), &again) ||
      !(again == fields) ||
      // A code object's name is never empty (`<module>`, `<lambda>`): an
      // empty one is a name read while it was freed and reused.
      function[0] == '\0') {
    return nullptr;
  }
  const uint32_t file_id =
      file[0] != '\0' ? sinks_.intern_string(file, sinks_.context) : 0;
  const uint32_t function_id = sinks_.intern_string(function, sinks_.context);
  e.code = code;
  e.fields = fields;
  e.serial = ++code_serial_;
  e.file_id = file_id;
  e.function_id = function_id;
  e.table_offset = static_cast<uint32_t>(tables_used_);
  e.table_size = table_size > 0 ? static_cast<uint32_t>(table_size) : 0;
  tables_used_ += e.table_size;
  return &e;
}

uint32_t PythonStackSampler::LineOf(CodeEntry* entry, int32_t offset) {
  if (offset < 0 || entry->table_size == 0) return 0;
  const uint64_t key =
      (uint64_t{entry->serial} << 32) | static_cast<uint32_t>(offset);
  const size_t mask = kLineSlots - 1;
  const size_t start = static_cast<size_t>(Mix(0, key)) & mask;
  for (size_t probe = 0; probe < 64; ++probe) {
    const size_t slot = (start + probe) & mask;
    if (line_keys_[slot] == key) return line_values_[slot];
    if (line_keys_[slot] == 0) {
      const uint32_t line =
          LineOfOffset(Runtime().layout().line_table,
                       tables_ + entry->table_offset, entry->table_size,
                       entry->fields.first_line, static_cast<uint32_t>(offset));
      line_keys_[slot] = key;
      line_values_[slot] = line;
      return line;
    }
  }
  // A crowded neighbourhood: start the line cache again.
  std::memset(line_keys_, 0, kLineSlots * sizeof(uint64_t));
  return LineOf(entry, offset);
}

uint32_t PythonStackSampler::NodeOf(uint32_t parent, uint32_t file,
                                    uint32_t function, uint32_t line) {
  uint64_t hash = Mix(Mix(Mix(Mix(0x51ULL, parent), file), function), line);
  if (hash == 0) hash = 1;
  const size_t mask = kNodeSlots - 1;
  for (size_t probe = 0; probe < kNodeSlots; ++probe) {
    NodeEntry& e = nodes_[(hash + probe) & mask];
    if (e.hash == hash && e.parent == parent && e.file == file &&
        e.function == function && e.line == line) {
      return e.id;
    }
    if (e.hash != 0) continue;
    if (node_count_ >= kNodeSlots / 8 * 7) {
      // Full: forget the nodes (ids keep counting, so announced ones stay
      // valid in the trace) and start again from the outermost frame.
      std::memset(nodes_, 0, kNodeSlots * sizeof(NodeEntry));
      node_count_ = 0;
      return 0;
    }
    // Announce before use.
    if (node_packet_size_ + 40 > kNodePacketBytes) FlushNodes();
    wire::WireWriter w(node_packet_ + node_packet_size_,
                       kNodePacketBytes - node_packet_size_);
    const uint32_t id = next_node_id_++;
    const auto node = w.BeginNested(kStackNodesNode, 1);
    w.Uint(kNodeId, id);
    w.Uint(kNodeParent, parent);
    w.Uint(kNodeFile, file);
    w.Uint(kNodeFunction, function);
    w.Uint(kNodeLine, line);
    w.EndNested(node);
    if (w.overflowed()) return 0;
    node_packet_size_ += w.size();
    ++nodes_in_packet_;
    e = NodeEntry{hash, parent, file, function, line, id};
    ++node_count_;
    return id;
  }
  return 0;
}

void PythonStackSampler::FlushNodes() {
  if (nodes_in_packet_ == 0) return;
  // Wrap the node list in its packet: tag and length in front.
  uint8_t prefix[8];
  wire::WireWriter w(prefix, sizeof prefix);
  w.Tag(kPacketStackNodes, wire::WireType::kLengthDelimited);
  w.RawVarint(node_packet_size_);
  const size_t prefix_size = w.size();
  std::memmove(node_packet_ + prefix_size, node_packet_, node_packet_size_);
  std::memcpy(node_packet_, prefix, prefix_size);
  sinks_.submit_packet(node_packet_, node_packet_size_ + prefix_size,
                       sinks_.context);
  node_packet_size_ = 0;
  nodes_in_packet_ = 0;
}

void PythonStackSampler::MarkDisabled(const PythonStackSinks& sinks) {
  sinks_ = sinks;
  state_ = PythonStackState::kDisabled;
  status_due_ = true;
}

void PythonStackSampler::SubmitStatus() {
  uint8_t bytes[512];
  wire::WireWriter w(bytes, sizeof bytes);
  const auto packet = w.BeginNested(kPacketPythonStackStatus, 2);
  w.Uint(kStatusState, static_cast<uint32_t>(state_));
  w.String(kStatusDetail, detail_);
  w.Uint(kStatusVersion, version_hex_);
  w.Uint(kStatusStacks, stacks_);
  w.Uint(kStatusTorn, torn_);
  w.Uint(kStatusTruncated, truncated_);
  w.EndNested(packet);
  if (!w.overflowed()) sinks_.submit_packet(w.data(), w.size(), sinks_.context);
}

}  // namespace feedprof::preload::python
