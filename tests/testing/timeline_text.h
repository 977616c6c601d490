// Every field of a Timeline as text, for tests that compare two timelines
// whole (a session read with one thread and with four, say): one line per
// record, strings spelled out beside their ids, so a difference shows as
// the first line that differs.
#ifndef FEEDPROF_TESTS_TESTING_TIMELINE_TEXT_H_
#define FEEDPROF_TESTS_TESTING_TIMELINE_TEXT_H_

#include <string>

#include "feedprof/timeline.h"

namespace feedprof::testing {

std::string TimelineText(const Timeline& t);

// The first line where `a` and `b` differ, with its number, or "" when equal.
std::string FirstDifference(const std::string& a, const std::string& b);

}  // namespace feedprof::testing

#endif  // FEEDPROF_TESTS_TESTING_TIMELINE_TEXT_H_
