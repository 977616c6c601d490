// CPU lists in the kernel's notation ("0-3,8,10-11").
//
// Affinity masks, NUMA node CPUs and a GPU's local CPUs are all compared
// by people reading a report, and the kernel already prints them as ranges
// (cpulist files, Cpus_allowed_list). The platform snapshot formats the
// process's sched_getaffinity mask the same way, and counts the CPUs of the
// lists it reads.
#ifndef FEEDPROF_PRELOAD_HOST_CPU_LIST_H_
#define FEEDPROF_PRELOAD_HOST_CPU_LIST_H_

#include <sched.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace feedprof::preload::host {

// Writes the CPUs set in `mask` (a mask of `mask_bytes` bytes, as
// sched_getaffinity fills it) as a cpu list into `out` (NUL-terminated).
// Returns the length written; a list that does not fit is cut at the last
// whole range that fits. An empty mask gives "".
size_t FormatCpuList(const cpu_set_t* mask, size_t mask_bytes, char* out,
                     size_t cap);

// Number of CPUs in a cpu list ("0-3,8" -> 5). Malformed parts count 0.
uint32_t CountCpuList(std::string_view list);

}  // namespace feedprof::preload::host

#endif  // FEEDPROF_PRELOAD_HOST_CPU_LIST_H_
