#include "report/platform_block.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace feedprof {

std::string PlatformFindingLine(const PlatformFinding& f) {
  std::string line =
      absl::StrFormat("%-8s%-18s ", PlatformStatusName(f.status), f.check);
  if (!f.subject.empty()) absl::StrAppend(&line, f.subject, ": ");
  absl::StrAppend(&line, f.value);
  if (!f.meaning.empty()) absl::StrAppend(&line, " — ", f.meaning);
  if (!f.action.empty()) absl::StrAppend(&line, " → ", f.action);
  return line;
}

void WritePlatformFindingsJson(const std::vector<PlatformFinding>& findings,
                               common::JsonWriter& w) {
  w.BeginArray();
  for (const PlatformFinding& f : findings) {
    w.BeginObject();
    w.Key("check").String(f.check);
    w.Key("area").String(f.area);
    w.Key("subject");
    if (f.subject.empty()) {
      w.Null();
    } else {
      w.String(f.subject);
    }
    w.Key("status").String(PlatformStatusName(f.status));
    w.Key("value").String(f.value);
    w.Key("meaning").String(f.meaning);
    w.Key("action");
    if (f.action.empty()) {
      w.Null();
    } else {
      w.String(f.action);
    }
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace feedprof
