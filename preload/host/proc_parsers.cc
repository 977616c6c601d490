#include "preload/host/proc_parsers.h"

#include "preload/host/host_sample_records.h"
#include "preload/host/proc_text.h"

namespace feedprof::preload::host {

bool ParseTaskStat(std::string_view text, TaskStat* out) {
  *out = TaskStat{};
  const size_t open = text.find('(');
  const size_t close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos ||
      close < open) {
    return false;
  }
  uint64_t tid = 0;
  if (!ParseUint(Trim(text.substr(0, open)), &tid)) return false;
  out->tid = static_cast<uint32_t>(tid);
  out->comm = text.substr(open + 1, close - open - 1);
  std::string_view rest = text.substr(close + 1);
  // Field 3 onwards, whitespace separated.
  int field = 3;
  for (std::string_view tok = NextToken(&rest); !tok.empty();
       tok = NextToken(&rest), ++field) {
    uint64_t v = 0;
    switch (field) {
      case 3:
        out->state = tok[0];
        break;
      case 10:
        if (ParseUint(tok, &v)) out->minor_faults = v;
        break;
      case 12:
        if (ParseUint(tok, &v)) out->major_faults = v;
        break;
      case 14:
        if (ParseUint(tok, &v)) out->utime_ticks = v;
        break;
      case 15:
        if (ParseUint(tok, &v)) out->stime_ticks = v;
        break;
      case 20:
        if (ParseUint(tok, &v)) out->num_threads = static_cast<uint32_t>(v);
        break;
      case 24:
        if (ParseUint(tok, &v)) out->rss_pages = v;
        break;
      case 42:
        if (ParseUint(tok, &v)) out->blkio_ticks = v;
        break;
      default:
        break;
    }
    if (field == 42) break;
  }
  return field >= 15;
}

bool ParseContextSwitches(std::string_view status_text, ContextSwitches* out) {
  *out = ContextSwitches{};
  const bool vol =
      FindKeyUint(status_text, "voluntary_ctxt_switches", &out->voluntary);
  const bool invol =
      FindKeyUint(status_text, "nonvoluntary_ctxt_switches", &out->involuntary);
  return vol && invol;
}

bool ParseSchedstatRunNs(std::string_view text, uint64_t* out) {
  return ParseUint(Trim(text), out);
}

bool ParseProcessIo(std::string_view text, ProcessIo* out) {
  *out = ProcessIo{};
  bool any = false;
  any |= FindKeyUint(text, "rchar", &out->rchar);
  any |= FindKeyUint(text, "wchar", &out->wchar);
  any |= FindKeyUint(text, "syscr", &out->syscr);
  any |= FindKeyUint(text, "syscw", &out->syscw);
  any |= FindKeyUint(text, "read_bytes", &out->read_bytes);
  any |= FindKeyUint(text, "write_bytes", &out->write_bytes);
  return any;
}

bool ParseProcStat(std::string_view text, SystemCpu* out) {
  *out = SystemCpu{};
  bool have_cpu = false;
  while (!text.empty()) {
    std::string_view line = NextLine(&text);
    if (!have_cpu && line.substr(0, 4) == "cpu ") {
      line.remove_prefix(4);
      uint64_t* const slots[] = {&out->user,    &out->nice,   &out->system,
                                 &out->idle,    &out->iowait, &out->irq,
                                 &out->softirq, &out->steal};
      for (uint64_t* slot : slots) {
        const std::string_view tok = NextToken(&line);
        if (!ParseUint(tok, slot)) break;
      }
      have_cpu = true;
      continue;
    }
    uint64_t v = 0;
    if (line.substr(0, 14) == "procs_running ") {
      if (ParseUint(Trim(line.substr(14)), &v)) {
        out->procs_running = static_cast<uint32_t>(v);
      }
    } else if (line.substr(0, 14) == "procs_blocked ") {
      if (ParseUint(Trim(line.substr(14)), &v)) {
        out->procs_blocked = static_cast<uint32_t>(v);
      }
    }
  }
  return have_cpu;
}

namespace {

// Value of a meminfo line in bytes: "MemTotal:  16303412 kB". NUMA node
// files prefix every key with "Node N ".
bool FindMeminfoBytes(std::string_view text, std::string_view key,
                      uint64_t* out) {
  while (!text.empty()) {
    std::string_view line = NextLine(&text);
    if (line.substr(0, 5) == "Node ") {
      line.remove_prefix(5);
      NextToken(&line);  // node number
      line = Trim(line);
    }
    if (line.size() <= key.size() || line.substr(0, key.size()) != key ||
        line[key.size()] != ':') {
      continue;
    }
    std::string_view value = line.substr(key.size() + 1);
    uint64_t v = 0;
    if (!ParseUint(NextToken(&value), &v)) return false;
    const std::string_view unit = NextToken(&value);
    *out = unit == "kB" ? v * 1024 : v;
    return true;
  }
  return false;
}

}  // namespace

bool ParseMeminfo(std::string_view text, MemInfo* out) {
  *out = MemInfo{};
  bool any = false;
  any |= FindMeminfoBytes(text, "MemTotal", &out->total_bytes);
  any |= FindMeminfoBytes(text, "MemAvailable", &out->available_bytes);
  any |= FindMeminfoBytes(text, "Dirty", &out->dirty_bytes);
  any |= FindMeminfoBytes(text, "Writeback", &out->writeback_bytes);
  return any;
}

bool ParseLoadavg1m(std::string_view text, double* out) {
  std::string_view t = text;
  return ParseDecimal(NextToken(&t), out);
}

std::string_view ParseNvidiaDriverVersion(std::string_view text) {
  std::string_view t = text;
  while (!t.empty()) {
    const std::string_view token = NextToken(&t);
    if (token.empty()) break;
    bool digits_and_dots = token.front() >= '0' && token.front() <= '9';
    bool has_dot = false;
    for (char c : token) {
      has_dot |= c == '.';
      digits_and_dots &= (c >= '0' && c <= '9') || c == '.';
    }
    if (digits_and_dots && has_dot) return token;
  }
  return {};
}

uint32_t ThreadStateFromLetter(char state) {
  switch (state) {
    case 'R':
      return kThreadStateRunning;
    case 'S':
      return kThreadStateSleeping;
    case 'D':
      return kThreadStateDiskWait;
    case 'T':
    case 't':
      return kThreadStateStopped;
    case 'Z':
    case 'X':
    case 'x':
      return kThreadStateZombie;
    case 'I':
      return kThreadStateIdle;
    default:
      return kThreadStateUnknown;
  }
}

}  // namespace feedprof::preload::host
