#include "tests/e2e/trace_file.h"

#include <algorithm>
#include <filesystem>

#include "tests/e2e/child_process.h"

namespace feedprof::e2e {
namespace {

// Reads a varint at data[*pos]; false when the data ends first.
bool ReadVarint(const std::string& data, size_t* pos, uint64_t* value) {
  uint64_t result = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*pos >= data.size()) return false;
    const auto byte = static_cast<uint8_t>(data[(*pos)++]);
    result |= static_cast<uint64_t>(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) {
      *value = result;
      return true;
    }
  }
  return false;
}

std::string Lookup(const std::map<uint32_t, std::string>& strings,
                   uint32_t id) {
  if (id == 0) return "";
  auto it = strings.find(id);
  return it == strings.end() ? "<unresolved:" + std::to_string(id) + ">"
                             : it->second;
}

// Ids are resolved after the whole file is read: a string may be defined
// after a batch that uses it.
struct PendingIds {
  std::vector<std::pair<uint32_t, uint32_t>> range_ids;  // name, domain
  std::vector<std::pair<uint32_t, uint32_t>> mark_ids;
  std::vector<uint32_t> sample_name_ids;
  std::vector<trace::NvtxCategoryName> category_names;
};

void AddEvents(const trace::EventBatch& batch, TraceFile* trace,
               PendingIds* pending) {
  uint64_t ts = batch.base_ts_ns();
  for (const trace::NvtxRange& r : batch.ranges()) {
    ts += static_cast<uint64_t>(r.start_delta());
    Range range;
    range.tid = batch.tid();
    range.start_ns = ts;
    range.end_ns = ts + r.duration_ns();
    range.depth = r.depth();
    range.category = r.category();
    range.color = r.color();
    range.payload = r.payload();
    range.start_tid = r.start_tid();
    range.start_end = r.kind() == trace::RANGE_KIND_START_END;
    trace->ranges.push_back(range);
    pending->range_ids.emplace_back(r.name_id(), r.domain_id());
  }
  ts = batch.base_ts_ns();
  for (const trace::NvtxMark& m : batch.marks()) {
    ts += static_cast<uint64_t>(m.ts_delta());
    Mark mark;
    mark.tid = batch.tid();
    mark.ts_ns = ts;
    mark.category = m.category();
    mark.color = m.color();
    trace->marks.push_back(mark);
    pending->mark_ids.emplace_back(m.name_id(), m.domain_id());
  }
}

void AddSamples(const trace::HostSampleBatch& batch, TraceFile* trace,
                PendingIds* pending) {
  uint64_t ts = batch.base_ts_ns();
  for (const trace::ThreadSample& s : batch.threads()) {
    ts += static_cast<uint64_t>(s.ts_delta());
    ThreadSample sample;
    sample.tid = s.tid();
    sample.ts_ns = ts;
    sample.user_ns = s.user_ns();
    sample.system_ns = s.system_ns();
    trace->thread_samples.push_back(sample);
    pending->sample_name_ids.push_back(s.name_id());
  }
  ts = batch.base_ts_ns();
  for (const trace::ProcessSample& s : batch.process()) {
    ts += static_cast<uint64_t>(s.ts_delta());
    trace->process_samples.push_back({ts, s});
  }
}

}  // namespace

std::vector<Range> TraceFile::RangesNamed(const std::string& name,
                                          uint32_t tid) const {
  std::vector<Range> out;
  for (const Range& r : ranges) {
    if (r.name == name && (tid == 0 || r.tid == tid)) out.push_back(r);
  }
  return out;
}

std::vector<Mark> TraceFile::MarksNamed(const std::string& name) const {
  std::vector<Mark> out;
  for (const Mark& m : marks) {
    if (m.name == name) out.push_back(m);
  }
  return out;
}

uint64_t TraceFile::MaxThreadCpuNs(uint32_t tid) const {
  uint64_t best = 0;
  for (const ThreadSample& s : thread_samples) {
    if (s.tid == tid) best = std::max(best, s.user_ns + s.system_ns);
  }
  return best;
}

bool ReadTraceFile(const std::string& path, TraceFile* trace,
                   std::string* error) {
  if (!std::filesystem::is_regular_file(path)) {
    *error = "cannot open " + path;
    return false;
  }
  const std::string data = ReadWholeFile(path);
  *trace = TraceFile();
  trace->path = path;
  PendingIds pending;
  size_t pos = 0;
  while (pos < data.size()) {
    const size_t packet_begin = pos;
    uint64_t tag = 0;
    uint64_t length = 0;
    if (!ReadVarint(data, &pos, &tag) || !ReadVarint(data, &pos, &length) ||
        length > data.size() - pos) {
      trace->trailing_bytes = data.size() - packet_begin;
      break;
    }
    if (tag != 0x0A) {
      *error = path + ": unexpected tag " + std::to_string(tag) +
               " at offset " + std::to_string(packet_begin);
      return false;
    }
    trace::Packet packet;
    if (!packet.ParseFromArray(data.data() + pos, static_cast<int>(length))) {
      *error = path + ": packet at offset " + std::to_string(packet_begin) +
               " does not parse";
      return false;
    }
    pos += length;
    ++trace->packets;
    switch (packet.data_case()) {
      case trace::Packet::kHeader:
        trace->has_header = true;
        trace->header = packet.header();
        break;
      case trace::Packet::kStrings:
        for (const trace::InternedString& s : packet.strings().strings()) {
          trace->strings[s.id()] = s.value();
        }
        break;
      case trace::Packet::kEvents:
        AddEvents(packet.events(), trace, &pending);
        break;
      case trace::Packet::kHostSamples:
        AddSamples(packet.host_samples(), trace, &pending);
        break;
      case trace::Packet::kThread:
        // An empty name says nothing (the thread was gone when its name was
        // looked up); it must not hide a name given earlier.
        if (!packet.thread().name().empty() ||
            trace->thread_names.count(packet.thread().tid()) == 0) {
          trace->thread_names[packet.thread().tid()] = packet.thread().name();
        }
        break;
      case trace::Packet::kNvtxCategory:
        pending.category_names.push_back(packet.nvtx_category());
        break;
      case trace::Packet::kDrops:
        trace->has_drops = true;
        trace->drops = packet.drops();
        break;
      case trace::Packet::kFooter:
        trace->has_footer = true;
        trace->footer = packet.footer();
        break;
      default:
        break;
    }
  }
  for (size_t i = 0; i < trace->ranges.size(); ++i) {
    trace->ranges[i].name = Lookup(trace->strings, pending.range_ids[i].first);
    trace->ranges[i].domain =
        Lookup(trace->strings, pending.range_ids[i].second);
  }
  for (size_t i = 0; i < trace->marks.size(); ++i) {
    trace->marks[i].name = Lookup(trace->strings, pending.mark_ids[i].first);
    trace->marks[i].domain = Lookup(trace->strings, pending.mark_ids[i].second);
  }
  for (const trace::NvtxCategoryName& c : pending.category_names) {
    trace->category_names[{Lookup(trace->strings, c.domain_id()),
                           c.category()}] = Lookup(trace->strings, c.name_id());
  }
  for (size_t i = 0; i < trace->thread_samples.size(); ++i) {
    trace->thread_samples[i].name =
        Lookup(trace->strings, pending.sample_name_ids[i]);
  }
  return true;
}

std::vector<std::string> FindTraceFiles(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_regular_file() && it->path().extension() == ".fpt") {
      files.push_back(it->path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace feedprof::e2e
