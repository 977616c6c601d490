// The timeline model's out-of-line parts: the interning tables.
#include "feedprof/timeline.h"

#include <functional>

#include "timeline/dense_id_index.h"

namespace feedprof {
namespace {

uint64_t HashOf(std::string_view s) {
  return static_cast<uint64_t>(std::hash<std::string_view>()(s));
}

uint64_t HashOf(const LaunchShape& shape) {
  // Each word folded in with a multiply (the 64-bit golden ratio) and
  // finished with a xor-shift, so that both halves of the hash depend on
  // every field: the index uses the low bits for the slot, the high ones
  // as the tag.
  const uint32_t words[] = {shape.grid[0],  shape.grid[1],  shape.grid[2],
                            shape.block[0], shape.block[1], shape.block[2],
                            shape.graph_id};
  uint64_t h = 0;
  for (uint32_t w : words) {
    h = (h ^ w) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
  }
  return h;
}

// Six words: a third of a big trace's events are calls (see ApiCall::bytes).
static_assert(sizeof(ApiCall) == 48, "an ApiCall takes six words");

}  // namespace

const char* SourceFormatName(SourceFormat format) {
  switch (format) {
    case SourceFormat::kFeedprof:
      return "feedprof";
    case SourceFormat::kKineto:
      return "kineto";
    case SourceFormat::kNsight:
      return "nsight";
    case SourceFormat::kUnknown:
      break;
  }
  return "unknown";
}

StringId StringTable::Intern(std::string_view s) {
  const auto count = static_cast<uint32_t>(storage_.size());
  const StringId id = timeline::DenseIdIndex(index_).FindOrAdd(
      HashOf(s), count, [&](uint32_t i) { return storage_[i] == s; },
      [this](uint32_t i) { return HashOf(storage_[i]); });
  if (id == count) storage_.emplace_back(s);
  return id;
}

uint32_t LaunchShapeTable::Intern(const LaunchShape& shape) {
  const auto count = static_cast<uint32_t>(shapes_.size());
  const uint32_t id = timeline::DenseIdIndex(index_).FindOrAdd(
      HashOf(shape), count, [&](uint32_t i) { return shapes_[i] == shape; },
      [this](uint32_t i) { return HashOf(shapes_[i]); });
  if (id == count) shapes_.push_back(shape);
  return id;
}

std::vector<uint32_t> LaunchShapeTable::InternAll(
    const LaunchShapeTable& other) {
  std::vector<uint32_t> ids(other.shapes_.size());
  for (uint32_t id = 0; id < ids.size(); ++id) {
    ids[id] = Intern(other.shapes_[id]);
  }
  return ids;
}

}  // namespace feedprof
