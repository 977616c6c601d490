// LoadTrace / DetectTraceFormat: content first (magic bytes, a feedprof
// header packet, a JSON opening brace), the file name second, then the
// reader of that format. A directory is a feedprof session or the Kineto
// traces of a multi-rank run (ingest/trace_directory.h).
#include "feedprof/trace_loader.h"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/file_magic.h"
#include "common/input_file.h"
#include "feedprof.pb.h"
#include "feedprof/kineto_reader.h"
#include "feedprof/nsight_reader.h"
#include "feedprof/trace_reader.h"
#include "fpt/string_field_repair.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/stubs/logging.h"
#include "ingest/kineto_directory_reader.h"
#include "ingest/trace_directory.h"

namespace feedprof {
namespace {

// Enough to hold a feedprof header packet whole in most traces.
constexpr size_t kSniffBytes = 64 << 10;
constexpr char kSupportedFormats[] =
    "feedprof reads: feedprof traces (a session directory or *.fpt file from "
    "'feedprof record'), PyTorch profiler / Kineto Chrome-trace JSON (.json "
    "or .json.gz), and Nsight Systems SQLite exports ('nsys export --type "
    "sqlite')";

// A feedprof file starts with Trace.packet (0x0A, length) holding
// Packet.header (0x0A, length). When the whole first packet was read it must
// also parse and hold a header; a header whose strings are not valid UTF-8
// (argv in a legacy encoding) still counts, as the reader repairs those.
// libprotobuf's own complaint about such strings is kept off stderr.
bool LooksLikeFeedprof(std::string_view bytes) {
  if (bytes.size() < 3 || bytes[0] != '\x0A') return false;
  google::protobuf::io::CodedInputStream in(
      reinterpret_cast<const uint8_t*>(bytes.data()) + 1,
      static_cast<int>(bytes.size() - 1));
  uint64_t length = 0;
  if (!in.ReadVarint64(&length)) return false;
  const auto offset = static_cast<size_t>(1 + in.CurrentPosition());
  if (offset >= bytes.size() || bytes[offset] != '\x0A') return false;
  if (length > bytes.size() - offset) return true;  // header not all read
  const std::string_view first_packet = bytes.substr(offset, length);
  google::protobuf::LogSilencer quiet;
  trace::Packet packet;
  if (packet.ParseFromArray(first_packet.data(),
                            static_cast<int>(first_packet.size()))) {
    return packet.has_header();
  }
  std::string repaired;
  return fpt::RepairStringFields(*trace::Packet::descriptor(), first_packet,
                                 &repaired) > 0 &&
         packet.ParseFromString(repaired) && packet.has_header();
}

std::string FirstBytesForHumans(std::string_view bytes) {
  const std::string_view head = bytes.substr(0, 16);
  std::string hex;
  std::string text;
  for (char c : head) {
    absl::StrAppendFormat(&hex, "%s%02x", hex.empty() ? "" : " ",
                          static_cast<unsigned char>(c));
    text.push_back(std::isprint(static_cast<unsigned char>(c)) ? c : '.');
  }
  return absl::StrFormat("%s \"%s\"", hex, text);
}

DetectedFormat ByExtension(const std::string& path) {
  if (absl::EndsWith(path, ".fpt")) {
    return {SourceFormat::kFeedprof, "file extension .fpt"};
  }
  if (absl::EndsWith(path, ".json") || absl::EndsWith(path, ".json.gz")) {
    return {SourceFormat::kKineto, "file extension .json/.json.gz"};
  }
  if (absl::EndsWith(path, ".sqlite") || absl::EndsWith(path, ".sqlite3")) {
    return {SourceFormat::kNsight, "file extension .sqlite"};
  }
  return {};
}

}  // namespace

absl::StatusOr<DetectedFormat> DetectTraceFormat(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    absl::StatusOr<ingest::TraceDirectory> directory =
        ingest::ListTraceDirectory(path);
    if (!directory.ok()) return directory.status();
    switch (directory->format) {
      case SourceFormat::kKineto:
        return DetectedFormat{
            SourceFormat::kKineto,
            absl::StrFormat("a directory of %d Kineto JSON traces",
                            directory->files.size())};
      case SourceFormat::kNsight:
        return DetectedFormat{SourceFormat::kNsight,
                              "a directory of Nsight Systems exports"};
      case SourceFormat::kFeedprof:
      case SourceFormat::kUnknown:
        break;
    }
    return DetectedFormat{SourceFormat::kFeedprof,
                          "a directory (feedprof session)"};
  }
  // Opened as the readers open it, so a missing or unreadable file and a
  // pipe, socket or device get their words; a pipe is refused without
  // waiting for a writer.
  absl::StatusOr<common::InputFile> file = common::InputFile::Open(path);
  if (!file.ok()) return file.status();
  std::string bytes(kSniffBytes, '\0');
  const int64_t bytes_read = file->ReadAt(0, bytes.data(), bytes.size());
  if (bytes_read < 0) {
    return absl::DataLossError(absl::StrFormat(
        "%s: cannot read: %s; check that the file and the disk holding it "
        "are readable",
        path, std::strerror(errno)));
  }
  bytes.resize(static_cast<size_t>(bytes_read));

