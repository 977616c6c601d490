#include "nsight/nsight_string_ids.h"

#include <utility>

#include "nsight/nsight_enums.h"

namespace feedprof::nsight {
namespace {
constexpr uint32_t kSuffixBit = 0x80000000u;
}  // namespace

NsightStringIds::NsightStringIds(SqliteDatabase& db, StringTable& strings)
    : strings_(strings) {
  if (!db.HasTable("StringIds")) return;
  auto stmt = db.Prepare("SELECT value FROM StringIds WHERE id = ?");
  if (stmt.ok()) lookup_.emplace(std::move(*stmt));
}

std::string_view NsightStringIds::Text(int64_t id) {
  if (!lookup_.has_value()) return {};
  lookup_->Reset();
  lookup_->BindInt64(1, id);
  if (!lookup_->Step()) return {};
  return lookup_->Text(0);
}

StringId NsightStringIds::Intern(std::optional<int64_t> id) {
  if (!id.has_value()) return 0;
  auto it = plain_.find(*id);
  if (it != plain_.end()) return it->second;
  const StringId interned = strings_.Intern(Text(*id));
  plain_.emplace(*id, interned);
  return interned;
}

StringId NsightStringIds::InternApiName(std::optional<int64_t> id,
                                        bool* had_suffix) {
  *had_suffix = false;
  if (!id.has_value()) return 0;
  auto it = api_names_.find(*id);
  if (it == api_names_.end()) {
    const std::string_view text = Text(*id);
    const std::string_view stripped = StripVersionSuffix(text);
    uint32_t value = strings_.Intern(stripped);
    if (stripped.size() != text.size()) value |= kSuffixBit;
    it = api_names_.emplace(*id, value).first;
  }
  *had_suffix = (it->second & kSuffixBit) != 0;
  return it->second & ~kSuffixBit;
}

}  // namespace feedprof::nsight
