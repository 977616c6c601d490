// The what-if's scenarios in one table (docs/what-if.md, "Scenarios").
//
// A scenario is one question ("what if the next batch were always ready?")
// answered by one edit of every replayed process's model. Its id, its
// title, what it assumes, its edit and why it may find no saving are one
// row here, so that the what-if, the next steps it prices, the diff and
// the wording of every report read them from one place, and a new
// scenario is one row more.
#ifndef FEEDPROF_REPLAY_SCENARIO_TABLE_H_
#define FEEDPROF_REPLAY_SCENARIO_TABLE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "feedprof/analysis_report.h"
#include "feedprof/timeline.h"
#include "replay/replay_engine.h"
#include "replay/replay_model.h"

namespace feedprof::replay {

// The figures the scenarios are built with, as chosen for one analysis
// (WhatIf's parameters: the GPU speedup, the launch cost, the pinned
// rates, the launch queue and the input production found), and the cost
// of an async call.
struct ScenarioParameters {
  const WhatIf* what_if = nullptr;
  TimeNs async_call_ns = 0;
};

// What one process's edits of one scenario are built from.
struct ScenarioEditInputs {
  const Timeline* timeline = nullptr;
  const ReplayModel* model = nullptr;
  const ScenarioParameters* parameters = nullptr;
  // remove_sync: its group, index into the sync groups the model was
  // built with.
  int32_t sync_group = -1;
  // Edits built before the replay from what the analysis' views held
  // (input_ready, pin_copies: what_if.cc): the scenario takes them.
  ReplayEdits* built = nullptr;
};

struct ScenarioRow {
  WhatIfScenarioId id;
  // Its title and assumption with the parameters' figures; `sync` is the
  // group a remove_sync scenario removes (null for the others).
  std::string (*title)(const ScenarioParameters&, const SyncPoint* sync);
  std::string (*assumption)(const ScenarioParameters&, const SyncPoint* sync);
  ReplayEdits (*edits)(const ScenarioEditInputs& in);
  // Why the replay can find no saving for it, completing "the replay
  // finds no saving: ".
  const char* no_saving;
};

// Every scenario, in the order the what-if replays them (remove_sync once
// per host-blocking sync group).
const std::vector<ScenarioRow>& Scenarios();
const ScenarioRow& ScenarioOf(WhatIfScenarioId id);

}  // namespace feedprof::replay

#endif  // FEEDPROF_REPLAY_SCENARIO_TABLE_H_
