#include "report/platform_block.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "report/svg_plot.h"

namespace feedprof {
namespace {

std::string Counts(const PlatformReport& p) {
  return absl::StrCat(p.Count(PlatformStatus::kFail), " fail, ",
                      p.Count(PlatformStatus::kWarn), " warn, ",
                      p.Count(PlatformStatus::kOk), " ok, ",
                      p.Count(PlatformStatus::kUnknown), " unknown");
}

// "gpu_numa (GPU0 0000:3b:00.0)" for a list line.
std::string Named(const PlatformFinding& f) {
  return f.subject.empty() ? f.check
                           : absl::StrCat(f.check, " (", f.subject, ")");
}

}  // namespace

std::string PlatformFindingLine(const PlatformFinding& f) {
  std::string line =
      absl::StrFormat("%-8s%-18s ", PlatformStatusName(f.status), f.check);
  if (!f.subject.empty()) absl::StrAppend(&line, f.subject, ": ");
  absl::StrAppend(&line, f.value);
  if (!f.meaning.empty()) absl::StrAppend(&line, " — ", f.meaning);
  if (!f.action.empty()) absl::StrAppend(&line, " → ", f.action);
  return line;
}

void WritePlatformFindingsJson(const std::vector<PlatformFinding>& findings,
                               common::JsonWriter& w) {
  w.BeginArray();
  for (const PlatformFinding& f : findings) {
    w.BeginObject();
    w.Key("check").String(f.check);
    w.Key("area").String(f.area);
    w.Key("subject");
    if (f.subject.empty()) {
      w.Null();
    } else {
      w.String(f.subject);
    }
    w.Key("status").String(PlatformStatusName(f.status));
    w.Key("value").String(f.value);
    w.Key("meaning").String(f.meaning);
    w.Key("action");
    if (f.action.empty()) {
      w.Null();
    } else {
      w.String(f.action);
    }
    w.EndObject();
  }
  w.EndArray();
}

void AppendPlatformText(const Report& report, bool details, std::string* out) {
  const PlatformReport& p = report.platform;
  if (p.findings.empty()) return;
  absl::StrAppend(out, "\nPlatform (", p.source, "): ", Counts(p), "\n");
  std::vector<std::string> ok;
  // Unknown checks grouped by their reason, in order of first appearance:
  // an input that records none of them says so once.
  std::vector<std::pair<std::string, std::vector<std::string>>> unknown;
  for (const PlatformFinding& f : p.findings) {
    if (f.status == PlatformStatus::kUnknown) {
      auto it =
          std::find_if(unknown.begin(), unknown.end(),
                       [&](const auto& u) { return u.first == f.meaning; });
      if (it == unknown.end()) {
        unknown.push_back({f.meaning, {}});
        it = unknown.end() - 1;
      }
      it->second.push_back(Named(f));
    } else if (f.status != PlatformStatus::kOk || details) {
      absl::StrAppend(out, "  ", PlatformFindingLine(f), "\n");
    } else {
      ok.push_back(Named(f));
    }
  }
  if (!ok.empty()) {
    absl::StrAppend(out, "  ok: ", absl::StrJoin(ok, ", "), "\n");
  }
  for (const auto& [why, names] : unknown) {
    absl::StrAppend(out, "  unknown: ", absl::StrJoin(names, ", "), " — ", why,
                    "\n");
  }
}

void WritePlatformJson(const Report& report, common::JsonWriter& w) {
  const PlatformReport& p = report.platform;
  w.Key("platform").BeginObject();
  w.Key("source").String(p.source);
  w.Key("summary").BeginObject();
  for (PlatformStatus s : {PlatformStatus::kOk, PlatformStatus::kWarn,
                           PlatformStatus::kFail, PlatformStatus::kUnknown}) {
    w.Key(PlatformStatusName(s)).Uint(p.Count(s));
  }
  w.EndObject();
  w.Key("findings");
  WritePlatformFindingsJson(p.findings, w);
  w.EndObject();
}

void AppendPlatformHtml(const Report& report, std::string* out) {
  const PlatformReport& p = report.platform;
  if (p.findings.empty()) return;
  const size_t fails = p.Count(PlatformStatus::kFail);
  const size_t warns = p.Count(PlatformStatus::kWarn);
  absl::StrAppend(
      out, "<h2>Platform</h2><section class=\"card ",
      fails > 0 ? "bad" : (warns > 0 ? "neutral" : "good"),
      "\" id=\"platform\" data-fail=\"", fails, "\" data-warn=\"", warns,
      "\"><p>", report::Escaped(p.source), ": ", Counts(p),
      ".</p><table><tr><th>status</th><th>check</th><th>about</th>"
      "<th>measured</th><th>what it means</th><th>what to do</th></tr>");
  for (const PlatformFinding& f : p.findings) {
    const char* status = PlatformStatusName(f.status);
    absl::StrAppend(
        out, "<tr data-check=\"", report::Escaped(f.check), "\" data-status=\"",
        status, "\"><td>",
        f.status == PlatformStatus::kFail || f.status == PlatformStatus::kWarn
            ? absl::StrCat("<b>", status, "</b>")
            : std::string(status),
        "</td><td>", report::Escaped(f.check), "</td><td>",
        report::Escaped(f.subject), "</td><td>", report::Escaped(f.value),
        "</td><td>", report::Escaped(f.meaning), "</td><td>",
        report::Escaped(f.action), "</td></tr>");
  }
  out->append("</table></section>");
}

}  // namespace feedprof
