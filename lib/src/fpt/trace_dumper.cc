#include <cctype>
#include <initializer_list>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/json_writer.h"
#include "feedprof/trace_dump.h"
#include "fpt/api_call_correlation.h"
#include "fpt/packet_stream.h"
#include "fpt/trace_files.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "timeline/cuda_names.h"

namespace feedprof::fpt {
namespace {

using common::JsonWriter;
using google::protobuf::EnumValueDescriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// Delta decoding with wrapping arithmetic, so damaged deltas stay defined.
int64_t AddDelta(int64_t previous, int64_t delta) {
  return static_cast<int64_t>(static_cast<uint64_t>(previous) +
                              static_cast<uint64_t>(delta));
}

// Interned strings of one file section (Header to Header).
using SectionStrings = std::unordered_map<uint32_t, std::string>;

// Output is handed to stdio in chunks of about this size.
constexpr size_t kFlushBytes = 1 << 20;

// Fields holding an interned-string id; printed as the text under the name
// without "_id".
bool IsStringRef(const FieldDescriptor& field) {
  const std::string& name = field.name();
  return field.cpp_type() == FieldDescriptor::CPPTYPE_UINT32 &&
         !field.is_repeated() &&
         (name == "name_id" || name == "domain_id" || name == "file_id" ||
          name == "function_id");
}

// "CopyKind" -> "COPY_KIND_": the prefix proto enum values carry.
std::string EnumValuePrefix(std::string_view type_name) {
  std::string prefix;
  for (size_t i = 0; i < type_name.size(); ++i) {
    const auto c = static_cast<unsigned char>(type_name[i]);
    if (i > 0 && std::isupper(c)) prefix.push_back('_');
    prefix.push_back(static_cast<char>(std::toupper(c)));
  }
  prefix.push_back('_');
  return prefix;
}

// Where a section begins: at a Header that follows other packets (files
// concatenate, so one file may hold several processes).
class SectionTracker {
 public:
  // Returns the index of the section `packet` belongs to.
  size_t Advance(const trace::Packet& packet) {
    if (packet.has_header() && seen_packet_) ++index_;
    seen_packet_ = true;
    return index_;
  }

 private:
  size_t index_ = 0;
  bool seen_packet_ = false;
};

// Prints the packets of one file.
class FileDumper {
 public:
  FileDumper(std::string file, const std::vector<SectionStrings>* strings,
             std::FILE* out, DumpSummary* summary)
      : file_(std::move(file)),
        strings_(strings),
        out_(out),
        summary_(summary),
        json_(&buffer_) {}

  // False when writing failed.
  bool Dump(PacketStreamReader& stream) {
    SectionTracker sections;
    while (const trace::Packet* packet = stream.Next()) {
      section_ = sections.Advance(*packet);
      DumpPacket(*packet);
      if (buffer_.size() >= kFlushBytes && !Flush()) return false;
    }
    return Flush();
  }

 private:
  bool Flush() {
    if (!buffer_.empty() && std::fwrite(buffer_.data(), 1, buffer_.size(),
                                        out_) != buffer_.size()) {
      return false;
    }
    buffer_.clear();
    return std::ferror(out_) == 0;
  }

  std::string_view Text(uint32_t id) {
    if (id == 0) return {};
    if (section_ < strings_->size()) {
      const SectionStrings& table = (*strings_)[section_];
      if (auto it = table.find(id); it != table.end()) return it->second;
    }
    unknown_ = absl::StrFormat("<unknown string #%d>", id);
    return unknown_;
  }

