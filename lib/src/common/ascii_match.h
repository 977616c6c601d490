// Whether a text holds a word in any ASCII case: names from traces
// ("ncclDevKernel_...", Nsight's "Wait on stream") are matched this way.
#ifndef FEEDPROF_COMMON_ASCII_MATCH_H_
#define FEEDPROF_COMMON_ASCII_MATCH_H_

#include <cstddef>
#include <string_view>

#include "absl/strings/ascii.h"

namespace feedprof::common {

// `part` must be lower case.
inline bool ContainsIgnoreCase(std::string_view text, std::string_view part) {
  for (size_t i = 0; i + part.size() <= text.size(); ++i) {
    size_t j = 0;
    while (j < part.size() && absl::ascii_tolower(static_cast<unsigned char>(
                                  text[i + j])) == part[j]) {
      ++j;
    }
    if (j == part.size()) return true;
  }
  return false;
}

}  // namespace feedprof::common

#endif  // FEEDPROF_COMMON_ASCII_MATCH_H_
