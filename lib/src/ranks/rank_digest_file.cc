#include "ranks/rank_digest_file.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "digest.pb.h"

namespace feedprof::ranks {
namespace {

constexpr uint32_t kDigestVersion = 1;

void Encode(const RankSummary& s, digest::RankDigest* d) {
  d->set_rank(s.rank);
  for (int32_t pid : s.pids) d->add_pids(pid);
  const RankReport& f = s.figures;
  d->set_span_ns(f.span_ns);
  d->set_busy_ns(f.busy_ns);
  d->set_idle_share(f.idle_share);
  d->set_median_step_ns(f.median_step_ns);
  d->set_sync_blocked_ns(f.sync_blocked_ns);
  d->set_communication_ns(f.communication_ns);
  d->set_exposed_communication_ns(f.exposed_communication_ns);
  d->set_verdict(static_cast<uint32_t>(s.verdict));
  for (const std::string& n : s.next_steps) d->add_next_steps(n);
  d->set_top_idle_location(s.top_idle_location);
  for (size_t i = 0; i < s.steps.size(); ++i) {
    digest::Step* step = d->add_steps();
    step->set_start(s.steps[i].start);
    step->set_end(s.steps[i].end);
    if (i < s.step_first_op.size()) step->set_first_op(s.step_first_op[i]);
  }
  for (const CollectiveArrival& c : s.collectives) {
    digest::Collective* out = d->add_collectives();
    out->set_op(static_cast<uint32_t>(c.op));
    out->set_stream_ordinal(c.stream_ordinal);
    out->set_sequence(c.sequence);
    out->set_start(c.start);
    out->set_end(c.end);
    out->set_lead_up_ns(c.lead_up_ns);
    for (TimeNs t : c.lead_up_idle.ns) out->add_lead_up_idle(t);
    out->set_step(c.step);
  }
}

absl::StatusOr<RankSummary> Decode(const digest::RankDigest& d,
                                   const std::string& path) {
  RankSummary s;
  s.rank = d.rank();
  s.pids.assign(d.pids().begin(), d.pids().end());
  if (s.pids.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": a rank of the digest names no process"));
  }
  RankReport& f = s.figures;
  f.rank = s.rank;
  f.pids = s.pids;
  f.span_ns = d.span_ns();
  f.busy_ns = d.busy_ns();
  f.idle_share = d.idle_share();
  f.median_step_ns = d.median_step_ns();
  f.sync_blocked_ns = d.sync_blocked_ns();
  f.communication_ns = d.communication_ns();
  f.exposed_communication_ns = d.exposed_communication_ns();
  if (d.verdict() > static_cast<uint32_t>(VerdictClass::kGpuBound)) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": verdict ", d.verdict(),
        " is unknown to this feedprof (a digest of a newer version?)"));
  }
  s.verdict = static_cast<VerdictClass>(d.verdict());
  s.next_steps.assign(d.next_steps().begin(), d.next_steps().end());
  s.top_idle_location = d.top_idle_location();
  for (const digest::Step& step : d.steps()) {
    StepInfo info;
    info.start = step.start();
    info.end = step.end();
    info.pid = s.pids.front();
    s.steps.push_back(info);
    s.step_first_op.push_back(step.first_op());
  }
  for (const digest::Collective& c : d.collectives()) {
    CollectiveArrival a;
    if (c.op() > static_cast<uint32_t>(CollectiveOp::kReduce) ||
        c.lead_up_idle_size() > kIdleCauses) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": a collective of rank ", s.rank,
          " uses an operation or idle cause unknown to this feedprof (a "
          "digest of a newer version?)"));
    }
    a.op = static_cast<CollectiveOp>(c.op());
    a.stream_ordinal = c.stream_ordinal();
    a.sequence = c.sequence();
    a.start = c.start();
    a.end = c.end();
    a.lead_up_ns = c.lead_up_ns();
    for (int k = 0; k < c.lead_up_idle_size(); ++k) {
      a.lead_up_idle.ns[static_cast<size_t>(k)] = c.lead_up_idle(k);
    }
    a.step = c.step();
    s.collectives.push_back(a);
  }
  return s;
}

}  // namespace

std::string EncodeDigest(const DigestContents& contents) {
  digest::DigestFile file;
  file.set_version(kDigestVersion);
  file.set_source_path(contents.source_path);
  file.set_source_format(static_cast<uint32_t>(contents.source_format));
  file.set_time_base_ns(contents.time_base_ns);
  for (const RankSummary& s : contents.ranks) Encode(s, file.add_ranks());
  for (const std::string& w : contents.warnings) file.add_warnings(w);
  std::string out(kDigestMagic);
  file.AppendToString(&out);
  return out;
}

absl::StatusOr<DigestContents> DecodeDigest(std::string_view bytes,
                                            const std::string& path) {
  if (!bytes.starts_with(kDigestMagic)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path,
                     ": not a feedprof rank digest (write one with 'feedprof "
                     "digest TRACE -o OUT')"));
  }
  bytes.remove_prefix(kDigestMagic.size());
  digest::DigestFile file;
  if (!file.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::InvalidArgumentError(absl::StrCat(
        path,
        ": the rank digest is damaged or cut short; write it again "
        "with 'feedprof digest'"));
  }
  if (file.version() != kDigestVersion) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": rank digest version ", file.version(),
                     " (this feedprof reads version ", kDigestVersion,
                     "): digest the trace again with this feedprof"));
  }
  DigestContents out;
  out.source_path = file.source_path();
  out.source_format =
      file.source_format() <= static_cast<uint32_t>(SourceFormat::kNsight)
          ? static_cast<SourceFormat>(file.source_format())
          : SourceFormat::kUnknown;
  out.time_base_ns = file.time_base_ns();
  for (const digest::RankDigest& d : file.ranks()) {
    absl::StatusOr<RankSummary> s = Decode(d, path);
    if (!s.ok()) return s.status();
    out.ranks.push_back(*std::move(s));
  }
  out.warnings.assign(file.warnings().begin(), file.warnings().end());
  return out;
}

}  // namespace feedprof::ranks
