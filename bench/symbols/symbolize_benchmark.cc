// The cost of symbolizing native frames (target: at most 50 ms per
// distinct 100 MB module, paid once per build id), measured on a big
// module with debug info: FEEDPROF_SYMBOLS_BENCH_MODULE, else the feedprof
// CLI of this build.
//
// BM_FirstUseOfModule opens the module afresh each iteration, as the
// first trace that points into it does; BM_TraceOfOpenModule symbolizes a
// timeline whose module is already open (every later trace).
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "feedprof/symbolize.h"
#include "symbols/dwarf_module.h"
#include "symbols/elf_file_facts.h"

namespace feedprof {
namespace {

constexpr size_t kMaxFrames = 1000;

std::string ModulePath() {
  const char* env = std::getenv("FEEDPROF_SYMBOLS_BENCH_MODULE");
  if (env != nullptr && env[0] != '\0') return env;
  return FEEDPROF_BINARY_DIR "/tools/feedprof";
}

// kMaxFrames offsets inside functions spread over the module, as return
// addresses the recorder would write (offset from the load base).
std::vector<uint64_t> FrameOffsets(const std::string& path,
                                   uint64_t link_base) {
  std::vector<uint64_t> addresses;
  const int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) return {};
  elf_version(EV_CURRENT);
  Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  for (Elf_Scn* scn = nullptr;
       elf != nullptr && (scn = elf_nextscn(elf, scn)) != nullptr;) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr || shdr.sh_type != SHT_SYMTAB) {
      continue;
    }
    Elf_Data* data = elf_getdata(scn, nullptr);
    const size_t count =
        shdr.sh_entsize == 0 ? 0 : shdr.sh_size / shdr.sh_entsize;
    for (size_t i = 0; data != nullptr && i < count; ++i) {
      GElf_Sym sym;
      if (gelf_getsym(data, static_cast<int>(i), &sym) == nullptr) continue;
      if (GELF_ST_TYPE(sym.st_info) == STT_FUNC && sym.st_size > 2 &&
          sym.st_value >= link_base) {
        addresses.push_back(sym.st_value + sym.st_size / 2 - link_base);
      }
    }
  }
  if (elf != nullptr) elf_end(elf);
  close(fd);
  std::sort(addresses.begin(), addresses.end());
  std::vector<uint64_t> picked;
  for (size_t i = 0; i < kMaxFrames && !addresses.empty(); ++i) {
    picked.push_back(addresses[i * addresses.size() / kMaxFrames]);
  }
  return picked;
}

struct Module {
  std::string path;
  symbols::ElfFileFacts facts;
  std::vector<uint64_t> offsets;
  double megabytes = 0;
};

const Module& BenchModule() {
  static const Module* module = [] {
    auto* m = new Module;
    m->path = ModulePath();
    m->facts = symbols::ReadElfFileFacts(m->path);
    m->offsets = FrameOffsets(m->path, m->facts.link_base);
    struct stat st {};
    if (stat(m->path.c_str(), &st) == 0) {
      m->megabytes = static_cast<double>(st.st_size) / 1e6;
    }
    return m;
  }();
  return *module;
}

void BM_FirstUseOfModule(benchmark::State& state) {
  const Module& m = BenchModule();
  if (m.offsets.empty()) {
    state.SkipWithError(("no function symbols in " + m.path).c_str());
    return;
  }
  // The first N of frames spread evenly over the module.
  const size_t frames =
      std::min<size_t>(static_cast<size_t>(state.range(0)), m.offsets.size());
  size_t with_line = 0;
  for (auto _ : state) {
    std::string problem;
    const symbols::ElfFileFacts facts = symbols::ReadElfFileFacts(m.path);
    auto module = symbols::DwarfModule::Open(m.path, {}, &problem);
    if (module == nullptr) {
      state.SkipWithError(problem.c_str());
      return;
    }
    with_line = 0;
    for (size_t i = 0; i < frames; ++i) {
      const uint64_t offset = m.offsets[i * m.offsets.size() / frames];
      with_line += module->Lookup(facts.link_base + offset - 1).line != 0;
    }
  }
  state.counters["module_MB"] = m.megabytes;
  state.counters["frames"] = static_cast<double>(frames);
  state.counters["with_line"] = static_cast<double>(with_line);
  state.SetLabel(m.path);
}
BENCHMARK(BM_FirstUseOfModule)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(5)
    ->Arg(10)
    ->Arg(100)
    ->Arg(1000);

Timeline FramesTimeline(const Module& m) {
  Timeline t;  // call site 0 is the empty one
  const StringId module = t.strings.Intern(m.path);
  for (const uint64_t offset : m.offsets) {
    Frame f;
    f.kind = FrameKind::kNative;
    f.module = module;
    f.pc = offset;
    t.call_sites.push_back(CallSite{{f}, false});
  }
  t.native_modules.push_back(NativeModule{module, m.facts.build_id});
  return t;
}

void BM_TraceOfOpenModule(benchmark::State& state) {
  const Module& m = BenchModule();
  const Timeline frames = FramesTimeline(m);
  {
    Timeline warm = frames;
    SymbolizeNativeFrames(warm);  // opens and keeps the module
  }
  for (auto _ : state) {
    state.PauseTiming();
    Timeline t = frames;
    state.ResumeTiming();
    benchmark::DoNotOptimize(SymbolizeNativeFrames(t));
  }
  state.counters["frames"] = static_cast<double>(m.offsets.size());
}
BENCHMARK(BM_TraceOfOpenModule)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace feedprof

BENCHMARK_MAIN();
