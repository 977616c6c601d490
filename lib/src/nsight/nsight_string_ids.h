// Resolves the integer string references of an Nsight Systems export.
//
// nsys stores every kernel, API, thread and NVTX name once, in the
// `StringIds` table, and refers to it by id. Loading the whole table would
// intern strings the trace never uses (it is large on big captures), so ids
// are resolved lazily through one prepared primary-key lookup and cached:
// each distinct string is read and interned once.
#ifndef FEEDPROF_LIB_SRC_NSIGHT_NSIGHT_STRING_IDS_H_
#define FEEDPROF_LIB_SRC_NSIGHT_NSIGHT_STRING_IDS_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "feedprof/timeline.h"
#include "nsight/sqlite_database.h"

namespace feedprof::nsight {

class NsightStringIds {
 public:
  NsightStringIds(SqliteDatabase& db, StringTable& strings);

  // The interned text of StringIds row `id`; 0 (the empty string) when the
  // id is NULL or unknown.
  StringId Intern(std::optional<int64_t> id);
  // Same, with a CUDA API version suffix removed ("cudaMalloc_v3020" ->
  // "cudaMalloc"). `had_suffix` tells whether one was removed.
  StringId InternApiName(std::optional<int64_t> id, bool* had_suffix);
  // The raw text of row `id` (empty if unknown); valid until the next call.
  std::string_view Text(int64_t id);

  bool available() const { return lookup_.has_value(); }

 private:
  StringTable& strings_;
  std::optional<Statement> lookup_;
  std::unordered_map<int64_t, StringId> plain_;
  // Value: interned stripped name, high bit set when a suffix was removed.
  std::unordered_map<int64_t, uint32_t> api_names_;
};

}  // namespace feedprof::nsight

#endif  // FEEDPROF_LIB_SRC_NSIGHT_NSIGHT_STRING_IDS_H_