  std::string_view EnumName(const EnumValueDescriptor& value) {
    auto [it, inserted] = enum_names_.try_emplace(&value);
    if (inserted) {
      std::string_view name = value.name();
      const std::string prefix = EnumValuePrefix(value.type()->name());
      if (name.substr(0, prefix.size()) == prefix) {
        name.remove_prefix(prefix.size());
      }
      for (char c : name) {
        it->second.push_back(
            static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
      }
    }
    return it->second;
  }

  void BeginLine(std::string_view type, int64_t tid) {
    json_.BeginObject();
    json_.Key("type").String(type);
    json_.Key("pid").Uint(pid_);
    json_.Key("tid").Int(tid);
  }

  void EndLine() {
    json_.EndObject();
    buffer_.push_back('\n');
    ++summary_->lines;
  }

  void Value(const Message& m, const FieldDescriptor& f) {
    const Reflection& r = *m.GetReflection();
    switch (f.cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32:
        json_.Int(r.GetInt32(m, &f));
        break;
      case FieldDescriptor::CPPTYPE_INT64:
        json_.Int(r.GetInt64(m, &f));
        break;
      case FieldDescriptor::CPPTYPE_UINT32:
        json_.Uint(r.GetUInt32(m, &f));
        break;
      case FieldDescriptor::CPPTYPE_UINT64:
        json_.Uint(r.GetUInt64(m, &f));
        break;
      case FieldDescriptor::CPPTYPE_DOUBLE:
        json_.Double(r.GetDouble(m, &f));
        break;
      case FieldDescriptor::CPPTYPE_FLOAT:
        json_.Double(r.GetFloat(m, &f));
        break;
      case FieldDescriptor::CPPTYPE_BOOL:
        json_.Bool(r.GetBool(m, &f));
        break;
      case FieldDescriptor::CPPTYPE_ENUM:
        json_.String(EnumName(*r.GetEnum(m, &f)));
        break;
      case FieldDescriptor::CPPTYPE_STRING: {
        std::string scratch;
        json_.String(r.GetStringReference(m, &f, &scratch));
        break;
      }
      case FieldDescriptor::CPPTYPE_MESSAGE:
        Object(r.GetMessage(m, &f), {});
        break;
    }
  }

  void RepeatedValue(const Message& m, const FieldDescriptor& f, int i) {
    const Reflection& r = *m.GetReflection();
    switch (f.cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32:
        json_.Int(r.GetRepeatedInt32(m, &f, i));
        break;
      case FieldDescriptor::CPPTYPE_INT64:
        json_.Int(r.GetRepeatedInt64(m, &f, i));
        break;
      case FieldDescriptor::CPPTYPE_UINT32:
        json_.Uint(r.GetRepeatedUInt32(m, &f, i));
        break;
      case FieldDescriptor::CPPTYPE_UINT64:
        json_.Uint(r.GetRepeatedUInt64(m, &f, i));
        break;
      case FieldDescriptor::CPPTYPE_DOUBLE:
        json_.Double(r.GetRepeatedDouble(m, &f, i));
        break;
      case FieldDescriptor::CPPTYPE_FLOAT:
        json_.Double(r.GetRepeatedFloat(m, &f, i));
        break;
      case FieldDescriptor::CPPTYPE_BOOL:
        json_.Bool(r.GetRepeatedBool(m, &f, i));
        break;
      case FieldDescriptor::CPPTYPE_ENUM:
        json_.String(EnumName(*r.GetRepeatedEnum(m, &f, i)));
        break;
      case FieldDescriptor::CPPTYPE_STRING: {
        std::string scratch;
        json_.String(r.GetRepeatedStringReference(m, &f, i, &scratch));
        break;
      }
      case FieldDescriptor::CPPTYPE_MESSAGE:
        Object(r.GetRepeatedMessage(m, &f, i), {});
        break;
    }
  }

  // Every field of `m` but those in `skip`, defaults included, so all
  // lines of one type have the same keys.
  void Fields(const Message& m, std::initializer_list<std::string_view> skip) {
    const auto& descriptor = *m.GetDescriptor();
    const Reflection& r = *m.GetReflection();
    for (int i = 0; i < descriptor.field_count(); ++i) {
      const FieldDescriptor& f = *descriptor.field(i);
      bool skipped = false;
      for (std::string_view s : skip) skipped = skipped || f.name() == s;
      if (skipped) continue;
      if (IsStringRef(f)) {
        std::string_view key = f.name();
        key.remove_suffix(3);  // "_id"
        json_.Key(key).String(Text(r.GetUInt32(m, &f)));
        continue;
      }
      json_.Key(f.name());
      if (f.is_repeated()) {
        json_.BeginArray();
        const int n = r.FieldSize(m, &f);
        for (int k = 0; k < n; ++k) RepeatedValue(m, f, k);
        json_.EndArray();
      } else {
        Value(m, f);
      }
    }
  }

  void Object(const Message& m, std::initializer_list<std::string_view> skip) {
    json_.BeginObject();
    Fields(m, skip);
    json_.EndObject();
  }

  // An event with a decoded time: the common keys first, then the rest.
  // `correlation`: a decoded correlation id written as "correlation_id"
  // (API calls, whose ids may be delta-encoded); none when negative.
  void EventLine(std::string_view type, int64_t tid, int64_t ts,
                 const Message& event, std::string_view name,
                 std::initializer_list<std::string_view> skip,
                 int64_t correlation = -1) {
    BeginLine(type, tid);
    json_.Key("ts_ns").Int(ts);
    const auto* duration =
        event.GetDescriptor()->FindFieldByName("duration_ns");
    if (duration != nullptr) {
      json_.Key("dur_ns").Uint(
          event.GetReflection()->GetUInt64(event, duration));
    }
    json_.Key("name").String(name);
    if (correlation >= 0) {
      json_.Key("correlation_id").Uint(static_cast<uint64_t>(correlation));
    }
    Fields(event, skip);
    EndLine();
  }

  void DumpPacket(const trace::Packet& packet) {
    switch (packet.data_case()) {
      case trace::Packet::kHeader:
        HeaderLine(packet.header());
        break;
      case trace::Packet::kEvents:
        EventLines(packet.events());
        break;
      case trace::Packet::kHostSamples:
        HostSampleLines(packet.host_samples());
        break;
      case trace::Packet::kCounters: {
        int64_t ts = static_cast<int64_t>(packet.counters().base_ts_ns());
        for (const trace::CounterSample& s : packet.counters().samples()) {
          ts = AddDelta(ts, s.ts_delta());
          EventLine("counter", 0, ts, s, Text(s.name_id()),
                    {"ts_delta", "name_id"});
        }
        break;
      }
      case trace::Packet::kDrops:
        BeginLine("drops", 0);
        Fields(packet.drops(), {});
        EndLine();
        break;
      case trace::Packet::kDevice:
        BeginLine("device", 0);
        Fields(packet.device(), {});
        EndLine();
        break;
      case trace::Packet::kThread:
        BeginLine("thread", packet.thread().tid());
        json_.Key("name").String(packet.thread().name());
        Fields(packet.thread(), {"tid", "name"});
        EndLine();
        break;
      case trace::Packet::kClock:
        BeginLine("clock", 0);
        json_.Key("ts_ns").Uint(packet.clock().monotonic_ns());
        Fields(packet.clock(), {});
        EndLine();
        break;
      case trace::Packet::kFooter:
        BeginLine("footer", 0);
        json_.Key("ts_ns").Uint(packet.footer().end_ns());
        Fields(packet.footer(), {});
        EndLine();
        break;
      case trace::Packet::kCallSites:
        for (const trace::CallSite& site : packet.call_sites().call_sites()) {
          BeginLine("call_site", 0);
          Fields(site, {});
          EndLine();
        }
        // The modules native frames point into, with their build ids.
        for (const trace::NativeModule& module :
             packet.call_sites().modules()) {
          BeginLine("native_module", 0);
          json_.Key("path").String(Text(module.path_id()));
          json_.Key("build_id")
              .String(absl::BytesToHexString(module.build_id()));
          EndLine();
        }
        break;
      case trace::Packet::kStrings:
        // Resolved into the names of the lines that use them.
        break;
      case trace::Packet::DATA_NOT_SET:
        // A packet kind from a newer writer.
        BeginLine("unknown_packet", 0);
        json_.Key("bytes").Uint(packet.ByteSizeLong());
        EndLine();
        break;
      default:
        // Kinds without a line of their own (NVTX category names, ...):
        // the type is the packet field's name, the fields all of its own.
        GenericLine(packet);
        break;
    }
  }

  void GenericLine(const trace::Packet& packet) {
    const Reflection& r = *packet.GetReflection();
    const FieldDescriptor* field = r.GetOneofFieldDescriptor(
        packet, trace::Packet::descriptor()->FindOneofByName("data"));
    if (field == nullptr ||
        field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) {
      return;
    }
    BeginLine(field->name(), 0);
    Fields(r.GetMessage(packet, field), {});
    EndLine();
  }

  void HeaderLine(const trace::Header& header) {
    pid_ = header.pid();
    json_.BeginObject();
    json_.Key("type").String("header");
    json_.Key("file").String(file_);
    json_.Key("pid").Uint(header.pid());
    json_.Key("tid").Uint(header.pid());  // the main thread
    json_.Key("rank").Int(header.rank());
    json_.Key("hostname").String(header.hostname());
    json_.Key("argv").BeginArray();
    for (const std::string& arg : header.argv()) json_.String(arg);
    json_.EndArray();
    json_.Key("platform");
    Object(header.platform(), {});
    Fields(header, {"pid", "rank", "hostname", "argv", "platform"});
    EndLine();
  }

  void EventLines(const trace::EventBatch& batch) {
    const auto base = static_cast<int64_t>(batch.base_ts_ns());
    const int64_t tid = batch.tid();
    int64_t ts = base;
    ApiCallCorrelationChain correlations(batch);
    for (const trace::ApiCall& e : batch.api_calls()) {
      ts = AddDelta(ts, e.start_delta());
      EventLine("api_call", tid, ts, e, Text(e.name_id()),
                {"start_delta", "duration_ns", "name_id", "correlation_id",
                 "correlation_delta"},
                static_cast<int64_t>(correlations.Next(e)));
    }
    ts = base;
    for (const trace::NvtxRange& e : batch.ranges()) {
      ts = AddDelta(ts, e.start_delta());
      EventLine("nvtx_range", tid, ts, e, Text(e.name_id()),
                {"start_delta", "duration_ns", "name_id"});
    }
    ts = base;
    for (const trace::NvtxMark& e : batch.marks()) {
      ts = AddDelta(ts, e.ts_delta());
      EventLine("nvtx_mark", tid, ts, e, Text(e.name_id()),
                {"ts_delta", "name_id"});
    }
    ts = base;
    for (const trace::Kernel& e : batch.kernels()) {
      ts = AddDelta(ts, e.start_delta());
      EventLine("kernel", tid, ts, e, Text(e.name_id()),
                {"start_delta", "duration_ns", "name_id"});
    }
    ts = base;
    for (const trace::Memcpy& e : batch.memcpys()) {
      ts = AddDelta(ts, e.start_delta());
      const std::string name =
          absl::StrFormat("Memcpy %s", CopyKindLabel(e.copy_kind()));
      EventLine("memcpy", tid, ts, e, name, {"start_delta", "duration_ns"});
    }
    ts = base;
    for (const trace::Memset& e : batch.memsets()) {
      ts = AddDelta(ts, e.start_delta());
      EventLine("memset", tid, ts, e, "Memset", {"start_delta", "duration_ns"});
    }
    ts = base;
    for (const trace::SyncRecord& e : batch.syncs()) {
      ts = AddDelta(ts, e.start_delta());
      EventLine("sync", tid, ts, e,
                EnumName(*trace::SyncType_descriptor()->FindValueByNumber(
                    trace::SyncType_IsValid(e.type()) ? e.type() : 0)),
                {"start_delta", "duration_ns"});
    }
    ts = base;
    for (const trace::OverheadRecord& e : batch.overheads()) {
      ts = AddDelta(ts, e.start_delta());
      EventLine("overhead", tid, ts, e, "overhead",
                {"start_delta", "duration_ns"});
    }
    ts = base;
    for (const trace::MemoryRecord& e : batch.memory()) {
      ts = AddDelta(ts, e.ts_delta());
      EventLine("memory", tid, ts, e, e.is_free() ? "free" : "alloc",
                {"ts_delta"});
    }
    for (const trace::ExternalCorrelation& e : batch.external_correlations()) {
      BeginLine("external_correlation", tid);
      Fields(e, {});
      EndLine();
    }
  }

  static std::string_view CopyKindLabel(int kind) {
    const std::string_view label =
        kind > 0 && kind <= static_cast<int>(CopyKind::kPtoP)
            ? timeline::CopyKindLabel(static_cast<CopyKind>(kind))
            : std::string_view();
    return label.empty() ? "unknown" : label;
  }

  void HostSampleLines(const trace::HostSampleBatch& batch) {
    const auto base = static_cast<int64_t>(batch.base_ts_ns());
    int64_t ts = base;
    for (const trace::ThreadSample& e : batch.threads()) {
      ts = AddDelta(ts, e.ts_delta());
      EventLine("thread_sample", e.tid(), ts, e, Text(e.name_id()),
                {"ts_delta", "tid", "name_id"});
    }
    ts = base;
    for (const trace::ProcessSample& e : batch.process()) {
      ts = AddDelta(ts, e.ts_delta());
      EventLine("process_sample", 0, ts, e, "process", {"ts_delta"});
    }
    ts = base;
    for (const trace::SystemSample& e : batch.system()) {
      ts = AddDelta(ts, e.ts_delta());
      EventLine("system_sample", 0, ts, e, "system", {"ts_delta"});
    }
    ts = base;
    for (const trace::DiskSample& e : batch.disks()) {
      ts = AddDelta(ts, e.ts_delta());
      EventLine("disk_sample", 0, ts, e, Text(e.device_id()),
                {"ts_delta", "device_id"});
    }
    ts = base;
    for (const trace::NfsSample& e : batch.nfs()) {
      ts = AddDelta(ts, e.ts_delta());
      EventLine("nfs_sample", 0, ts, e, Text(e.mount_point_id()),
                {"ts_delta", "mount_point_id"});
    }
  }

  std::string file_;
  const std::vector<SectionStrings>* strings_;
  std::FILE* out_;
  DumpSummary* summary_;
  std::string buffer_;
  JsonWriter json_;
  std::string unknown_;
  std::unordered_map<const EnumValueDescriptor*, std::string> enum_names_;
  size_t section_ = 0;
  uint32_t pid_ = 0;
};

// First pass over a file: the interned strings of each section, so names
// print right even where a string is defined after its first use.
std::vector<SectionStrings> CollectStrings(PacketStreamReader& stream) {
  std::vector<SectionStrings> sections(1);
  SectionTracker tracker;
  while (const trace::Packet* packet = stream.Next()) {
    const size_t section = tracker.Advance(*packet);
    if (section >= sections.size()) sections.resize(section + 1);
    if (!packet->has_strings()) continue;
    for (const trace::InternedString& s : packet->strings().strings()) {
      sections[section][s.id()] = s.value();
    }
  }
  return sections;
}

}  // namespace
}  // namespace feedprof::fpt

namespace feedprof {

absl::StatusOr<DumpSummary> DumpTraceAsJsonLines(const std::string& path,
                                                 std::FILE* out) {
  // The packets' readers and writers of this file.
  using namespace fpt;  // NOLINT(google-build-using-namespace)
  absl::StatusOr<std::vector<std::string>> files = ListTraceFiles(path);
  if (!files.ok()) return files.status();

  DumpSummary summary;
  std::vector<std::string> unreadable;
  for (const std::string& file : *files) {
    absl::StatusOr<std::unique_ptr<PacketStreamReader>> first_pass =
        PacketStreamReader::Open(file);
    if (!first_pass.ok()) {
      if (files->size() == 1) return first_pass.status();
      unreadable.push_back(std::string(first_pass.status().message()));
      continue;
    }
    const std::vector<SectionStrings> strings = CollectStrings(**first_pass);
    if ((*first_pass)->packets_read() == 0) {
      unreadable.push_back((*first_pass)->NoPacketError());
      continue;
    }

    absl::StatusOr<std::unique_ptr<PacketStreamReader>> stream =
        PacketStreamReader::Open(file);
    if (!stream.ok()) return stream.status();
    FileDumper dumper(file, &strings, out, &summary);
    if (!dumper.Dump(**stream)) {
      return absl::UnavailableError(absl::StrFormat(
          "writing the dump of %s failed (disk full or closed pipe?)", file));
    }
    ++summary.files;
    summary.packets += (*stream)->packets_read();
    if (std::string damage = (*stream)->DamageWarning(); !damage.empty()) {
      summary.warnings.push_back(std::move(damage));
    }
    if ((*stream)->repaired_packets() > 0) {
      summary.warnings.push_back(absl::StrFormat(
          "%s: %d packets held names that are not valid UTF-8; the invalid "
          "bytes are shown as U+FFFD",
          file, (*stream)->repaired_packets()));
    }
  }
  if (summary.packets == 0) {
    return absl::InvalidArgumentError(absl::StrJoin(unreadable, "\n"));
  }
  for (std::string& reason : unreadable) {
    summary.warnings.push_back(reason + " (skipped)");
  }
  return summary;
}

}  // namespace feedprof
