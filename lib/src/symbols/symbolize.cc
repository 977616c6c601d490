// The symbolization pass over a timeline's call sites (feedprof/symbolize.h).
//
// Frames are grouped by module, each module is located and opened once,
// and each frame's offset becomes a file address: the module's link base
// (elf_file_facts.h) plus the offset. A recorded frame is a return address
// (it points after the call), so pc - 1 is looked up to land on the call's
// line; only the innermost frame of a sampled stack (StackSample) is the
// exact instruction.
#include "feedprof/symbolize.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "symbols/module_cache.h"
#include "symbols/module_locator.h"

namespace feedprof {
namespace {

bool NeedsSymbols(const Frame& f) {
  return f.kind == FrameKind::kNative && f.module != 0 && f.pc != 0 &&
         f.line == 0;
}

struct FrameRef {
  uint32_t site;
  uint32_t frame;
};

}  // namespace

bool HasUnsymbolizedNativeFrames(const Timeline& timeline) {
  for (const CallSite& site : timeline.call_sites) {
    if (site.python) continue;
    for (const Frame& f : site.frames) {
      if (NeedsSymbols(f)) return true;
    }
  }
  return false;
}

SymbolizeResult SymbolizeNativeFrames(Timeline& timeline,
                                      const SymbolizeOptions& options) {
  SymbolizeResult result;
  if (!HasUnsymbolizedNativeFrames(timeline)) return result;

  // Stacks whose innermost frame is an exact instruction, not a return
  // address.
  std::unordered_set<uint32_t> sampled;
  for (const StackSample& s : timeline.stack_samples) sampled.insert(s.stack);

  // Frames by module, in order of first appearance.
  std::map<StringId, std::vector<FrameRef>> by_module;
  std::vector<StringId> module_order;
  for (size_t s = 0; s < timeline.call_sites.size(); ++s) {
    const CallSite& site = timeline.call_sites[s];
    if (site.python) continue;
    for (size_t i = 0; i < site.frames.size(); ++i) {
      const Frame& f = site.frames[i];
      if (!NeedsSymbols(f)) continue;
      auto [it, fresh] = by_module.try_emplace(f.module);
      if (fresh) module_order.push_back(f.module);
      it->second.push_back(
          FrameRef{static_cast<uint32_t>(s), static_cast<uint32_t>(i)});
      ++result.native_frames;
    }
  }
  std::unordered_map<StringId, std::string> build_ids;
  for (const NativeModule& m : timeline.native_modules) {
    build_ids.try_emplace(m.path, m.build_id);
  }

  std::vector<std::string> debug_dirs = options.debug_roots;
  debug_dirs.insert(debug_dirs.end(), options.symbol_paths.begin(),
                    options.symbol_paths.end());
  std::vector<std::string> unchecked;
  for (const StringId module_id : module_order) {
    ++result.modules;
    const std::string path(timeline.strings.Get(module_id));
    const auto id_it = build_ids.find(module_id);
    const std::string build_id =
        id_it == build_ids.end() ? std::string() : id_it->second;
    const symbols::LocatedModule located =
        symbols::LocateModule(path, build_id, options);
    std::string reason = located.reason;
    std::shared_ptr<symbols::DwarfModule> module;
    if (located.found) {
      std::string problem;
      module = symbols::CachedModule(located.path, located.facts.build_id,
                                     debug_dirs, &problem);
      if (module == nullptr) {
        reason = absl::StrCat(located.path, " is unusable: ", problem);
      }
    }
    size_t symbolized = 0;
    if (module != nullptr) {
      for (const FrameRef& ref : by_module[module_id]) {
        Frame& f = timeline.call_sites[ref.site].frames[ref.frame];
        const bool exact = ref.frame == 0 && sampled.contains(ref.site);
        const uint64_t address =
            located.facts.link_base + f.pc - (exact ? 0 : 1);
        const symbols::SourceLocation where = module->Lookup(address);
        if (where.function.empty() && where.line == 0) continue;
        ++symbolized;
        if (!where.function.empty()) {
          f.function = timeline.strings.Intern(where.function);
        }
        if (where.line != 0) {
          f.file = timeline.strings.Intern(where.file);
          f.line = where.line;
          ++result.with_line;
        }
      }
      // A stripped file keeps only its exported symbols (.dynsym).
      if (symbolized == 0 && !module->has_lines()) {
        reason = absl::StrCat(
            "no symbols or line info in ", located.path,
            " (stripped; install its -dbg package or pass --symbol-path DIR "
            "with an unstripped copy)");
      } else if (symbolized == 0) {
        reason = absl::StrCat(
            "no symbol or line of ", located.path,
            " covers the frames' offsets (another build of it? pass "
            "--symbol-path DIR with the binary that ran)");
      } else if (!located.checked) {
        unchecked.push_back(located.path);
        result.unchecked += symbolized;
      }
    }
    result.symbolized += symbolized;
    if (symbolized == 0) {
      ++result.modules_failed;
      timeline.warnings.push_back(absl::StrCat(
          "native frames in ", path, " left as module+offset: ", reason));
    }
  }
  if (!unchecked.empty()) {
    timeline.warnings.push_back(absl::StrCat(
        "native frames symbolized without a build id check (the trace "
        "recorded none; a rebuilt binary gives wrong lines): ",
        absl::StrJoin(unchecked, ", ")));
  }
  return result;
}

}  // namespace feedprof
