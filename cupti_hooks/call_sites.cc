#include "cupti_hooks/call_sites.h"

#include <dlfcn.h>
#include <unwind.h>

#include <cstring>
#include <string_view>

#include "cupti_hooks/module_build_id.h"
#include "cupti_hooks/module_path.h"
#include "preload/trace_framing.h"
#include "preload/wire_writer.h"

namespace feedprof::cupti {
namespace {

struct UnwindState {
  RawCallSite* site;
};

_Unwind_Reason_Code CollectFrame(_Unwind_Context* context, void* arg) {
  auto* state = static_cast<UnwindState*>(arg);
  RawCallSite* site = state->site;
  if (site->count >= RawCallSite::kMaxFrames) return _URC_END_OF_STACK;
  const uintptr_t ip = _Unwind_GetIP(context);
  if (ip == 0) return _URC_END_OF_STACK;
  site->address[site->count] = ip;
  site->offset[site->count] = 0;
  site->identity[site->count] = 0;
  ++site->count;
  return _URC_NO_REASON;
}

std::string_view BaseName(const char* path) {
  if (path == nullptr) return {};
  const char* slash = std::strrchr(path, '/');
  return slash == nullptr ? std::string_view(path)
                          : std::string_view(slash + 1);
}

// Frames inside CUDA, CUPTI or the profiler say nothing about the caller.
bool IsProfilerOrCudaModule(const Dl_info& info, const void* self_base) {
  if (info.dli_fbase == self_base) return true;
  const std::string_view base = BaseName(info.dli_fname);
  return base.starts_with("libcupti") || base.starts_with("libcuda.") ||
         base.starts_with("libcudart") || base.starts_with("libfeedprof");
}

const void* SelfBase() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&BaseName), &info) == 0) {
    return nullptr;
  }
  return info.dli_fbase;
}

uint64_t Mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h *= 0xff51afd7ed558ccdULL;
  return h ^ (h >> 32);
}

// Packet and message field numbers (proto/feedprof.proto).
constexpr uint32_t kCallSitesCallSite = 1, kCallSitesModules = 2;
constexpr uint32_t kModulePath = 1, kModuleBuildId = 2;
constexpr uint32_t kCallSiteId = 1, kCallSiteFrames = 2, kCallSitePython = 3;
constexpr uint32_t kFrameFile = 1, kFrameLine = 2, kFrameFunction = 3,
                   kFramePc = 4;

}  // namespace

void CallSiteRecorder::Capture(RawCallSite* site) {
  site->count = 0;
  site->python = false;
  if (python_enabled_) {
    // The whole Python stack, up to kMaxFrames: the user's line may lie
    // under several frames of framework code.
    site->count = python_.Capture(site->address, site->offset, site->identity,
                                  RawCallSite::kMaxFrames);
    if (site->count > 0) {
      site->python = true;
      return;
    }
  }
  UnwindState state{site};
  _Unwind_Backtrace(&CollectFrame, &state);
}

uint64_t CallSiteRecorder::Hash(const RawCallSite& site) {
  uint64_t h = site.python ? 0x5079ULL : 0x4e61ULL;
  for (uint32_t i = 0; i < site.count; ++i) {
    h = Mix(h, site.address[i]);
    if (site.python) h = Mix(Mix(h, site.offset[i]), site.identity[i]);
  }
  return h == 0 ? 1 : h;  // 0 marks an empty slot
}

uint32_t CallSiteRecorder::CaptureAndIntern() {
  RawCallSite site;
  Capture(&site);
  return Intern(site);
}

uint32_t CallSiteRecorder::Intern(const RawCallSite& site) {
  if (site.count == 0) return 0;
  const uint64_t hash = Hash(site);
  const size_t mask = kTableSlots - 1;
  for (size_t probe = 0; probe < kTableSlots; ++probe) {
    const Slot& slot = table_[(hash + probe) & mask];
    const uint64_t h = slot.hash.load(std::memory_order_acquire);
    if (h == hash) return slot.id;
    if (h == 0) return Register(site, hash);
  }
  table_full_.fetch_add(1, std::memory_order_relaxed);
  return 0;
}

uint32_t CallSiteRecorder::Register(const RawCallSite& site, uint64_t hash) {
  pthread_mutex_lock(&mutex_);
  const size_t mask = kTableSlots - 1;
  uint32_t id = 0;
  for (size_t probe = 0; probe < kTableSlots; ++probe) {
    Slot& slot = table_[(hash + probe) & mask];
    const uint64_t h = slot.hash.load(std::memory_order_relaxed);
    if (h == hash) {  // another thread registered it meanwhile
      id = slot.id;
      break;
    }
    if (h != 0) continue;
    // Keep one slot in eight free so probes stay short.
    if (next_id_.load(std::memory_order_relaxed) > kTableSlots / 8 * 7) break;
    id = next_id_.fetch_add(1, std::memory_order_relaxed);
    if (!EmitPacket(site, id)) {
      // Not announced: do not hand out an id readers cannot resolve.
      id = 0;
      break;
    }
    slot.id = id;
    slot.hash.store(hash, std::memory_order_release);
    break;
  }
  pthread_mutex_unlock(&mutex_);
  if (id == 0) table_full_.fetch_add(1, std::memory_order_relaxed);
  return id;
}

