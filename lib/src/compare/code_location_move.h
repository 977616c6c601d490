// Whether a code location moved between two runs.
//
// Reports print a location as "function (file:line)". Between two runs of
// a program whose source was edited, the same call keeps its function and
// file and lands on another line: a diff that shows it as one location
// vanished and another new would hide that nothing changed but the lines
// above it. Locations that differ only by line are paired as moved.
#ifndef FEEDPROF_COMPARE_CODE_LOCATION_MOVE_H_
#define FEEDPROF_COMPARE_CODE_LOCATION_MOVE_H_

#include <string_view>

namespace feedprof::compare {

// True when `before` and `after` are both "function (file:line)" with the
// same function and file and different lines.
bool MovedLine(std::string_view before, std::string_view after);

}  // namespace feedprof::compare

#endif  // FEEDPROF_COMPARE_CODE_LOCATION_MOVE_H_
