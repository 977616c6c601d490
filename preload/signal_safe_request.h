// A request that a signal handler makes of a worker thread, and waits for.
//
// On SIGTERM/SIGINT the library must get buffered data to disk before the
// process dies, but a signal handler may not lock a mutex or wait on a
// condition variable. The handler instead bumps a sequence number, writes
// an eventfd the worker polls, and polls a second eventfd the worker writes
// when it has served that sequence number, up to a deadline. Everything the
// requester does (atomic add and load, write, poll, read, clock_gettime) is
// async-signal-safe; a worker that is stuck only costs the timeout.
//
// The worker thread (the trace writer, the host sampler) polls wake_fd()
// with its own timeout, calls ClearWake(), and after doing the work calls
// Served(Pending()). The eventfds are private high descriptors
// (private_fd.h). After a fork the child must call Reopen(): the inherited
// eventfds are shared with the parent's worker.
#ifndef FEEDPROF_PRELOAD_SIGNAL_SAFE_REQUEST_H_
#define FEEDPROF_PRELOAD_SIGNAL_SAFE_REQUEST_H_

#include <poll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>

#include "preload/own_io.h"
#include "preload/private_fd.h"

namespace feedprof::preload {

// eventfd helpers, shared by every wake-up channel of the library.
inline int MakeEventFd() {
  return MoveToPrivateFd(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
}

inline void SignalEventFd(int fd) {
  if (fd < 0) return;
  const uint64_t one = 1;
  const ssize_t ignored = OwnWrite(fd, &one, sizeof one);
  (void)ignored;
}

inline void ClearEventFd(int fd) {
  if (fd < 0) return;
  uint64_t value;
  const ssize_t ignored = OwnRead(fd, &value, sizeof value);
  (void)ignored;
}

class SignalSafeRequest {
 public:
  constexpr SignalSafeRequest() = default;
  SignalSafeRequest(const SignalSafeRequest&) = delete;
  SignalSafeRequest& operator=(const SignalSafeRequest&) = delete;

  // Creates the eventfds unless open. False when the system refuses.
  bool Open() {
    if (wake_fd_ < 0) wake_fd_ = MakeEventFd();
    if (done_fd_ < 0) done_fd_ = MakeEventFd();
    return wake_fd_ >= 0 && done_fd_ >= 0;
  }

  // Closes the eventfds. Only when no requester can be using them: a
  // closed number may be reused, and a late request would write to it.
  // (No destructor does this: the library's workers live until the process
  // ends.)
  void Close() {
    for (int* fd : {&wake_fd_, &done_fd_}) {
      if (*fd >= 0) close(*fd);
      *fd = -1;
    }
  }

  // In a fork child: drops the eventfds shared with the parent, forgets
  // its requests and opens new ones.
  bool Reopen() {
    Close();
    requested_.store(0, std::memory_order_relaxed);
    served_.store(0, std::memory_order_relaxed);
    return Open();
  }

  bool is_open() const { return wake_fd_ >= 0 && done_fd_ >= 0; }
  int wake_fd() const { return wake_fd_; }
  int done_fd() const { return done_fd_; }

  // Any thread, async-signal-safe: wakes the worker without a request.
  void Wake() const { SignalEventFd(wake_fd_); }

  // Async-signal-safe: asks the worker to serve a new request and waits
  // up to `timeout_ms` for it (or a later one) to be served. True when
  // served in time.
  bool RequestAndWait(int timeout_ms) {
    if (!is_open()) return false;
    const uint32_t want =
        requested_.fetch_add(1, std::memory_order_acq_rel) + 1;
    SignalEventFd(wake_fd_);
    const int64_t deadline = NowMs() + timeout_ms;
    while (static_cast<int32_t>(served_.load(std::memory_order_acquire) -
                                want) < 0) {
      const int64_t left = deadline - NowMs();
      if (left <= 0) return false;
      pollfd pfd{done_fd_, POLLIN, 0};
      poll(&pfd, 1, static_cast<int>(left));
      ClearEventFd(done_fd_);
    }
    return true;
  }

  // Worker: after waking, before looking at Pending().
  void ClearWake() const { ClearEventFd(wake_fd_); }

  // Worker: the latest request not yet served, or 0 when none is.
  uint32_t Pending() const {
    const uint32_t requested = requested_.load(std::memory_order_acquire);
    return requested != served_.load(std::memory_order_relaxed) ? requested : 0;
  }

  // Worker: everything up to `request` (from Pending()) is done.
  void Served(uint32_t request) {
    if (request == 0) return;
    served_.store(request, std::memory_order_release);
    SignalEventFd(done_fd_);
  }

 private:
  static int64_t NowMs() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
  }

  int wake_fd_ = -1;
  int done_fd_ = -1;
  std::atomic<uint32_t> requested_{0};
  std::atomic<uint32_t> served_{0};
};

}  // namespace feedprof::preload

#endif  // FEEDPROF_PRELOAD_SIGNAL_SAFE_REQUEST_H_
