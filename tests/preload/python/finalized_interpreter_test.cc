// The exit handlers' hold on the GIL mutex of a CPython 3.10 that has
// completed Py_FinalizeEx (preload/python/finalized_interpreter.h), on a
// hand-made runtime state; python_stacks_e2e_test.cc runs the real case
// (daemon threads while the interpreter finalizes) under every installed
// CPython.
#include "preload/python/finalized_interpreter.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <time.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <thread>

namespace feedprof::preload::python::internal {
namespace {

constexpr uint64_t kFinalizingThread = 0x5555deadbee0;
constexpr char kVersion310[] = "3.10.13 (main, Dec  1 2023, 10:00:00) [GCC]";

// The fields of a 3.10 _PyRuntimeState that are read, as Py_FinalizeEx
// leaves them: the finalizing thread set, no main interpreter, not
// initialized, the GIL taken last by the finalizing thread.
class FakeRuntime {
 public:
  FakeRuntime() {
    Put<uint64_t>(16, kFinalizingThread);   // _finalizing
    Put<uint64_t>(40, 0);                   // interpreters.main
    Put<uint64_t>(360, kFinalizingThread);  // ceval.gil.last_holder
    Put<int32_t>(368, 1);                   // ceval.gil.locked
    pthread_mutex_init(mutex(), nullptr);   // ceval.gil.mutex
  }
  ~FakeRuntime() { pthread_mutex_destroy(mutex()); }

  template <typename T>
  void Put(size_t at, T value) {
    std::memcpy(bytes_ + at, &value, sizeof value);
  }
  pthread_mutex_t* mutex() {
    return reinterpret_cast<pthread_mutex_t*>(bytes_ + 432);
  }
  uintptr_t address() const { return reinterpret_cast<uintptr_t>(bytes_); }

 private:
  alignas(64) uint8_t bytes_[1024] = {};
};

bool Found(const FakeRuntime& runtime, const char* version) {
  pthread_mutex_t* mutex = nullptr;
  const bool found =
      FinalizedRuntimeGilMutex(runtime.address(), version, &mutex);
  EXPECT_EQ(found, mutex != nullptr);
  return found;
}

TEST(FinalizedInterpreterTest, FindsTheGilMutexOfAFinalized310) {
  FakeRuntime runtime;
  pthread_mutex_t* mutex = nullptr;
  ASSERT_TRUE(FinalizedRuntimeGilMutex(runtime.address(), kVersion310, &mutex));
  EXPECT_EQ(mutex, runtime.mutex());
  // Any 3.10 patch release.
  EXPECT_TRUE(Found(runtime, "3.10.0 (default) [Clang]"));
}

TEST(FinalizedInterpreterTest, LeavesOtherVersionsAlone) {
  FakeRuntime runtime;
  EXPECT_FALSE(Found(runtime, "3.9.18 (main) [GCC]"));
  EXPECT_FALSE(Found(runtime, "3.11.7 (main) [GCC]"));
  EXPECT_FALSE(Found(runtime, "3.1.0"));
  EXPECT_FALSE(Found(runtime, "3.100.0"));
  EXPECT_FALSE(Found(runtime, nullptr));
  pthread_mutex_t* mutex = nullptr;
  EXPECT_FALSE(FinalizedRuntimeGilMutex(0, kVersion310, &mutex));
}

TEST(FinalizedInterpreterTest, LeavesALiveOrFinalizingInterpreterAlone) {
  {
    FakeRuntime never_finalized;
    never_finalized.Put<uint64_t>(16, 0);
    EXPECT_FALSE(Found(never_finalized, kVersion310));
  }
  {
    // Py_FinalizeEx under way: the main interpreter still exists (an exit
    // handler run from a finalizer).
    FakeRuntime finalizing;
    finalizing.Put<uint64_t>(40, 0x5555aaaa0000);
    EXPECT_FALSE(Found(finalizing, kVersion310));
  }
  {
    FakeRuntime initialized;
    initialized.Put<int32_t>(12, 1);
    EXPECT_FALSE(Found(initialized, kVersion310));
  }
}

TEST(FinalizedInterpreterTest, LeavesAnUnexpectedGilStateAlone) {
  {
    FakeRuntime other_holder;
    other_holder.Put<uint64_t>(360, kFinalizingThread + 0x1000);
    EXPECT_FALSE(Found(other_holder, kVersion310));
  }
  {
    FakeRuntime released;
    released.Put<int32_t>(368, 0);
    EXPECT_FALSE(Found(released, kVersion310));
  }
}

TEST(FinalizedInterpreterTest, TakesAFreeMutex) {
  pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
  EXPECT_TRUE(TryLockFor(&mutex, 1000000));
  EXPECT_EQ(pthread_mutex_trylock(&mutex), EBUSY);
  pthread_mutex_unlock(&mutex);
}

TEST(FinalizedInterpreterTest, WaitsBrieflyForAMutexAnotherThreadHolds) {
  pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
  std::atomic<bool> locked{false};
  std::atomic<bool> release{false};
  std::thread holder([&] {
    pthread_mutex_lock(&mutex);
    locked = true;
    while (!release) std::this_thread::yield();
    pthread_mutex_unlock(&mutex);
  });
  while (!locked) std::this_thread::yield();
  // Held throughout: gives up after the timeout.
  timespec start;
  timespec end;
  clock_gettime(CLOCK_MONOTONIC, &start);
  EXPECT_FALSE(TryLockFor(&mutex, 2000000));
  clock_gettime(CLOCK_MONOTONIC, &end);
  const int64_t waited_ns = (end.tv_sec - start.tv_sec) * 1000000000ll +
                            (end.tv_nsec - start.tv_nsec);
  EXPECT_GE(waited_ns, 2000000);
  EXPECT_LT(waited_ns, 1000000000);
  // Released meanwhile: taken.
  std::thread releaser([&] {
    timespec pause{0, 1000000};
    nanosleep(&pause, nullptr);
    release = true;
  });
  EXPECT_TRUE(TryLockFor(&mutex, 5000000000ull));
  releaser.join();
  holder.join();
  pthread_mutex_unlock(&mutex);
}

}  // namespace
}  // namespace feedprof::preload::python::internal
