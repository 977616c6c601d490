// The command-line tool's global operator new: big blocks get huge pages.
//
// Why: the trace's event vectors, their sort and merge buffers and the
// analysis' views are std::vectors, allocated all over the readers and the
// analysis; advising huge pages where the memory is allocated reaches all
// of them, present and future, where advice at each reserve() would miss
// the ones that grow by doubling (tools/huge_pages.h says what it saves).
// Linked into the feedprof executable and the benchmarks that measure it,
// never into a library: the injected libfeedprof.so must not replace the
// host program's allocator. FEEDPROF_HUGE_PAGES=0 turns the advice off.
//
// The allocation is glibc's malloc, as libstdc++'s own operator new does,
// with its new-handler loop; the matching operator delete calls free. The
// aligned forms (std::align_val_t) are left to libstdc++.
#include <cstddef>
#include <cstdlib>
#include <new>

#include "tools/huge_pages.h"

namespace {

void* Allocate(std::size_t bytes) {
  if (bytes == 0) bytes = 1;
  for (;;) {
    if (void* block = std::malloc(bytes)) {
      // The threshold tested here too: most blocks are small, and they
      // skip the call.
      if (bytes >= feedprof::cli::kHugePageAdviceMinBytes) {
        feedprof::cli::AdviseHugePages(block, bytes);
      }
      return block;
    }
    const std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) throw std::bad_alloc();
    handler();
  }
}

void* AllocateOrNull(std::size_t bytes) noexcept {
  try {
    return Allocate(bytes);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}

}  // namespace

void* operator new(std::size_t bytes) { return Allocate(bytes); }
void* operator new[](std::size_t bytes) { return Allocate(bytes); }
void* operator new(std::size_t bytes, const std::nothrow_t&) noexcept {
  return AllocateOrNull(bytes);
}
void* operator new[](std::size_t bytes, const std::nothrow_t&) noexcept {
  return AllocateOrNull(bytes);
}

void operator delete(void* block) noexcept { std::free(block); }
void operator delete[](void* block) noexcept { std::free(block); }
void operator delete(void* block, std::size_t) noexcept { std::free(block); }
void operator delete[](void* block, std::size_t) noexcept { std::free(block); }
void operator delete(void* block, const std::nothrow_t&) noexcept {
  std::free(block);
}
void operator delete[](void* block, const std::nothrow_t&) noexcept {
  std::free(block);
}
