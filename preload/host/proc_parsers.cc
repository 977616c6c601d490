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

bool ParseDiskstatsLine(std::string_view line, DiskStats* out) {
  *out = DiskStats{};
  NextToken(&line);  // major
  NextToken(&line);  // minor
  out->name = NextToken(&line);
  uint64_t* const slots[] = {
      &out->reads,           &out->reads_merged, &out->sectors_read,
      &out->read_ms,         &out->writes,       &out->writes_merged,
      &out->sectors_written, &out->write_ms,     &out->in_flight,
      &out->io_ticks_ms,     &out->weighted_ms};
  for (uint64_t* slot : slots) {
    if (!ParseUint(NextToken(&line), slot)) return false;
  }
  return !out->name.empty();
}

bool FindDiskstats(std::string_view text, std::string_view name,
                   DiskStats* out) {
  while (!text.empty()) {
    const size_t end = text.find('\n');
    if (end == std::string_view::npos) break;  // cut: not a whole line
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(end + 1);
    // The name is the third token: compare before parsing the numbers.
    std::string_view rest = line;
    NextToken(&rest);
    NextToken(&rest);
    if (NextToken(&rest) != name) continue;
    return ParseDiskstatsLine(line, out);
  }
  *out = DiskStats{};
  return false;
}

namespace {

bool IsOctal(char c) { return c >= '0' && c <= '7'; }

// Whether the mount point as /proc/self/mountstats escapes it (\ooo for
// space, tab, newline and backslash) is `plain`.
bool SameMountPoint(std::string_view escaped, std::string_view plain) {
  size_t j = 0;
  for (size_t i = 0; i < escaped.size(); ++i, ++j) {
    char c = escaped[i];
    if (c == '\\' && i + 3 < escaped.size() && IsOctal(escaped[i + 1]) &&
        IsOctal(escaped[i + 2]) && IsOctal(escaped[i + 3])) {
      c = static_cast<char>((escaped[i + 1] - '0') * 64 +
                            (escaped[i + 2] - '0') * 8 +
                            (escaped[i + 3] - '0'));
      i += 3;
    }
    if (j >= plain.size() || plain[j] != c) return false;
  }
  return j == plain.size();
}

// The text after `key` up to the next space: " mounted on " -> the mount
// point. Empty when `key` is not in `line`.
std::string_view TokenAfter(std::string_view line, std::string_view key) {
  const size_t at = line.find(key);
  if (at == std::string_view::npos) return {};
  std::string_view rest = line.substr(at + key.size());
  return NextToken(&rest);
}

}  // namespace

MountstatsScanner::MountstatsScanner(const char* const* mount_points,
                                     size_t count, NfsOpTotals* out,
                                     bool* found)
    : mount_points_(mount_points), count_(count), out_(out), found_(found) {
  for (size_t i = 0; i < count_; ++i) {
    out_[i] = NfsOpTotals{};
    found_[i] = false;
  }
}

void MountstatsScanner::Complete() {
  if (current_ >= 0 && in_ops_) {
    const auto i = static_cast<size_t>(current_);
    out_[i] = totals_;
    found_[i] = true;
    ++found_count_;
  }
  current_ = -1;
  in_ops_ = false;
  totals_ = NfsOpTotals{};
}

void MountstatsScanner::Line(std::string_view line) {
  if (line.empty()) {  // the end of an NFS block
    Complete();
    return;
  }
  if (line[0] != ' ' && line[0] != '\t') {
    // "device SRC mounted on MOUNTPOINT with fstype TYPE ...": a new block.
    Complete();
    const std::string_view type = TokenAfter(line, " with fstype ");
    if (type != "nfs" && type != "nfs4") return;
    const std::string_view mount_point = TokenAfter(line, " mounted on ");
    for (size_t i = 0; i < count_; ++i) {
      if (!found_[i] && SameMountPoint(mount_point, mount_points_[i])) {
        current_ = static_cast<long>(i);
        break;
      }
    }
    return;
  }
  if (current_ < 0) return;
  std::string_view body = Trim(line);
  if (!in_ops_) {
    in_ops_ = body == "per-op statistics";
    return;
  }
  // "        READ: 120 120 0 15360 125829120 3 1450 1470 0".
  const std::string_view op = NextPart(&body, ':');
  uint64_t v[8];
  for (uint64_t& value : v) {
    if (!ParseUint(NextToken(&body), &value)) return;  // not an op line
  }
  totals_.ops += v[0];
  totals_.transmissions += v[1];
  totals_.major_timeouts += v[2];
  totals_.rtt_ms += v[6];
  totals_.execute_ms += v[7];
  if (Trim(op) == "READ") {
    totals_.read_ops += v[0];
    totals_.read_bytes += v[4];
    totals_.read_rtt_ms += v[6];
  }
}

void MountstatsScanner::End() { Complete(); }

size_t ParseMountstats(std::string_view text, bool complete,
                       const char* const* mount_points, size_t count,
                       NfsOpTotals* out, bool* found) {
  MountstatsScanner scanner(mount_points, count, out, found);
  while (!text.empty() && !scanner.all_found()) {
    const size_t end = text.find('\n');
    if (end == std::string_view::npos) {
      if (complete) scanner.Line(text);  // a last line without '\n'
      text = {};
      break;
    }
    scanner.Line(text.substr(0, end));
    text.remove_prefix(end + 1);
  }
  if (complete) scanner.End();
  size_t n = 0;
  for (size_t i = 0; i < count; ++i) n += found[i] ? 1 : 0;
  return n;
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
