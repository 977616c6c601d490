// Locations that differ only by line (see code_location_move.h).
#include "compare/code_location_move.h"

namespace feedprof::compare {
namespace {

// "function (file" and "line" of "function (file:line)"; false when the
// text is not of that form.
bool SplitLine(std::string_view text, std::string_view* place,
               std::string_view* line) {
  if (!text.ends_with(")")) return false;
  const size_t open = text.rfind(" (");
  const size_t colon = text.rfind(':');
  if (open == std::string_view::npos || colon == std::string_view::npos ||
      colon < open) {
    return false;
  }
  *place = text.substr(0, colon);
  *line = text.substr(colon + 1, text.size() - colon - 2);
  if (line->empty()) return false;
  for (const char c : *line) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

}  // namespace

bool MovedLine(std::string_view before, std::string_view after) {
  std::string_view place_b, line_b, place_a, line_a;
  return SplitLine(before, &place_b, &line_b) &&
         SplitLine(after, &place_a, &line_a) && place_b == place_a &&
         line_b != line_a;
}

}  // namespace feedprof::compare
