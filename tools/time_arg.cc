// Parsing of --from/--to times (tools/time_arg.h).
#include "tools/time_arg.h"

#include <cmath>
#include <cstdlib>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace feedprof {

absl::StatusOr<TimeNs> ParseTimeArg(std::string_view text) {
  struct Unit {
    std::string_view suffix;
    double ns;
  };
  static constexpr Unit kUnits[] = {
      {"ns", 1}, {"us", 1e3}, {"µs", 1e3}, {"ms", 1e6}, {"s", 1e9}};
  std::string_view number = text;
  double scale = 1;
  bool has_unit = false;
  for (const Unit& u : kUnits) {
    if (number.size() > u.suffix.size() && number.ends_with(u.suffix)) {
      number.remove_suffix(u.suffix.size());
      scale = u.ns;
      has_unit = true;
      break;
    }
  }
  auto bad = [text] {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot read '", std::string(text),
        "' as a time: use nanoseconds (1500000) or a number with a unit "
        "(ns, us, ms, s), e.g. 12.5ms"));
  };
  if (!has_unit) {
    int64_t ns = 0;
    if (!absl::SimpleAtoi(std::string(number), &ns) || ns < 0) return bad();
    return ns;
  }
  double value = 0;
  if (!absl::SimpleAtod(std::string(number), &value) || !std::isfinite(value) ||
      value < 0) {
    return bad();
  }
  return static_cast<TimeNs>(std::llround(value * scale));
}

}  // namespace feedprof
