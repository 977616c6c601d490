// The verdict before and after, and whether the cause the BEFORE verdict
// named shrank: a fix can speed a run up by removing some other idle, and
// the user should see that the named problem is still there.
#include "compare/compare_passes.h"

namespace feedprof::compare {
namespace {

const RuleScore* FindScore(const Verdict& v, VerdictClass verdict) {
  for (const RuleScore& s : v.scores) {
    if (s.verdict == verdict) return &s;
  }
  return nullptr;
}

}  // namespace

VerdictComparison CompareVerdicts(const Verdict& before, const Verdict& after) {
  VerdictComparison c;
  c.before_primary = before.primary;
  c.after_primary = after.primary;
  c.before_runner_up = before.runner_up;
  c.after_runner_up = after.runner_up;
  c.confidence = MakeChange(before.confidence, after.confidence);
  c.before_label = before.confidence_label;
  c.after_label = after.confidence_label;
  c.changed = before.primary != after.primary;
  const RuleScore* b = FindScore(before, before.primary);
  if (b != nullptr) {
    const RuleScore* a = FindScore(after, before.primary);
    c.named_cause_score = MakeChange(b->score, a != nullptr ? a->score : 0.0);
    c.named_cause_shrank = c.named_cause_score->delta < 0;
  }
  return c;
}

}  // namespace feedprof::compare
