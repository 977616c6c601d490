// Sync point groups (see sync_group.h).
#include "analysis/sync_group.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace feedprof::analysis {

std::string CallSiteText(const Timeline& timeline, uint32_t id) {
  if (id == 0 || id >= timeline.call_sites.size()) return "";
  const CallSite& site = timeline.call_sites[id];
  if (site.frames.empty()) return "";
  const Frame& f = site.frames.front();
  std::string text(timeline.strings.Get(f.function));
  const std::string file(timeline.strings.Get(f.file));
  if (!file.empty()) {
    const std::string where = absl::StrCat(file, ":", f.line);
    text = text.empty() ? where : absl::StrCat(text, " (", where, ")");
  }
  return text;
}

SyncGroupKey SyncGroupOf(const PreparedTimeline& prepared,
                         const ThreadCall& call) {
  const Timeline& tl = prepared.timeline();
  const ApiCall& named = tl.api_calls[prepared.SyncApiOf(call)];
  const ApiCall& outer = tl.api_calls[call.api];
  const uint32_t site =
      outer.call_site != 0 ? outer.call_site : named.call_site;
  return SyncGroupKey{named.name, call.sync, CallSiteText(tl, site)};
}

}  // namespace feedprof::analysis
