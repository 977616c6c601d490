// Call sites as printed (see call_site_text.h).
#include "analysis/call_site_text.h"

#include <cxxabi.h>

#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "analysis/user_code.h"

namespace feedprof::analysis {
namespace {

// The C library's process start: names every native stack ends in, which
// say nothing about the call.
bool IsProcessStart(std::string_view function) {
  return function == "__libc_start_main" ||
         function == "__libc_start_call_main" || function == "_start";
}

std::string Demangled(std::string_view name) {
  if (!name.starts_with("_Z")) return std::string(name);
  const std::string mangled(name);
  int status = 0;
  char* plain = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  if (status != 0 || plain == nullptr) {
    std::free(plain);
    return mangled;
  }
  std::string text(plain);
  std::free(plain);
  return text;
}

std::string_view BaseName(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// "function (where)", or whichever of the two is known.
std::string FunctionAt(std::string function, const std::string& where) {
  if (where.empty()) return function;
  return function.empty() ? where : absl::StrCat(function, " (", where, ")");
}

std::string FrameWithLine(const Timeline& tl, const Frame& f) {
  return LineFrameText(tl.strings.Get(f.function), tl.strings.Get(f.file),
                       f.line);
}

// A symbolized native frame prints its source line; else its module and
// offset.
std::string NativeFrame(const Timeline& tl, const Frame& f) {
  if (f.line != 0 && f.file != 0) {
    return LineFrameText(Demangled(tl.strings.Get(f.function)),
                         tl.strings.Get(f.file), f.line);
  }
  std::string where(
      BaseName(tl.strings.Get(f.module != 0 ? f.module : f.file)));
  if (f.pc != 0) where = absl::StrCat(where, "+0x", absl::Hex(f.pc));
  return FunctionAt(Demangled(tl.strings.Get(f.function)), where);
}

}  // namespace

std::string LineFrameText(std::string_view function, std::string_view file,
                          uint32_t line) {
  return FunctionAt(std::string(function),
                    file.empty() ? std::string()
                                 : absl::StrCat(std::string(file), ":", line));
}

std::string FrameText(const Timeline& timeline, const Frame& frame,
                      bool python) {
  return python || frame.line != 0 ? FrameWithLine(timeline, frame)
                                   : NativeFrame(timeline, frame);
}

std::vector<std::string> CallStackText(const Timeline& timeline, uint32_t id) {
  std::vector<std::string> frames;
  if (id == 0 || id >= timeline.call_sites.size()) return frames;
  const CallSite& site = timeline.call_sites[id];
  for (const Frame& f : site.frames) {
    std::string text = FrameText(timeline, f, site.python);
    if (!text.empty()) frames.push_back(std::move(text));
  }
  return frames;
}

std::string CallSiteText(const Timeline& timeline, uint32_t id,
                         const UserCodeRule& rule) {
  if (id == 0 || id >= timeline.call_sites.size()) return "";
  const CallSite& site = timeline.call_sites[id];
  if (site.frames.empty()) return "";
  const Frame& innermost = site.frames.front();
  if (site.python) {
    return FrameWithLine(
        timeline, *InnermostUserFrame(site.frames.begin(), site.frames.end(),
                                      [&timeline, &rule](const Frame& f) {
                                        return IsUserPythonFile(
                                            timeline.strings.Get(f.file), rule);
                                      }));
  }
  if (innermost.line != 0) return FrameWithLine(timeline, innermost);
  for (const Frame& f : site.frames) {
    const std::string_view function = timeline.strings.Get(f.function);
    if (function.empty()) continue;
    if (IsProcessStart(function)) break;
    return NativeFrame(timeline, f);
  }
  return NativeFrame(timeline, innermost);
}

}  // namespace feedprof::analysis
