// Copy statistics: bytes, time and achieved bandwidth per direction, the
// share of bytes that crossed from or to pageable host memory, and the PCIe
// link's theoretical bandwidth when the trace knows the link.
//
// A transfer-bound run moves data near the link's capability or through
// pageable memory (staged through a bounce buffer, synchronously); both are
// read off these numbers.
#include <algorithm>
#include <array>

#include "analysis/analysis_passes.h"
#include "analysis/time_sum.h"
#include "platform/proc_sys_text.h"

namespace feedprof::analysis {
namespace {

// Per-lane payload bandwidth: GT/s × encoding efficiency / 8 bits.
double LaneGBps(double gts) {
  double efficiency = 128.0 / 130.0;            // gen3..gen5
  if (gts <= 5.0) efficiency = 8.0 / 10.0;      // gen1, gen2
  if (gts >= 64.0) efficiency = 242.0 / 256.0;  // gen6 FLIT
  return gts * efficiency / 8.0;
}

int DirectionIndex(CopyKind kind) {
  switch (kind) {
    case CopyKind::kHtoD:
      return 0;
    case CopyKind::kDtoH:
      return 1;
    case CopyKind::kDtoD:
      return 2;
    case CopyKind::kPtoP:
      return 3;
    default:
      return 4;
  }
}

// By DirectionIndex.
constexpr std::array<CopyDirection, 5> kDirections = {
    CopyDirection::kHtoD, CopyDirection::kDtoH, CopyDirection::kDtoD,
    CopyDirection::kPtoP, CopyDirection::kOther};

}  // namespace

CopyReport ComputeCopyStats(const PreparedTimeline& prepared) {
  const Timeline& tl = prepared.timeline();
  CopyReport r;
  std::array<CopyDirectionStats, 5> dirs;
  std::array<uint64_t, 5> pageable{};
  for (const DeviceView& d : prepared.devices()) {
    for (const OpRef& op : d.ops) {
      PrefetchOpAhead(tl.gpu_ops, d.ops, op);
      const GpuOp& g = tl.gpu_ops[op.op];
      if (g.kind != GpuOpKind::kMemcpy) continue;
      const auto i = static_cast<size_t>(DirectionIndex(g.copy_kind));
      ++dirs[i].count;
      dirs[i].bytes += g.bytes;
      AddTime(&dirs[i].time_ns, g.end - g.start);
      if (g.src_kind == MemoryKind::kPageable ||
          g.dst_kind == MemoryKind::kPageable) {
        pageable[i] += g.bytes;
      }
    }
  }
  for (const Device& d : tl.devices) {
    if (d.pid >= 0 && !prepared.Selected(d.pid)) continue;
    const double gts = d.pcie_max_gts > 0 ? d.pcie_max_gts : d.pcie_current_gts;
    const uint32_t width =
        d.pcie_max_width > 0 ? d.pcie_max_width : d.pcie_current_width;
    if (gts > 0 && width > 0) {
      r.link_known = true;
      r.link_gen = platform::PcieGeneration(gts);
      r.link_width = width;
      r.link_theoretical_gbps = LaneGBps(gts) * width;
      break;
    }
  }
  uint64_t pageable_total = 0;
  for (size_t i = 0; i < dirs.size(); ++i) {
    CopyDirectionStats& s = dirs[i];
    if (s.count == 0) continue;
    s.direction = kDirections[i];
    if (s.time_ns > 0) {
      s.achieved_gbps =
          static_cast<double>(s.bytes) / static_cast<double>(s.time_ns);
    }
    if (s.bytes > 0) {
      s.pageable_share =
          static_cast<double>(pageable[i]) / static_cast<double>(s.bytes);
    }
    if (r.link_known && (i == 0 || i == 1)) {
      s.link_share = s.achieved_gbps / r.link_theoretical_gbps;
    }
    r.count += s.count;
    r.bytes += s.bytes;
    AddTime(&r.time_ns, s.time_ns);
    pageable_total += pageable[i];
    r.directions.push_back(s);
  }
  if (r.bytes > 0) {
    r.pageable_share =
        static_cast<double>(pageable_total) / static_cast<double>(r.bytes);
  }
  return r;
}

}  // namespace feedprof::analysis
