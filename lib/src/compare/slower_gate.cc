// The CI gate of `diff --fail-if-slower PCT` (docs/diff.md, "The gate").
//
// A CI job asks one question before it looks at the numbers: did this
// change make the step slower? So the gate fails only when both hold:
// AFTER's median step is more than PCT percent above BEFORE's (the change
// matters), and a one-sided Mann-Whitney U test says AFTER's steps are
// longer at the chosen significance (the change is not noise). A
// two-sided test would answer another question, "did it change either
// way", at half the power for this one: 6 against 6 steps 39 % slower
// with one warm-up outlier give two-sided p = 0.065, one-sided 0.032.
//
// A gate that cannot run its test does not pass: without steps, or with
// fewer than the test needs, it says it cannot decide and what to record.
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "compare/compare_passes.h"

namespace feedprof {

const char* GateOutcomeName(GateOutcome outcome) {
  switch (outcome) {
    case GateOutcome::kPass:
      return "pass";
    case GateOutcome::kSlower:
      return "slower";
    case GateOutcome::kCannotDecide:
      return "cannot_decide";
  }
  return "cannot_decide";
}

namespace compare {

SlowerGate DecideSlowerGate(const StepTimeComparison& s, double percent,
                            const CompareOptions& options) {
  SlowerGate gate;
  gate.threshold_percent = percent;
  const NoiseVerdict& n = s.noise;
  const std::string alpha = absl::StrFormat("%g", options.significance);
  if (!s.available) {
    gate.outcome = GateOutcome::kCannotDecide;
    gate.explanation =
        "the runs do not both have steps, and the gate tests step times; "
        "record steps (ProfilerStep ranges, or name the step range with "
        "--step-range)";
    return gate;
  }
  if (!n.judged) {
    gate.outcome = GateOutcome::kCannotDecide;
    gate.explanation = absl::StrCat(
        s.before.count, " and ", s.after.count,
        " steps: the one-sided Mann-Whitney U test needs at least ",
        options.min_steps_for_noise, " steps per run to reach p < ", alpha,
        " (k against k steps give at best p = 1 / C(2k, k)); record more "
        "steps");
    return gate;
  }
  if (n.test.smallest_p_value >= options.significance) {
    gate.outcome = GateOutcome::kCannotDecide;
    gate.explanation = absl::StrFormat(
        "%d and %d steps: with their ties the one-sided Mann-Whitney U test "
        "cannot reach p < %s (at best p = %.3g); record more steps",
        s.before.count, s.after.count, alpha, n.test.smallest_p_value);
    return gate;
  }
  if (!s.median_ns.relative) {
    gate.outcome = GateOutcome::kCannotDecide;
    gate.explanation =
        "BEFORE's median step time is 0: no percentage of it to compare";
    return gate;
  }
  const bool above_threshold = *s.median_ns.relative > percent / 100;
  // The change and the test that judged it, in one sentence.
  const std::string judged = absl::StrFormat(
      "%s; one-sided Mann-Whitney U p = %.3g", n.effect, n.test.p_value);
  if (above_threshold && n.beyond_noise) {
    gate.outcome = GateOutcome::kSlower;
    gate.explanation = absl::StrFormat(
        "AFTER is slower than BEFORE by more than %g%% beyond noise: %s < %s",
        percent, judged, alpha);
  } else if (above_threshold) {
    gate.outcome = GateOutcome::kPass;
    gate.explanation = absl::StrFormat(
        "the median step is more than %g%% above BEFORE's, but not slower "
        "beyond noise: %s, not below %s",
        percent, judged, alpha);
  } else {
    gate.outcome = GateOutcome::kPass;
    gate.explanation =
        absl::StrFormat("not more than %g%% slower: %s", percent, judged);
  }
  return gate;
}

}  // namespace compare
}  // namespace feedprof
