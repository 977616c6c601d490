#include "preload/host/cpu_list.h"

#include <cstdio>

#include "preload/host/proc_text.h"

namespace feedprof::preload::host {

size_t FormatCpuList(const cpu_set_t* mask, size_t mask_bytes, char* out,
                     size_t cap) {
  if (cap == 0) return 0;
  out[0] = '\0';
  const size_t bits = mask_bytes * 8;
  size_t len = 0;
  size_t cpu = 0;
  while (cpu < bits) {
    if (!CPU_ISSET_S(cpu, mask_bytes, mask)) {
      ++cpu;
      continue;
    }
    size_t last = cpu;
    while (last + 1 < bits && CPU_ISSET_S(last + 1, mask_bytes, mask)) ++last;
    char range[48];
    int n;
    if (last == cpu) {
      n = std::snprintf(range, sizeof range, "%s%zu", len ? "," : "", cpu);
    } else {
      n = std::snprintf(range, sizeof range, "%s%zu-%zu", len ? "," : "", cpu,
                        last);
    }
    if (n <= 0 || len + static_cast<size_t>(n) + 1 > cap) break;
    for (int i = 0; i < n; ++i) out[len++] = range[i];
    out[len] = '\0';
    cpu = last + 1;
  }
  return len;
}

uint32_t CountCpuList(std::string_view list) {
  list = Trim(list);
  uint32_t count = 0;
  while (!list.empty()) {
    const std::string_view part = NextPart(&list, ',');
    uint64_t first = 0;
    if (!ParseUint(part, &first)) continue;
    const size_t dash = part.find('-');
    uint64_t last = first;
    if (dash != std::string_view::npos &&
        !ParseUint(part.substr(dash + 1), &last)) {
      continue;
    }
    if (last >= first) count += static_cast<uint32_t>(last - first + 1);
  }
  return count;
}

}  // namespace feedprof::preload::host
