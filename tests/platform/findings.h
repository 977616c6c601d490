// Running the platform checks on a constructed tree and picking findings
// out of the result, for the platform tests.
#ifndef FEEDPROF_TESTS_PLATFORM_FINDINGS_H_
#define FEEDPROF_TESTS_PLATFORM_FINDINGS_H_

#include <string>
#include <vector>

#include "feedprof/platform.h"
#include "gtest/gtest.h"
#include "platform/machine_reader.h"
#include "platform/platform_checks.h"
#include "tests/platform/machine_tree.h"

namespace feedprof::testing {

inline platform::MachineFacts ReadTree(const MachineTree& tree,
                                       const platform::ReadOptions& o = {}) {
  return platform::ReadMachineFacts(platform::MachineRoot(tree.root()), o);
}

// The finding of `check` (about `subject` when given); a failed
// expectation and an empty finding when there is none.
inline PlatformFinding FindingOf(const std::vector<PlatformFinding>& findings,
                                 const std::string& check,
                                 const std::string& subject = "") {
  for (const PlatformFinding& f : findings) {
    if (f.check == check && (subject.empty() || f.subject == subject)) {
      return f;
    }
  }
  ADD_FAILURE() << "no finding " << check << " " << subject;
  return {};
}

inline PlatformFinding Check(const platform::MachineFacts& facts,
                             const std::string& check,
                             const std::string& subject = "") {
  return FindingOf(platform::CheckPlatform(facts), check, subject);
}

// gtest prints the finding when a status expectation fails.
inline std::string Describe(const PlatformFinding& f) {
  return std::string(PlatformStatusName(f.status)) + " " + f.check + " [" +
         f.subject + "] " + f.value + " — " + f.meaning + " → " + f.action;
}

}  // namespace feedprof::testing

#endif  // FEEDPROF_TESTS_PLATFORM_FINDINGS_H_
