// Code locations before and after (see compare.h, CodeComparison): the GPU
// idle time each location held and the launching threads' time in each
// line of the user's code, per unit, matched by location; a location that
// only changed line is one moved row, not a vanished and a new one.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "compare/code_location_move.h"
#include "compare/compare_passes.h"

namespace feedprof::compare {
namespace {

struct Times {
  double before = 0, after = 0;
  bool in_before = false, in_after = false;
};

std::vector<CodeLocationChange> CompareRows(
    const std::map<std::string, Times>& rows, const PerUnit& per) {
  std::vector<CodeLocationChange> out;
  std::vector<const std::string*> vanished;
  for (const auto& [location, t] : rows) {
    if (t.in_before && !t.in_after) vanished.push_back(&location);
  }
  std::vector<bool> paired(vanished.size(), false);
  for (const auto& [location, t] : rows) {
    if (t.in_before && !t.in_after) continue;
    CodeLocationChange row;
    row.location = location;
    row.presence = t.in_before ? Presence::kBoth : Presence::kNew;
    double before = t.before;
    if (row.presence == Presence::kNew) {
      for (size_t i = 0; i < vanished.size(); ++i) {
        if (paired[i] || !MovedLine(*vanished[i], location)) continue;
        paired[i] = true;
        row.presence = Presence::kMoved;
        row.moved_from = *vanished[i];
        before = rows.at(*vanished[i]).before;
        break;
      }
    }
    row.per_unit_ns = per.Of(before, t.after);
    out.push_back(std::move(row));
  }
  for (size_t i = 0; i < vanished.size(); ++i) {
    if (paired[i]) continue;
    CodeLocationChange row;
    row.location = *vanished[i];
    row.presence = Presence::kVanished;
    row.per_unit_ns = per.Of(rows.at(*vanished[i]).before, 0);
    out.push_back(std::move(row));
  }
  std::stable_sort(
      out.begin(), out.end(),
      [](const CodeLocationChange& a, const CodeLocationChange& b) {
        return std::abs(a.per_unit_ns.delta) > std::abs(b.per_unit_ns.delta);
      });
  return out;
}

}  // namespace

CodeComparison CompareCode(const Report& before, const Report& after,
                           const PerUnit& per) {
  CodeComparison c;
  c.available = before.idle_by_code.available || after.idle_by_code.available ||
                before.host_code.available || after.host_code.available;
  if (!c.available) return c;
  // Each run's rows of a kind, by location.
  std::map<std::string, Times> idle, lines;
  const auto add = [](std::map<std::string, Times>& rows,
                      const std::string& location, TimeNs ns, bool is_before) {
    Times& t = rows[location];
    (is_before ? t.before : t.after) = static_cast<double>(ns);
    (is_before ? t.in_before : t.in_after) = true;
  };
  for (const bool is_before : {true, false}) {
    const Report& r = is_before ? before : after;
    for (const CodeIdle& row : r.idle_by_code.top) {
      add(idle, row.location, row.idle_ns, is_before);
    }
    if (const RoleCodeProfile* role =
            r.host_code.Role(ThreadRole::kLaunching)) {
      for (const CodeLocationTime& row : role->user_lines) {
        add(lines, row.location, row.self_ns, is_before);
      }
    }
  }
  c.idle = CompareRows(idle, per);
  c.launching_lines = CompareRows(lines, per);
  return c;
}

}  // namespace feedprof::compare
