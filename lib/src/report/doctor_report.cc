#include "report/doctor_report.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/json_writer.h"
#include "feedprof/doctor.h"
#include "report/platform_block.h"

namespace feedprof {
namespace {

const char* AreaTitle(const std::string& area) {
  if (area == "gpu") return "GPUs";
  if (area == "process") return "Process";
  if (area == "cpu") return "CPU";
  if (area == "memory") return "Memory";
  if (area == "storage") return "Storage";
  if (area == "nvml") return "Driver and NVML";
  return "Other";
}

std::string Summary(const PlatformReport& r) {
  return absl::StrCat(r.Count(PlatformStatus::kFail), " fail, ",
                      r.Count(PlatformStatus::kWarn), " warn, ",
                      r.Count(PlatformStatus::kOk), " ok, ",
                      r.Count(PlatformStatus::kUnknown), " unknown");
}

}  // namespace

std::string WriteDoctorText(const platform::DoctorResult& result) {
  const PlatformReport& r = result.report;
  std::string out = absl::StrCat(
      "feedprof doctor: ", r.source,
      result.hostname.empty() ? "" : absl::StrCat(" (", result.hostname, ")"),
      "\n");
  std::string area;
  for (const PlatformFinding& f : r.findings) {
    if (f.area != area) {
      area = f.area;
      absl::StrAppend(&out, "\n", AreaTitle(area), ":\n");
    }
    absl::StrAppend(&out, "  ", PlatformFindingLine(f), "\n");
  }
  absl::StrAppend(&out, "\n", Summary(r),
                  absl::StrFormat(" (%.2f s); exit code %d\n", result.elapsed_s,
                                  platform::DoctorExitCode(r)));
  return out;
}

std::string WriteDoctorJson(const platform::DoctorResult& result) {
  const PlatformReport& r = result.report;
  common::JsonWriter w(common::JsonWriter::Style::kPretty);
  w.BeginObject();
  w.Key("schema").String(kDoctorSchema);
  w.Key("source").String(r.source);
  w.Key("hostname").String(result.hostname);
  w.Key("elapsed_s").Double(result.elapsed_s);
  w.Key("exit_code").Int(platform::DoctorExitCode(r));
  w.Key("summary").BeginObject();
  for (PlatformStatus s : {PlatformStatus::kOk, PlatformStatus::kWarn,
                           PlatformStatus::kFail, PlatformStatus::kUnknown}) {
    w.Key(PlatformStatusName(s)).Uint(r.Count(s));
  }
  w.EndObject();
  w.Key("checks");
  WritePlatformFindingsJson(r.findings, w);
  w.EndObject();
  std::string out = w.str();
  out.push_back('\n');
  return out;
}

DoctorOutcome RunDoctorChecks(const DoctorOptions& options,
                              DoctorFormat format) {
  platform::DoctorOptions run;
  run.read.pid = options.pid;
  run.read.data_paths = options.data_paths;
  const platform::DoctorResult result = platform::RunDoctor(run);
  DoctorOutcome outcome;
  outcome.output = format == DoctorFormat::kJson ? WriteDoctorJson(result)
                                                 : WriteDoctorText(result);
  outcome.exit_code = platform::DoctorExitCode(result.report);
  outcome.report = result.report;
  return outcome;
}

}  // namespace feedprof
