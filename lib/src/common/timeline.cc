// The timeline model's out-of-line parts: the string table's index.
#include "feedprof/timeline.h"

#include <functional>

namespace feedprof {
namespace {

constexpr uint64_t kIdBits = 0xFFFFFFFFull;

uint64_t HashOf(std::string_view s) {
  return static_cast<uint64_t>(std::hash<std::string_view>()(s));
}

}  // namespace

StringId StringTable::Intern(std::string_view s) {
  if (2 * (storage_.size() + 1) > slots_.size()) Grow();
  const uint64_t hash = HashOf(s);
  const uint64_t tag = hash & ~kIdBits;
  const size_t mask = slots_.size() - 1;
  size_t i = static_cast<size_t>(hash) & mask;
  for (; slots_[i] != 0; i = (i + 1) & mask) {
    if ((slots_[i] & ~kIdBits) != tag) continue;
    const auto id = static_cast<StringId>((slots_[i] & kIdBits) - 1);
    if (storage_[id] == s) return id;
  }
  storage_.emplace_back(s);
  const auto id = static_cast<StringId>(storage_.size() - 1);
  slots_[i] = tag | (uint64_t{id} + 1);
  return id;
}

void StringTable::Grow() {
  slots_.assign(slots_.empty() ? 64 : 2 * slots_.size(), 0);
  const size_t mask = slots_.size() - 1;
  for (size_t id = 0; id < storage_.size(); ++id) {
    const uint64_t hash = HashOf(storage_[id]);
    size_t i = static_cast<size_t>(hash) & mask;
    while (slots_[i] != 0) i = (i + 1) & mask;
    slots_[i] = (hash & ~kIdBits) | (uint64_t{id} + 1);
  }
}

}  // namespace feedprof
