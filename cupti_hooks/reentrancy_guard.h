// A per-thread flag that keeps CUPTI collection from re-entering itself.
//
// Anything the collector calls may call back into it: a forced flush makes
// CUPTI deliver buffers on the flushing thread, a driver query inside a
// callback produces another callback. Each entry point (API callback,
// buffer completion) takes the guard; an entry that finds it taken returns
// at once and does nothing.
#ifndef FEEDPROF_CUPTI_HOOKS_REENTRANCY_GUARD_H_
#define FEEDPROF_CUPTI_HOOKS_REENTRANCY_GUARD_H_

namespace feedprof::cupti {

class ReentrancyGuard {
 public:
  ReentrancyGuard() : entered_(!busy_) { busy_ = true; }
  ~ReentrancyGuard() {
    if (entered_) busy_ = false;
  }
  ReentrancyGuard(const ReentrancyGuard&) = delete;
  ReentrancyGuard& operator=(const ReentrancyGuard&) = delete;

  // False when this thread was already inside the collector.
  bool entered() const { return entered_; }

 private:
  static inline thread_local bool busy_ = false;
  bool entered_;
};

}  // namespace feedprof::cupti

#endif  // FEEDPROF_CUPTI_HOOKS_REENTRANCY_GUARD_H_
