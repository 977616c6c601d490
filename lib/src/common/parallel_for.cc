// ParallelFor: a shared job counter and up to one thread per allowed
// thread (see parallel_for.h).
#include "common/parallel_for.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace feedprof::common {

size_t ParallelWorkers(size_t jobs, size_t max_threads) {
  return std::max<size_t>(1, std::min(jobs, max_threads));
}

void ParallelFor(size_t jobs, size_t max_threads,
                 const std::function<void(size_t job, size_t worker)>& body) {
  const size_t workers = ParallelWorkers(jobs, max_threads);
  if (workers <= 1) {
    for (size_t job = 0; job < jobs; ++job) body(job, 0);
    return;
  }
  std::atomic<size_t> next{0};
  auto work = [&](size_t worker) {
    for (size_t job = next.fetch_add(1); job < jobs; job = next.fetch_add(1)) {
      body(job, worker);
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(workers - 1);
  for (size_t worker = 1; worker < workers; ++worker) {
    threads.emplace_back(work, worker);
  }
  work(0);
  for (std::thread& t : threads) t.join();
}

void ParallelForLongestFirst(const std::vector<size_t>& sizes,
                             size_t max_threads,
                             const std::function<void(size_t job)>& body) {
  std::vector<size_t> order(sizes.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&sizes](size_t a, size_t b) {
    return sizes[a] > sizes[b];
  });
  ParallelFor(order.size(), max_threads,
              [&](size_t job, size_t) { body(order[job]); });
}

void ParallelForLongestFirstSharing(
    const std::vector<size_t>& sizes, size_t max_threads,
    const std::function<void(size_t job, unsigned threads)>& body) {
  size_t total = 0;
  for (size_t size : sizes) total += size;
  const double threads = static_cast<double>(std::max<size_t>(1, max_threads));
  ParallelForLongestFirst(sizes, max_threads, [&](size_t job) {
    const double share = total == 0
                             ? 1.0
                             : threads * static_cast<double>(sizes[job]) /
                                   static_cast<double>(total);
    body(job, std::max(1u, static_cast<unsigned>(share + 0.5)));
  });
}

void ParallelForOwnerGroups(
    const std::vector<uint64_t>& sizes, size_t max_threads,
    const std::function<void(uint32_t group,
                             const std::vector<uint32_t>& group_of)>& body) {
  const size_t groups =
      sizes.size() > 1 ? ParallelWorkers(sizes.size(), max_threads) : 1;
  // The largest first, each into the lightest group so far (ties to the
  // lower group).
  std::vector<uint32_t> group_of(sizes.size(), 0);
  if (groups > 1) {
    std::vector<uint32_t> largest_first(sizes.size());
    for (uint32_t i = 0; i < largest_first.size(); ++i) largest_first[i] = i;
    std::stable_sort(
        largest_first.begin(), largest_first.end(),
        [&sizes](uint32_t a, uint32_t b) { return sizes[a] > sizes[b]; });
    std::vector<uint64_t> load(groups, 0);
    for (uint32_t item : largest_first) {
      const auto lightest = static_cast<uint32_t>(
          std::min_element(load.begin(), load.end()) - load.begin());
      group_of[item] = lightest;
      load[lightest] += sizes[item];
    }
  }
  ParallelFor(groups, groups, [&](size_t group, size_t) {
    body(static_cast<uint32_t>(group), group_of);
  });
}

}  // namespace feedprof::common
