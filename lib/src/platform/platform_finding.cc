// PlatformStatus names and the PlatformReport look-ups (feedprof/platform.h).
#include "feedprof/platform.h"

namespace feedprof {

const char* PlatformStatusName(PlatformStatus status) {
  switch (status) {
    case PlatformStatus::kOk:
      return "ok";
    case PlatformStatus::kWarn:
      return "warn";
    case PlatformStatus::kFail:
      return "fail";
    case PlatformStatus::kUnknown:
      break;
  }
  return "unknown";
}

size_t PlatformReport::Count(PlatformStatus status) const {
  size_t n = 0;
  for (const PlatformFinding& f : findings) n += f.status == status;
  return n;
}

const PlatformFinding* PlatformReport::Find(const std::string& check,
                                            const std::string& subject) const {
  for (const PlatformFinding& f : findings) {
    if (f.check == check && (subject.empty() || f.subject == subject)) {
      return &f;
    }
  }
  return nullptr;
}

}  // namespace feedprof
