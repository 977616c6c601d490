// NVTX domains and the names of their categories.
//
// nvtxDomainCreate hands the program an opaque handle that every later
// domain call passes back; the hot path needs the domain's interned name
// from it with no lookup. So a handle is the address of a slot in a fixed
// table that holds that id. Creating the same name twice (from two libraries
// of one process, each with its own NVTX instance) gives the same handle.
// Domains are never freed: a program may keep using a handle after
// nvtxDomainDestroy, and a bounded table of names costs little. When the
// table is full, new domains share one overflow slot named "(other)".
//
// Category names (nvtxNameCategory, nvtxDomainNameCategory) are kept in a
// second bounded table, keyed by (domain, category).
//
// Creation and naming take one mutex (any thread that calls those NVTX
// functions; never the recording hot path, which only reads a slot). It is
// held across fork() so that a child never inherits it locked. Lock order:
// this mutex, then the string interner's.
#ifndef FEEDPROF_PRELOAD_NVTX_NVTX_DOMAINS_H_
#define FEEDPROF_PRELOAD_NVTX_NVTX_DOMAINS_H_

#include <cstdint>

#include "preload/nvtx/nvtx_api.h"

namespace feedprof::preload::nvtx {

inline constexpr int kMaxDomains = 256;
inline constexpr int kMaxCategoryNames = 1024;

// Installs the fork handlers that keep the table's mutex usable in a forked
// child. Idempotent.
void InstallDomainForkHandlers();

// Returns the handle of the domain named by `name_id` (interned), creating
// it on first sight.
nvtxDomainHandle_t CreateDomain(uint32_t name_id);

// Interned domain name of `handle`; 0 for the default domain (null) and for
// pointers that are not domain handles of ours.
uint32_t DomainNameId(nvtxDomainHandle_t handle);

// Remembers the name of `category` in the domain whose name id is
// `domain_id`. Renaming replaces the name. Returns false when the table is
// full.
bool NameCategory(uint32_t domain_id, uint32_t category, uint32_t name_id);

// Name id given to (`domain_id`, `category`); 0 when none.
uint32_t CategoryNameId(uint32_t domain_id, uint32_t category);

}  // namespace feedprof::preload::nvtx

#endif  // FEEDPROF_PRELOAD_NVTX_NVTX_DOMAINS_H_
