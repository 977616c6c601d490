#include "preload/nvtx/nvtx_injection.h"

#include <atomic>
#include <cstring>

#include "preload/nvtx/nvtx_domains.h"
#include "preload/nvtx/nvtx_range_stack.h"
#include "preload/nvtx/nvtx_start_end_table.h"
#include "preload/nvtx/nvtx_strings.h"
#include "preload/nvtx/nvtx_thread_state.h"
#include "preload/recorder.h"
#include "preload/reentrancy_guard.h"
#include "preload/trace_framing.h"
#include "preload/trace_packets.h"
#include "preload/wire_writer.h"

namespace feedprof::preload::nvtx {
namespace {

std::atomic<uint64_t> g_pushes_dropped{0};
std::atomic<uint64_t> g_unmatched_pops{0};

// Returned by push/pop when the call was not tracked.
constexpr int kNotTracked = NVTX_NO_PUSH_POP_TRACKING;

// True while the thread is inside feedprof: an NVTX call then comes from
// something feedprof called (the C library, CUPTI) and is skipped. The
// recorder's own functions (InternString, Record*, SubmitPacket) take the
// guard themselves, so a handler only checks it.
inline bool InsideFeedprof() { return t_recorder.in_call != 0; }

// The calling thread's NVTX state when it may record now; nullptr when it
// is inside feedprof or its state cannot be created.
inline ThreadNvtxState* EnterHandler() {
  if (InsideFeedprof()) [[unlikely]] {
    return nullptr;
  }
  return CurrentThreadNvtxState();
}

// ------------------------------------------------------------- ranges --

// The range a push or a start opens, but for its start time (read last,
// right before the range is kept); the range stack sets the depth of a push.
inline OpenRange MakeOpenRange(uint32_t domain_id,
                               const EventAttributes& attributes) {
  OpenRange range;
  range.payload = attributes.payload;
  range.name_id = attributes.name_id;
  range.domain_id = domain_id;
  range.category = attributes.category;
  range.color = attributes.color;
  range.depth = 0;
  return range;
}

// Records `range`, closed at `end_ns` at nesting `depth`. `start_tid`: 0
// when it started on this thread.
inline void RecordClosedRange(const OpenRange& range, uint64_t end_ns,
                              uint32_t depth, uint32_t start_tid,
                              bool start_end) {
  NvtxRangeRecord record;
  record.start_ns = range.start_ns;
  record.end_ns = end_ns;
  record.payload = range.payload;
  record.name_id = range.name_id;
  record.domain_id = range.domain_id;
  record.category = range.category;
  record.color = range.color;
  record.depth = depth;
  record.start_tid = start_tid;
  record.start_end = start_end;
  RecordNvtxRange(record);
}

// ---------------------------------------------------------- push / pop --

int PushRange(ThreadNvtxState& state, uint32_t domain_id,
              const EventAttributes& attributes) {
  OpenRange range = MakeOpenRange(domain_id, attributes);
  range.start_ns = NowNs();
  const int depth = state.stack.Push(range);
  if (depth < 0) [[unlikely]] {
    g_pushes_dropped.fetch_add(1, std::memory_order_relaxed);
    CountDroppedEvents(1);
  }
  return depth;
}

int PopRange(ThreadNvtxState& state, uint32_t domain_id) {
  const uint64_t end_ns = NowNs();
  OpenRange range;
  switch (state.stack.Pop(domain_id, &range)) {
    case RangeStack::PopResult::kSwallowed:
      return kNotTracked;
    case RangeStack::PopResult::kEmpty:
      g_unmatched_pops.fetch_add(1, std::memory_order_relaxed);
      CountDroppedEvents(1);
      return -1;
    case RangeStack::PopResult::kPopped:
      break;
  }
  RecordClosedRange(range, end_ns, range.depth, 0, false);
  return static_cast<int>(range.depth);
}

int RangePushA(const char* message) {
  ThreadNvtxState* state = EnterHandler();
  if (state == nullptr) return kNotTracked;
  EventAttributes attributes;
  attributes.name_id = InternAsciiName(&state->names, message);
  return PushRange(*state, 0, attributes);
}

int RangePushW(const wchar_t* message) {
  ThreadNvtxState* state = EnterHandler();
  if (state == nullptr) return kNotTracked;
  EventAttributes attributes;
  attributes.name_id = InternWideName(message);
  return PushRange(*state, 0, attributes);
}

int RangePushEx(const nvtxEventAttributes_t* event) {
  ThreadNvtxState* state = EnterHandler();
  if (state == nullptr) return kNotTracked;
  return PushRange(*state, 0, ReadEventAttributes(&state->names, event));
}

int RangePop() {
  ThreadNvtxState* state = EnterHandler();
  if (state == nullptr) return kNotTracked;
  return PopRange(*state, 0);
}

int DomainRangePushEx(nvtxDomainHandle_t domain,
                      const nvtxEventAttributes_t* event) {
  ThreadNvtxState* state = EnterHandler();
  if (state == nullptr) return kNotTracked;
  return PushRange(*state, DomainNameId(domain),
                   ReadEventAttributes(&state->names, event));
}

int DomainRangePop(nvtxDomainHandle_t domain) {
  ThreadNvtxState* state = EnterHandler();
  if (state == nullptr) return kNotTracked;
  return PopRange(*state, DomainNameId(domain));
}

// --------------------------------------------------------- start / end --

nvtxRangeId_t StartRange(ThreadNvtxState& state, uint32_t domain_id,
                         const EventAttributes& attributes) {
  OpenRange range = MakeOpenRange(domain_id, attributes);
  const uint32_t tid = CurrentTid();
  if (state.start_end_hint == 0) {
    // Spread threads over the table so they rarely probe the same slots.
    state.start_end_hint = tid * 61u + 1u;
  }
  range.start_ns = NowNs();
  const nvtxRangeId_t id =
      GlobalStartEndTable().Start(range, tid, &state.start_end_hint);
  if (id == 0) [[unlikely]] {
    CountDroppedEvents(1);  // the table is full (counted there too)
  }
  return id;
}

void EndRange(nvtxRangeId_t id) {
  const uint64_t end_ns = NowNs();
  StartEndTable::Started started;
  if (!GlobalStartEndTable().End(id, &started)) return;
  const uint32_t tid = CurrentTid();
  RecordClosedRange(started.range, end_ns, 0,
                    started.start_tid == tid ? 0 : started.start_tid, true);
}

nvtxRangeId_t RangeStartA(const char* message) {
  ThreadNvtxState* state = EnterHandler();
  if (state == nullptr) return 0;
  EventAttributes attributes;
  attributes.name_id = InternAsciiName(&state->names, message);
  return StartRange(*state, 0, attributes);
}

nvtxRangeId_t RangeStartW(const wchar_t* message) {
  ThreadNvtxState* state = EnterHandler();
  if (state == nullptr) return 0;
  EventAttributes attributes;
  attributes.name_id = InternWideName(message);
  return StartRange(*state, 0, attributes);
}

nvtxRangeId_t RangeStartEx(const nvtxEventAttributes_t* event) {
  ThreadNvtxState* state = EnterHandler();
  if (state == nullptr) return 0;
  return StartRange(*state, 0, ReadEventAttributes(&state->names, event));
}

nvtxRangeId_t DomainRangeStartEx(nvtxDomainHandle_t domain,
                                 const nvtxEventAttributes_t* event) {
  ThreadNvtxState* state = EnterHandler();
  if (state == nullptr) return 0;
  return StartRange(*state, DomainNameId(domain),
                    ReadEventAttributes(&state->names, event));
}

void RangeEnd(nvtxRangeId_t id) {
  if (InsideFeedprof()) return;
  EndRange(id);
}

void DomainRangeEnd(nvtxDomainHandle_t /*domain*/, nvtxRangeId_t id) {
  if (InsideFeedprof()) return;
  EndRange(id);
}

// -------------------------------------------------------------- marks --

void Mark(uint32_t domain_id, const EventAttributes& attributes) {
  NvtxMarkRecord record;
  record.ts_ns = NowNs();
  record.name_id = attributes.name_id;
  record.domain_id = domain_id;
  record.category = attributes.category;
  record.color = attributes.color;
  RecordNvtxMark(record);
}

void MarkA(const char* message) {
  ThreadNvtxState* state = EnterHandler();
  if (state == nullptr) return;
  EventAttributes attributes;
  attributes.name_id = InternAsciiName(&state->names, message);
  Mark(0, attributes);
}

void MarkW(const wchar_t* message) {
  if (InsideFeedprof()) return;
  EventAttributes attributes;
  attributes.name_id = InternWideName(message);
  Mark(0, attributes);
}

void MarkEx(const nvtxEventAttributes_t* event) {
  ThreadNvtxState* state = EnterHandler();
  if (state == nullptr) return;
  Mark(0, ReadEventAttributes(&state->names, event));
}

void DomainMarkEx(nvtxDomainHandle_t domain,
                  const nvtxEventAttributes_t* event) {
  ThreadNvtxState* state = EnterHandler();
  if (state == nullptr) return;
  Mark(DomainNameId(domain), ReadEventAttributes(&state->names, event));
}

// ------------------------------------------- domains, strings, names --

nvtxDomainHandle_t DomainCreateA(const char* name) {
  ThreadNvtxState* state = EnterHandler();
  if (state == nullptr) return nullptr;
  return CreateDomain(InternAsciiName(&state->names, name));
}

nvtxDomainHandle_t DomainCreateW(const wchar_t* name) {
  if (InsideFeedprof()) return nullptr;
  return CreateDomain(InternWideName(name));
}

void DomainDestroy(nvtxDomainHandle_t /*domain*/) {
  // Domains stay: their handles may still be used, and the table is small.
}

nvtxStringHandle_t DomainRegisterStringA(nvtxDomainHandle_t /*domain*/,
                                         const char* text) {
  ThreadNvtxState* state = EnterHandler();
  if (state == nullptr) return nullptr;
  return StringHandleFromId(InternAsciiName(&state->names, text));
}

nvtxStringHandle_t DomainRegisterStringW(nvtxDomainHandle_t /*domain*/,
                                         const wchar_t* text) {
  if (InsideFeedprof()) return nullptr;
  return StringHandleFromId(InternWideName(text));
}

// A category name is kept (for lookups) and written as an NvtxCategoryName
// packet.
void NameCategoryIn(uint32_t domain_id, uint32_t category, uint32_t name_id) {
  NameCategory(domain_id, category, name_id);
  uint8_t buffer[256];
  wire::WireWriter writer(buffer, sizeof buffer);
  const wire::WireWriter::Nested packet =
      writer.BeginNested(kPacketNvtxCategory);
  writer.Uint(1, domain_id);
  writer.Uint(2, category);
  writer.Uint(3, name_id);
  writer.EndNested(packet);
  if (!writer.overflowed()) SubmitPacket(writer.data(), writer.size());
}

void NameCategoryA(uint32_t category, const char* name) {
  ThreadNvtxState* state = EnterHandler();
  if (state == nullptr) return;
  NameCategoryIn(0, category, InternAsciiName(&state->names, name));
}

void NameCategoryW(uint32_t category, const wchar_t* name) {
  if (InsideFeedprof()) return;
  NameCategoryIn(0, category, InternWideName(name));
}

void DomainNameCategoryA(nvtxDomainHandle_t domain, uint32_t category,
                         const char* name) {
  ThreadNvtxState* state = EnterHandler();
  if (state == nullptr) return;
  NameCategoryIn(DomainNameId(domain), category,
                 InternAsciiName(&state->names, name));
}

void DomainNameCategoryW(nvtxDomainHandle_t domain, uint32_t category,
                         const wchar_t* name) {
  if (InsideFeedprof()) return;
  NameCategoryIn(DomainNameId(domain), category, InternWideName(name));
}

// A thread name becomes a ThreadInfo packet (Packet field 8).
void SubmitThreadName(uint32_t tid, const char* name, size_t length) {
  uint8_t buffer[kMaxNameBytes + 64];
  const size_t size = EncodeThreadInfoPacket(
      tid, std::string_view(name, length), false, buffer, sizeof buffer);
  if (size != 0) SubmitPacket(buffer, size);
}

void NameOsThreadA(uint32_t tid, const char* name) {
  if (InsideFeedprof() || name == nullptr) return;
  SubmitThreadName(tid, name, strnlen(name, kMaxNameBytes));
}

void NameOsThreadW(uint32_t tid, const wchar_t* name) {
  if (InsideFeedprof() || name == nullptr) return;
  char utf8[kMaxNameBytes + 1];
  const size_t length = WideToUtf8(name, utf8, sizeof utf8);
  SubmitThreadName(tid, utf8, length);
}

// ------------------------------------------------------------ install --

template <typename Function>
void Install(NvtxFunctionTable table, unsigned int size, unsigned int id,
             Function* handler) {
  if (id >= size || table[id] == nullptr) return;
  *table[id] = reinterpret_cast<NvtxFunctionPointer>(handler);
}

bool InstallCore(const NvtxExportTableCallbacks& callbacks) {
  NvtxFunctionTable table = nullptr;
  unsigned int size = 0;
  if (callbacks.GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &table, &size) ==
          0 ||
      table == nullptr) {
    return false;
  }
  Install(table, size, NVTX_CBID_CORE_MarkEx, &MarkEx);
  Install(table, size, NVTX_CBID_CORE_MarkA, &MarkA);
  Install(table, size, NVTX_CBID_CORE_MarkW, &MarkW);
  Install(table, size, NVTX_CBID_CORE_RangeStartEx, &RangeStartEx);
  Install(table, size, NVTX_CBID_CORE_RangeStartA, &RangeStartA);
  Install(table, size, NVTX_CBID_CORE_RangeStartW, &RangeStartW);
  Install(table, size, NVTX_CBID_CORE_RangeEnd, &RangeEnd);
  Install(table, size, NVTX_CBID_CORE_RangePushEx, &RangePushEx);
  Install(table, size, NVTX_CBID_CORE_RangePushA, &RangePushA);
  Install(table, size, NVTX_CBID_CORE_RangePushW, &RangePushW);
  Install(table, size, NVTX_CBID_CORE_RangePop, &RangePop);
  Install(table, size, NVTX_CBID_CORE_NameCategoryA, &NameCategoryA);
  Install(table, size, NVTX_CBID_CORE_NameCategoryW, &NameCategoryW);
  Install(table, size, NVTX_CBID_CORE_NameOsThreadA, &NameOsThreadA);
  Install(table, size, NVTX_CBID_CORE_NameOsThreadW, &NameOsThreadW);
  return true;
}

void InstallCore2(const NvtxExportTableCallbacks& callbacks) {
  NvtxFunctionTable table = nullptr;
  unsigned int size = 0;
  if (callbacks.GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &table, &size) ==
          0 ||
      table == nullptr) {
    return;  // an NVTX v1 instance: no domains
  }
  Install(table, size, NVTX_CBID_CORE2_DomainMarkEx, &DomainMarkEx);
  Install(table, size, NVTX_CBID_CORE2_DomainRangeStartEx, &DomainRangeStartEx);
  Install(table, size, NVTX_CBID_CORE2_DomainRangeEnd, &DomainRangeEnd);
  Install(table, size, NVTX_CBID_CORE2_DomainRangePushEx, &DomainRangePushEx);
  Install(table, size, NVTX_CBID_CORE2_DomainRangePop, &DomainRangePop);
  Install(table, size, NVTX_CBID_CORE2_DomainNameCategoryA,
          &DomainNameCategoryA);
  Install(table, size, NVTX_CBID_CORE2_DomainNameCategoryW,
          &DomainNameCategoryW);
  Install(table, size, NVTX_CBID_CORE2_DomainRegisterStringA,
          &DomainRegisterStringA);
  Install(table, size, NVTX_CBID_CORE2_DomainRegisterStringW,
          &DomainRegisterStringW);
  Install(table, size, NVTX_CBID_CORE2_DomainCreateA, &DomainCreateA);
  Install(table, size, NVTX_CBID_CORE2_DomainCreateW, &DomainCreateW);
  Install(table, size, NVTX_CBID_CORE2_DomainDestroy, &DomainDestroy);
}

}  // namespace

