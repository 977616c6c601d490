// Ranks coupled at collectives (docs/what-if.md, "Ranks coupled at
// collectives"): each rank is replayed alone, with its collectives'
// recorded lengths, waits for the other ranks included; the job's figure
// takes each rank's time less its waits, the slowest of those, so that a
// change on the rank the others wait for shortens every rank's step.
#ifndef FEEDPROF_REPLAY_RANK_COUPLING_H_
#define FEEDPROF_REPLAY_RANK_COUPLING_H_

#include <vector>

#include "feedprof/analysis_report.h"
#include "replay/process_run.h"

namespace feedprof::replay {

// Each process's wait inside collectives per step (or over the span), from
// its rank's row; whether the ranks are coupled: they waited at
// collectives whose ends line up, and each replayed process is a rank of
// its own.
bool SetCollectiveWaits(const Report& report, bool by_steps,
                        std::vector<ProcessRun>* runs);

// The job's figures for a scenario whose per-rank predictions are in
// `s.ranks`: each rank's time without its waits is what it needs; the job
// takes the slowest of those, recorded and predicted, and its change is
// the scenario's change of the job.
void CoupleRanks(const std::vector<ProcessRun>& runs, WhatIfScenario* s);

}  // namespace feedprof::replay

#endif  // FEEDPROF_REPLAY_RANK_COUPLING_H_
