// Runs independent pieces of work on a given number of threads.
//
// Several analysis steps are a handful of independent jobs over read-only
// data (the what-if scenarios, say): each is slow on a big trace and none
// needs another's result. ParallelFor hands the jobs to up to one thread
// allowed thread, each job to exactly one thread, and returns when all are
// done;
// `worker` tells a job which thread runs it, so each thread can keep its
// own scratch buffers. Results must go to per-job slots so that the output
// does not depend on the scheduling.
#ifndef FEEDPROF_COMMON_PARALLEL_FOR_H_
#define FEEDPROF_COMMON_PARALLEL_FOR_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace feedprof::common {

// From this many events on, steps over a timeline that do not depend on
// each other run side by side; below it a second thread costs more than it
// saves. The readers' final sorts and the analysis' passes share it.
inline constexpr uint64_t kSideBySideFromEvents = 200'000;

// The caller says how many threads a loop may use: this ground floor never
// reads the machine. Callers above it size their loops with the cores the
// process may use (platform/usable_cores.h), or 1 for work too small to
// share.

// How many threads ParallelFor uses for `jobs` jobs when allowed
// `max_threads`: min(jobs, max_threads), at least 1.
size_t ParallelWorkers(size_t jobs, size_t max_threads);

// Calls body(job, worker) once for every job in [0, jobs), on
// ParallelWorkers(jobs, max_threads) threads (the calling thread is worker
// 0). With one worker everything runs in order on the calling thread.
void ParallelFor(size_t jobs, size_t max_threads,
                 const std::function<void(size_t job, size_t worker)>& body);

// Calls body(job) once for every job in [0, sizes.size()) on up to
// `max_threads` threads, started in order of decreasing
// sizes[job] (ties in job order), so that the longest job is never started
// last: for a few jobs of very different lengths, such as one per event
// vector.
void ParallelForLongestFirst(const std::vector<size_t>& sizes,
                             size_t max_threads,
                             const std::function<void(size_t job)>& body);

// The same, where each job may itself run on several threads: body(job,
// threads) gets the job's share of `max_threads` by its size (rounded, at
// least 1), so that a big job among small ones uses the cores they leave.
void ParallelForLongestFirstSharing(
    const std::vector<size_t>& sizes, size_t max_threads,
    const std::function<void(size_t job, unsigned threads)>& body);

// For one pass over shared data whose items each belong to one owner (a
// thread, a process): shares the owners, of the given sizes, out into
// groups of about the same total size, one per allowed thread when there
// are two or more owners, else one group; then calls
// body(group, group_of) once per group, each on its own thread, where
// group_of[owner] is the owner's group. Each call takes only its own
// group's owners, so their results are what one pass would give.
void ParallelForOwnerGroups(
    const std::vector<uint64_t>& sizes, size_t max_threads,
    const std::function<void(uint32_t group,
                             const std::vector<uint32_t>& group_of)>& body);

}  // namespace feedprof::common

#endif  // FEEDPROF_COMMON_PARALLEL_FOR_H_