NvtxDropCounts GetNvtxDropCounts() {
  NvtxDropCounts counts;
  counts.pushes_past_max_depth =
      g_pushes_dropped.load(std::memory_order_relaxed);
  counts.start_end_table_full = GlobalStartEndTable().dropped();
  counts.unmatched_pops = g_unmatched_pops.load(std::memory_order_relaxed);
  return counts;
}

}  // namespace feedprof::preload::nvtx

extern "C" int InitializeInjectionNvtx2(
    NvtxGetExportTableFunc_t get_export_table) {
  namespace nvtx = feedprof::preload::nvtx;
  if (get_export_table == nullptr || !feedprof::preload::RecordingEnabled()) {
    return 0;
  }
  const auto* callbacks = static_cast<const NvtxExportTableCallbacks*>(
      get_export_table(NVTX_ETID_CALLBACKS));
  if (callbacks == nullptr ||
      callbacks->struct_size < sizeof(NvtxExportTableCallbacks) ||
      callbacks->GetModuleFunctionTable == nullptr) {
    return 0;
  }
  nvtx::InstallDomainForkHandlers();
  if (!nvtx::InstallCore(*callbacks)) return 0;
  nvtx::InstallCore2(*callbacks);
  const auto* version = static_cast<const NvtxExportTableVersionInfo*>(
      get_export_table(NVTX_ETID_VERSIONINFO));
  if (version != nullptr &&
      version->struct_size >= sizeof(NvtxExportTableVersionInfo) &&
      version->SetInjectionNvtxVersion != nullptr) {
    version->SetInjectionNvtxVersion(NVTX_VERSION);
  }
  return 1;
}
