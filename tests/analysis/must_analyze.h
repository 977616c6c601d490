// Runs the analyzer in a test: an analysis that fails is a test failure that
// shows the error, and the test goes on with an empty report, instead of a
// crash from dereferencing an error status.
#ifndef FEEDPROF_TESTS_ANALYSIS_MUST_ANALYZE_H_
#define FEEDPROF_TESTS_ANALYSIS_MUST_ANALYZE_H_

#include <gtest/gtest.h>

#include <utility>

#include "absl/status/statusor.h"
#include "feedprof/analysis.h"

namespace feedprof::testing {

inline Report MustAnalyze(const Timeline& timeline,
                          const AnalysisOptions& options = {}) {
  absl::StatusOr<Report> report = Analyze(timeline, options);
  EXPECT_TRUE(report.ok()) << report.status();
  return report.ok() ? *std::move(report) : Report{};
}

}  // namespace feedprof::testing

#endif  // FEEDPROF_TESTS_ANALYSIS_MUST_ANALYZE_H_
