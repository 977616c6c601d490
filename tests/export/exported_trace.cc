#include "tests/export/exported_trace.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>

#include "kineto/gzip_input.h"
#include "kineto/json_tokenizer.h"
#include "kineto/kineto_time.h"

namespace feedprof::testing {
namespace {

using kineto::JsonToken;

bool ReadObject(kineto::JsonTokenizer& tokens, ExportedEvent* event,
                bool in_args) {
  while (true) {
    JsonToken t = tokens.Next();
    if (t == JsonToken::kObjectEnd) return true;
    if (t != JsonToken::kKey) return false;
    const std::string key(tokens.text());
    t = tokens.Next();
    auto& target = in_args ? event->args : event->fields;
    switch (t) {
      case JsonToken::kString:
        target[key] = std::string(tokens.text());
        break;
      case JsonToken::kNumber:
        target[key] = std::string(tokens.text());
        if (in_args) event->numeric_args.insert(key);
        break;
      case JsonToken::kObjectBegin:
        if (!in_args && key == "args") {
          if (!ReadObject(tokens, event, true)) return false;
        } else if (!tokens.SkipRestOfContainer()) {
          return false;
        }
        break;
      case JsonToken::kArrayBegin:
        target[key] = "[...]";
        if (!tokens.SkipRestOfContainer()) return false;
        break;
      case JsonToken::kTrue:
      case JsonToken::kFalse:
      case JsonToken::kNull:
        target[key] = std::string(tokens.text());
        break;
      default:
        return false;
    }
  }
}

int64_t Ns(const std::string& micros) {
  int64_t ns = 0;
  EXPECT_TRUE(kineto::MicrosToNanos(micros, &ns)) << micros;
  return ns;
}

}  // namespace

ExportedTrace ReadExportedTrace(const std::string& path) {
  ExportedTrace trace;
  auto input = kineto::GzipFileInput::Open(path);
  if (!input.ok()) {
    trace.error = std::string(input.status().message());
    return trace;
  }
  kineto::JsonTokenizer tokens(input->get());
  if (tokens.Next() != JsonToken::kObjectBegin) {
    trace.error = "not an object: " + tokens.error();
    return trace;
  }
  while (true) {
    JsonToken t = tokens.Next();
    if (t == JsonToken::kObjectEnd) break;
    if (t != JsonToken::kKey) {
      trace.error = "bad top level: " + tokens.error();
      return trace;
    }
    const std::string key(tokens.text());
    trace.top_level_keys.insert(key);
    if (key != "traceEvents") {
      if (!tokens.SkipValue()) trace.error = tokens.error();
      continue;
    }
    if (tokens.Next() != JsonToken::kArrayBegin) {
      trace.error = "traceEvents is no array";
      return trace;
    }
    while (true) {
      t = tokens.Next();
      if (t == JsonToken::kArrayEnd) break;
      ExportedEvent event;
      if (t != JsonToken::kObjectBegin || !ReadObject(tokens, &event, false)) {
        trace.error = "bad event: " + tokens.error();
        return trace;
      }
      trace.events.push_back(std::move(event));
    }
  }
  if (tokens.Next() != JsonToken::kEnd) trace.error = "text after the object";
  if (tokens.failed()) trace.error = tokens.error();
  return trace;
}

void ExpectValidExport(const ExportedTrace& trace) {
  ASSERT_EQ(trace.error, "");
  EXPECT_EQ(trace.top_level_keys.count("traceEvents"), 1u);
  EXPECT_EQ(trace.top_level_keys.count("displayTimeUnit"), 1u);
  EXPECT_EQ(trace.top_level_keys.count("deviceProperties"), 1u);
  std::set<std::string> named_pids;
  std::set<std::pair<std::string, std::string>> named_tids;
  std::set<std::string> used_pids;
  std::set<std::pair<std::string, std::string>> used_tids;
  struct Slice {
    int64_t ts, dur;
    std::string name;
  };
  std::map<std::pair<std::string, std::string>, std::vector<Slice>> tracks;
  std::map<std::string, std::pair<int, int>> flows;  // id → (#s, #f)
  std::map<std::string, std::string> flow_cat;
  int bad_slices = 0, bad_counters = 0, bad_flows = 0;
  for (const ExportedEvent& e : trace.events) {
    const std::string ph = e.Field("ph");
    const std::string pid = e.Field("pid"), tid = e.Field("tid");
    if (ph == "M") {
      if (e.Field("name") == "process_name") named_pids.insert(pid);
      if (e.Field("name") == "thread_name") named_tids.emplace(pid, tid);
      continue;
    }
    used_pids.insert(pid);
    if (ph == "X") {
      for (const char* key : {"name", "ts", "dur", "pid", "tid"}) {
        if (e.fields.count(key) == 0 && ++bad_slices < 5) {
          ADD_FAILURE() << "slice without " << key;
        }
      }
      tracks[{pid, tid}].push_back(
          {Ns(e.Field("ts")), Ns(e.Field("dur")), e.Field("name")});
      used_tids.emplace(pid, tid);
    } else if (ph == "s" || ph == "f") {
      auto& [s, f] = flows[e.Field("id")];
      (ph == "s" ? s : f) += 1;
      auto [it, fresh] = flow_cat.emplace(e.Field("id"), e.Field("cat"));
      if (!fresh && it->second != e.Field("cat") && ++bad_flows < 5) {
        ADD_FAILURE() << "flow " << e.Field("id") << " changes category";
      }
      used_tids.emplace(pid, tid);
    } else if (ph == "C") {
      if ((e.args.empty() || e.numeric_args.size() != e.args.size()) &&
          ++bad_counters < 5) {
        ADD_FAILURE() << "counter " << e.Field("name") << " with a non-numeric "
                      << "arg";
      }
    } else if (ph == "i") {
      used_tids.emplace(pid, tid);
    }
  }
  for (const auto& [id, counts] : flows) {
    if ((counts.first != 1 || counts.second != 1) && ++bad_flows < 5) {
      ADD_FAILURE() << "flow " << id << ": " << counts.first << " starts, "
                    << counts.second << " ends";
    }
  }
  for (const std::string& pid : used_pids) {
    EXPECT_EQ(named_pids.count(pid), 1u) << "pid " << pid << " has no name";
  }
  for (const auto& key : used_tids) {
    EXPECT_EQ(named_tids.count(key), 1u)
        << "track " << key.first << "/" << key.second << " has no name";
  }
  int crossings = 0;
  for (auto& [key, slices] : tracks) {
    std::stable_sort(slices.begin(), slices.end(),
                     [](const Slice& a, const Slice& b) {
                       return a.ts != b.ts ? a.ts < b.ts : a.dur > b.dur;
                     });
    std::vector<int64_t> open;  // ends
    for (const Slice& s : slices) {
      while (!open.empty() && open.back() <= s.ts) open.pop_back();
      if (!open.empty() && open.back() < s.ts + s.dur && ++crossings < 5) {
        ADD_FAILURE() << "slice " << s.name << " at " << s.ts
                      << " ns crosses the end of another on track " << key.first
                      << "/" << key.second;
      }
      open.push_back(s.ts + s.dur);
    }
  }
  EXPECT_EQ(crossings, 0);
}

void ExpectSameAnalysis(const Report& a, const Report& b,
                        bool original_has_samples) {
  // Devices that ran something. Kineto's deviceProperties name no process,
  // so the reader gives every listed device to the main process; in a
  // multi-process export that adds idle (process, device) pairs with no
  // work, which are no figure of the run.
  auto active = [](const Report& r) {
    std::vector<const DeviceReport*> out;
    for (const DeviceReport& d : r.devices) {
      if (d.span_ns > 0) out.push_back(&d);
    }
    return out;
  };
  const std::vector<const DeviceReport*> da = active(a), db = active(b);
  ASSERT_EQ(da.size(), db.size());
  for (size_t i = 0; i < da.size(); ++i) {
    const DeviceReport& x = *da[i];
    const DeviceReport& y = *db[i];
    SCOPED_TRACE("device " + std::to_string(x.device));
    EXPECT_EQ(x.device, y.device);
    EXPECT_EQ(x.pid, y.pid);
    EXPECT_EQ(x.span_ns, y.span_ns);
    EXPECT_EQ(x.busy_ns, y.busy_ns);
    EXPECT_EQ(x.idle_ns, y.idle_ns);
    EXPECT_EQ(x.kernel_count, y.kernel_count);
    EXPECT_EQ(x.memcpy_count, y.memcpy_count);
    EXPECT_EQ(x.memset_count, y.memset_count);
    EXPECT_EQ(x.gaps.count, y.gaps.count);
    EXPECT_EQ(x.gaps.histogram, y.gaps.histogram);
    for (IdleCause c : {IdleCause::kLaunchOverhead, IdleCause::kQueueLatency,
                        IdleCause::kUnattributed, IdleCause::kHostWaitSync,
                        IdleCause::kHostWaitCudaApi}) {
      EXPECT_EQ(x.idle_by_cause[c], y.idle_by_cause[c]) << IdleCauseName(c);
    }
    EXPECT_EQ(x.idle_by_cause.HostWait(), y.idle_by_cause.HostWait());
    if (!original_has_samples) {
      EXPECT_EQ(x.idle_by_cause.ns, y.idle_by_cause.ns);
    }
  }
  // GPU work launched before the trace began has no launching call, and a
  // Kineto reader gives such work to the main process; so it is compared
  // per device id over all processes.
  auto excluded = [](const Report& r) {
    std::map<int32_t, uint64_t> m;
    for (const DeviceReport& d : r.devices) {
      m[d.device] += d.excluded_ops.count;
    }
    return m;
  };
  EXPECT_EQ(excluded(a), excluded(b));
  EXPECT_EQ(a.launch.count, b.launch.count);
  EXPECT_EQ(a.launch.kernels, b.launch.kernels);
  EXPECT_EQ(a.launch.graph_launches, b.launch.graph_launches);
  EXPECT_EQ(a.launch.graph_kernels, b.launch.graph_kernels);
  EXPECT_EQ(a.launch.median_api_ns, b.launch.median_api_ns);
  EXPECT_EQ(a.launch.median_kernel_ns, b.launch.median_kernel_ns);
  EXPECT_EQ(a.launch.launch_delays, b.launch.launch_delays);
  EXPECT_EQ(a.launch.median_launch_delay_ns, b.launch.median_launch_delay_ns);
  // Call sites do not survive Kineto JSON (the reader has none), so sync
  // points are compared per (API, reason).
  auto per_api = [](const Report& r) {
    std::map<std::pair<std::string, std::string>,
             std::tuple<uint64_t, TimeNs, TimeNs>>
        m;
    for (const SyncPoint& p : r.sync_points) {
      if (!p.blocks_host) continue;
      auto& [count, blocked, idle] = m[{p.api, p.reason}];
      count += p.count;
      blocked += p.blocked_ns;
      idle += p.idle_after_ns;
    }
    return m;
  };
  EXPECT_EQ(per_api(a), per_api(b));
  EXPECT_EQ(a.gpu_side_waits, b.gpu_side_waits);
  EXPECT_EQ(a.steps.count, b.steps.count);
  EXPECT_EQ(a.copies.count, b.copies.count);
  EXPECT_EQ(a.copies.bytes, b.copies.bytes);
}

}  // namespace feedprof::testing