bool CallSiteRecorder::ModuleAnnounced(uintptr_t base) const {
  for (uint32_t i = 0; i < module_count_; ++i) {
    if (modules_[i] == base) return true;
  }
  return false;
}

bool CallSiteRecorder::EmitPacket(const RawCallSite& site, uint32_t id) {
  uint8_t bytes[4096];
  wire::WireWriter w(bytes, sizeof bytes);
  const auto packet = w.BeginNested(preload::kPacketCallSites, 2);
  const auto call_site = w.BeginNested(kCallSitesCallSite, 2);
  w.Uint(kCallSiteId, id);
  w.Bool(kCallSitePython, site.python);
  // Native modules first seen in this packet: announced with it, and
  // remembered once it is submitted.
  struct NewModule {
    uintptr_t base;
    uintptr_t address;
    uint32_t path_id;
  };
  NewModule new_modules[kMaxReportedFrames];
  uint32_t new_module_count = 0;
  char file[512];
  char function[256];
  if (site.python) {
    for (uint32_t i = 0; i < site.count; ++i) {
      uint32_t line = 0;
      python_.Describe(site.address[i], site.offset[i], file, sizeof file,
                       function, sizeof function, &line);
      const auto frame = w.BeginNested(kCallSiteFrames, 1);
      w.Uint(kFrameFile, file[0] != '\0' ? sink_.intern_string(file) : 0);
      w.Uint(kFrameLine, line);
      w.Uint(kFrameFunction,
             function[0] != '\0' ? sink_.intern_string(function) : 0);
      w.EndNested(frame);
    }
  } else {
    const void* self = SelfBase();
    // Skip the leading frames inside the profiler and CUDA; when every
    // frame is (the collector linked into a test program), skip only the
    // capture itself.
    uint32_t first = 0;
    Dl_info info{};
    while (first < site.count &&
           dladdr(reinterpret_cast<void*>(site.address[first]), &info) != 0 &&
           IsProfilerOrCudaModule(info, self)) {
      ++first;
    }
    if (first == site.count) first = site.count > 1 ? 1 : 0;
    uint32_t written = 0;
    for (uint32_t i = first; i < site.count && written < kMaxReportedFrames;
         ++i, ++written) {
      info = Dl_info{};
      const uint64_t pc = site.address[i];
      uint64_t offset = pc;
      uint32_t file_id = 0;
      uint32_t function_id = 0;
      if (dladdr(reinterpret_cast<void*>(pc), &info) != 0) {
        const auto base = reinterpret_cast<uintptr_t>(info.dli_fbase);
        offset = pc - base;
        if (info.dli_fname != nullptr && info.dli_fname[0] != '\0') {
          file_id = sink_.intern_string(
              RecordedModulePath(pc, info.dli_fname, file, sizeof file));
          bool seen = ModuleAnnounced(base);
          for (uint32_t m = 0; m < new_module_count && !seen; ++m) {
            seen = new_modules[m].base == base;
          }
          if (!seen && module_count_ + new_module_count < kMaxModules) {
            new_modules[new_module_count++] = NewModule{base, pc, file_id};
          }
        }
        if (info.dli_sname != nullptr) {
          function_id = sink_.intern_string(info.dli_sname);
        }
      }
      const auto frame = w.BeginNested(kCallSiteFrames, 1);
      w.Uint(kFrameFile, file_id);
      w.Uint(kFrameFunction, function_id);
      // Offset within the module, so it can be symbolized offline.
      w.Uint(kFramePc, offset);
      w.EndNested(frame);
    }
  }
  w.EndNested(call_site);
  for (uint32_t m = 0; m < new_module_count; ++m) {
    uint8_t build_id[kMaxBuildIdBytes];
    const size_t build_id_size =
        LoadedModuleBuildId(new_modules[m].address, build_id, sizeof build_id);
    const auto module = w.BeginNested(kCallSitesModules, 1);
    w.Uint(kModulePath, new_modules[m].path_id);
    w.String(kModuleBuildId,
             std::string_view(reinterpret_cast<const char*>(build_id),
                              build_id_size));
    w.EndNested(module);
  }
  w.EndNested(packet);
  if (w.overflowed() || !sink_.submit_packet(w.data(), w.size())) return false;
  for (uint32_t m = 0; m < new_module_count; ++m) {
    modules_[module_count_++] = new_modules[m].base;
  }
  return true;
}

}  // namespace feedprof::cupti
