// Before/after pairs: one place computes the delta and the relative change
// so that every section and every writer agrees on them.
#include "feedprof/compare.h"

namespace feedprof {

Change MakeChange(double before, double after) {
  Change c;
  c.before = before;
  c.after = after;
  c.delta = after - before;
  if (before != 0) c.relative = c.delta / before;
  return c;
}

const char* PresenceName(Presence presence) {
  switch (presence) {
    case Presence::kBoth:
      return "both";
    case Presence::kNew:
      return "new";
    case Presence::kVanished:
      return "vanished";
    case Presence::kMoved:
      return "moved";
  }
  return "both";
}

}  // namespace feedprof
