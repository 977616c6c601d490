// Folded stacks (see feedprof/report.h): the format flame graph tools
// read, one distinct stack per line with its weight after the last space.
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "feedprof/report.h"

namespace feedprof {
namespace {

// A frame as one field of a line: ';' separates frames and a newline ends
// the line, so neither may appear inside one.
void AppendFrame(std::string_view frame, std::string* line) {
  for (const char c : frame) {
    line->push_back(c == ';' ? ':' : (c == '\n' || c == '\r') ? ' ' : c);
  }
}

}  // namespace

std::string WriteFoldedStacks(const Report& report) {
  std::string out;
  for (const RoleCodeProfile& role : report.host_code.roles) {
    const std::string_view name = ThreadRoleName(role.role);
    for (const FoldedStack& stack : role.stacks) {
      if (stack.self_ns <= 0) continue;
      out.append(name);
      for (const uint32_t frame : stack.frames) {
        out.push_back(';');
        if (frame < report.host_code.frames.size()) {
          AppendFrame(report.host_code.frames[frame].label, &out);
        }
      }
      absl::StrAppend(&out, " ", stack.self_ns, "\n");
    }
    if (role.other_ns > 0) {
      absl::StrAppend(&out, std::string(name), ";[", role.stacks.size(),
                      " heaviest stacks kept; the rest] ", role.other_ns, "\n");
    }
  }
  return out;
}

}  // namespace feedprof
