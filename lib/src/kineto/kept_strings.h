// Copies of string values that must outlive the tokenizer's buffer.
//
// Why: a KinetoEvent's strings are views. The one-pass scanner points them
// into text that stays put until the event is mapped (a batch's text, the
// tokenizer's buffer before its next token), so it copies nothing. The
// token-by-token path reads a value whose text is gone at the next token
// (and an escaped string is decoded into scratch space), so it keeps a copy
// here. The copies are recycled: Clear() keeps every string's capacity, so
// once warm, keeping a string allocates nothing.
#ifndef FEEDPROF_LIB_SRC_KINETO_KEPT_STRINGS_H_
#define FEEDPROF_LIB_SRC_KINETO_KEPT_STRINGS_H_

#include <cstddef>
#include <deque>
#include <string>
#include <string_view>

namespace feedprof::kineto {

class KeptStrings {
 public:
  // A copy of `text`, valid until Clear() (a deque never moves its
  // elements, so earlier copies stay where they are).
  std::string_view Keep(std::string_view text) {
    if (used_ == kept_.size()) kept_.emplace_back();
    std::string& copy = kept_[used_++];
    copy.assign(text);
    return copy;
  }
  // Forgets every copy (their views dangle from here on).
  void Clear() { used_ = 0; }

 private:
  std::deque<std::string> kept_;
  size_t used_ = 0;
};

}  // namespace feedprof::kineto

#endif  // FEEDPROF_LIB_SRC_KINETO_KEPT_STRINGS_H_
