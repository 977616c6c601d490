// Reads the files of a multi-file trace on a pool of threads and hands the
// results over in file order.
//
// A session directory or a multi-rank run holds one file per process, and
// reading them one per core takes about files / cores times one file. The
// merged timeline must still be exactly what reading the files one after the
// other gives (the same vector order, string ids, warnings), so the work is
// split in two steps: `read(i)` turns file i into a partial result on any
// worker, and `merge(i, result)` folds it into the whole on the calling
// thread, strictly in index order, as soon as results 0..i-1 are merged;
// each result is freed once merged. With one thread there is no pool: the
// calling thread reads and merges each file in turn, the same two steps.
//
// Memory: a worker does not start a file more than 2 x threads ahead of the
// merge, so a slow first file holds at most that many results waiting.
#ifndef FEEDPROF_COMMON_IN_ORDER_PARALLEL_READS_H_
#define FEEDPROF_COMMON_IN_ORDER_PARALLEL_READS_H_

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"

namespace feedprof::common {

// How many threads read `files` files: min(files, FEEDPROF_READ_THREADS when
// set to a positive number, else `cores`), at least 1.
inline unsigned ReadThreadCount(size_t files, unsigned cores) {
  unsigned threads = cores;
  if (const char* setting = std::getenv("FEEDPROF_READ_THREADS")) {
    unsigned asked = 0;
    if (absl::SimpleAtoi(setting, &asked) && asked > 0) {
      threads = asked;
    }
  }
  if (threads == 0) threads = 1;
  if (files < threads) threads = files == 0 ? 1 : static_cast<unsigned>(files);
  return threads;
}

// Threads each file may use besides the one reading it when `readers`
// files are read side by side on `cores` cores: the share of the cores left
// over per file (none when every core reads a file of its own).
inline unsigned SpareThreadsPerFile(unsigned readers, unsigned cores) {
  return std::max(1u, cores / std::max(1u, readers)) - 1;
}

// `read` (Result(size_t index)) runs on up to `threads` worker threads;
// `merge` (void(size_t index, Result&& result)) runs on the calling thread,
// for index 0, 1, ... count - 1 in turn.
template <typename Result, typename Read, typename Merge>
void ReadInParallelMergeInOrder(size_t count, unsigned threads, Read read,
                                Merge merge) {
  if (threads <= 1 || count <= 1) {
    for (size_t i = 0; i < count; ++i) merge(i, read(i));
    return;
  }
  // Taken by the workers (to take the next index, to hand a result over)
  // and by the calling thread (to take the next result); never held while
  // reading or merging.
  std::mutex mutex;
  std::condition_variable changed;  // a result came, or the merge moved on
  std::vector<std::optional<Result>> results(count);
  size_t next_to_read = 0;
  size_t merged = 0;
  const size_t window = size_t{2} * threads;

  auto work = [&] {
    for (;;) {
      size_t index = 0;
      {
        std::unique_lock<std::mutex> lock(mutex);
        changed.wait(lock, [&] {
          return next_to_read >= count || next_to_read < merged + window;
        });
        if (next_to_read >= count) return;
        index = next_to_read++;
      }
      Result result = read(index);
      {
        std::lock_guard<std::mutex> lock(mutex);
        results[index].emplace(std::move(result));
      }
      changed.notify_all();
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(threads);
  for (unsigned i = 0; i < threads; ++i) pool.emplace_back(work);

  for (size_t i = 0; i < count; ++i) {
    std::optional<Result> result;
    {
      std::unique_lock<std::mutex> lock(mutex);
      changed.wait(lock, [&] { return results[i].has_value(); });
      result = std::move(results[i]);
      results[i].reset();
      merged = i + 1;
    }
    changed.notify_all();
    merge(i, std::move(*result));
  }
  for (std::thread& t : pool) t.join();
}

}  // namespace feedprof::common

#endif  // FEEDPROF_COMMON_IN_ORDER_PARALLEL_READS_H_
