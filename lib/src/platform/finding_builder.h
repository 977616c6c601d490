// Small helpers the check files share: building a finding, and the
// unknown finding that passes on why a fact is missing.
#ifndef FEEDPROF_PLATFORM_FINDING_BUILDER_H_
#define FEEDPROF_PLATFORM_FINDING_BUILDER_H_

#include <string>
#include <vector>

#include "feedprof/platform.h"

namespace feedprof::platform {

class FindingBuilder {
 public:
  FindingBuilder(std::vector<PlatformFinding>* out, std::string area)
      : out_(out), area_(std::move(area)) {}

  void Add(std::string check, std::string subject, PlatformStatus status,
           std::string value, std::string meaning, std::string action = "") {
    PlatformFinding f;
    f.check = std::move(check);
    f.area = area_;
    f.subject = std::move(subject);
    f.status = status;
    f.value = std::move(value);
    f.meaning = std::move(meaning);
    f.action = std::move(action);
    out_->push_back(std::move(f));
  }
  // An unknown finding: `why` is what could not be read and why.
  void Unknown(std::string check, std::string subject, std::string why,
               std::string action = "") {
    Add(std::move(check), std::move(subject), PlatformStatus::kUnknown,
        "unknown", std::move(why), std::move(action));
  }

 private:
  std::vector<PlatformFinding>* out_;
  std::string area_;
};

// The worse of two statuses (fail > warn > ok; unknown only over nothing).
PlatformStatus Worse(PlatformStatus a, PlatformStatus b);

// "12.3%" for 0.123; "0.40%" below 1 %.
std::string Percent(double share);
// "%.1f" / "%.2f" without the noise of std::to_string.
std::string Fixed(double v, int digits);

}  // namespace feedprof::platform

#endif  // FEEDPROF_PLATFORM_FINDING_BUILDER_H_