  if (common::StartsWithSqliteMagic(bytes)) {
    return DetectedFormat{SourceFormat::kNsight, "SQLite header"};
  }
  if (bytes.starts_with(common::kRankDigestMagic)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s is a rank digest, not a trace: 'feedprof analyze' and "
        "'feedprof report' read digests (docs/cluster.md); this command "
        "needs the rank's trace itself",
        path));
  }
  if (common::StartsWithGzipMagic(bytes)) {
    return DetectedFormat{SourceFormat::kKineto, "gzip magic bytes"};
  }
  if (LooksLikeFeedprof(bytes)) {
    return DetectedFormat{SourceFormat::kFeedprof,
                          "starts with a feedprof header packet"};
  }
  const size_t first = bytes.find_first_not_of(" \t\r\n");
  if (first != std::string::npos &&
      (bytes[first] == '{' || bytes[first] == '[')) {
    return DetectedFormat{SourceFormat::kKineto, "starts like JSON"};
  }
  if (DetectedFormat by_name = ByExtension(path);
      by_name.format != SourceFormat::kUnknown) {
    return by_name;
  }
  if (bytes.empty()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: the file is empty, so its format cannot be told; pass a trace "
        "file that holds data. %s",
        path, kSupportedFormats));
  }
  return absl::InvalidArgumentError(
      absl::StrFormat("%s: unrecognised trace format (first bytes: %s). %s",
                      path, FirstBytesForHumans(bytes), kSupportedFormats));
}

namespace {

// A directory: a feedprof session, or the Kineto traces of a multi-rank
// run, each read file by file in parallel.
absl::StatusOr<Timeline> LoadTraceDirectory(const std::string& path) {
  absl::StatusOr<ingest::TraceDirectory> directory =
      ingest::ListTraceDirectory(path);
  if (!directory.ok()) return directory.status();
  switch (directory->format) {
    case SourceFormat::kKineto:
      return ingest::ReadKinetoDirectory(path, directory->files);
    case SourceFormat::kNsight: {
      std::vector<std::string> names;
      for (const std::string& file : directory->files) {
        names.push_back(std::filesystem::path(file).filename().string());
        if (names.size() == 3) break;
      }
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: the directory holds Nsight Systems exports (%s%s), which are "
          "read one file at a time; pass one of those files",
          path, absl::StrJoin(names, ", "),
          directory->files.size() > names.size() ? ", ..." : ""));
    }
    case SourceFormat::kFeedprof:
    case SourceFormat::kUnknown:
      break;
  }
  // No trace at all gets the session reader's words for that.
  return ReadFeedprofTrace(path);
}

}  // namespace

absl::StatusOr<Timeline> LoadTrace(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    return LoadTraceDirectory(path);
  }
  absl::StatusOr<DetectedFormat> detected = DetectTraceFormat(path);
  if (!detected.ok()) return detected.status();

  absl::StatusOr<Timeline> timeline;
  switch (detected->format) {
    case SourceFormat::kFeedprof:
      timeline = ReadFeedprofTrace(path);
      break;
    case SourceFormat::kKineto:
      timeline = ReadKinetoTrace(path);
      break;
    case SourceFormat::kNsight:
      timeline = ReadNsightTrace(path);
      break;
    case SourceFormat::kUnknown:
      return absl::InternalError(
          absl::StrFormat("%s: format detection returned no format", path));
  }
  if (timeline.ok()) {
    if (timeline->format == SourceFormat::kUnknown) {
      timeline->format = detected->format;
    }
    if (timeline->source_path.empty()) timeline->source_path = path;
  }
  return timeline;
}

}  // namespace feedprof
