#include "preload/nvtx/nvtx_domains.h"

#include <pthread.h>

#include <atomic>
#include <mutex>

#include "preload/recorder.h"

namespace feedprof::preload::nvtx {
namespace {

struct DomainSlot {
  std::atomic<uint32_t> name_id;
};

struct CategoryName {
  uint32_t domain_id;
  uint32_t category;
  uint32_t name_id;
};

// Slot kMaxDomains is the shared overflow domain.
DomainSlot g_domains[kMaxDomains + 1];
int g_domain_count = 0;                        // guarded by g_mutex
CategoryName g_categories[kMaxCategoryNames];  // guarded by g_mutex
int g_category_count = 0;                      // guarded by g_mutex
std::mutex g_mutex;

pthread_once_t g_fork_handlers_once = PTHREAD_ONCE_INIT;

void LockBeforeFork() { g_mutex.lock(); }
void UnlockAfterFork() { g_mutex.unlock(); }
void RegisterForkHandlers() {
  pthread_atfork(LockBeforeFork, UnlockAfterFork, UnlockAfterFork);
}

nvtxDomainHandle_t HandleOf(DomainSlot& slot) {
  return reinterpret_cast<nvtxDomainHandle_t>(&slot);
}

}  // namespace

void InstallDomainForkHandlers() {
  pthread_once(&g_fork_handlers_once, RegisterForkHandlers);
}

nvtxDomainHandle_t CreateDomain(uint32_t name_id) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (name_id != 0) {
    for (int i = 0; i < g_domain_count; ++i) {
      if (g_domains[i].name_id.load(std::memory_order_relaxed) == name_id) {
        return HandleOf(g_domains[i]);
      }
    }
    if (g_domain_count < kMaxDomains) {
      DomainSlot& slot = g_domains[g_domain_count++];
      slot.name_id.store(name_id, std::memory_order_release);
      return HandleOf(slot);
    }
  }
  DomainSlot& other = g_domains[kMaxDomains];
  if (other.name_id.load(std::memory_order_relaxed) == 0) {
    other.name_id.store(InternString("(other)"), std::memory_order_release);
  }
  return HandleOf(other);
}

uint32_t DomainNameId(nvtxDomainHandle_t handle) {
  const auto address = reinterpret_cast<uintptr_t>(handle);
  const auto first = reinterpret_cast<uintptr_t>(&g_domains[0]);
  const auto end = reinterpret_cast<uintptr_t>(&g_domains[kMaxDomains + 1]);
  if (address < first || address >= end ||
      (address - first) % sizeof(DomainSlot) != 0) {
    return 0;
  }
  return reinterpret_cast<const DomainSlot*>(address)->name_id.load(
      std::memory_order_acquire);
}

bool NameCategory(uint32_t domain_id, uint32_t category, uint32_t name_id) {
  std::lock_guard<std::mutex> lock(g_mutex);
  for (int i = 0; i < g_category_count; ++i) {
    CategoryName& entry = g_categories[i];
    if (entry.domain_id == domain_id && entry.category == category) {
      entry.name_id = name_id;
      return true;
    }
  }
  if (g_category_count == kMaxCategoryNames) return false;
  g_categories[g_category_count++] = {domain_id, category, name_id};
  return true;
}

uint32_t CategoryNameId(uint32_t domain_id, uint32_t category) {
  std::lock_guard<std::mutex> lock(g_mutex);
  for (int i = 0; i < g_category_count; ++i) {
    const CategoryName& entry = g_categories[i];
    if (entry.domain_id == domain_id && entry.category == category) {
      return entry.name_id;
    }
  }
  return 0;
}

}  // namespace feedprof::preload::nvtx
