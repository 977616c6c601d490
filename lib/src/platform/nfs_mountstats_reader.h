// The NFS client's RPC statistics of a mount (/proc/self/mountstats), and
// what changed between two readings.
//
// Why: on an NFS mount there is no local disk to watch; each read is an
// RPC to the server, and what a slow read costs is the round trip
// (`rtt`), retransmissions after a lost reply and major timeouts. The
// kernel keeps these per mount and per operation (what `mountstats` and
// `nfsiostat` print); doctor reads them before and after its probe, as the
// analysis of a recorded run does, so the figures can be compared.
//
// The layout (fs/nfs/super.c, net/sunrpc/stats.c): each mount starts with
// `device SRC mounted on MOUNTPOINT with fstype TYPE [statvers=1.1]` (SRC
// and MOUNTPOINT escape space, tab, newline and backslash as \ooo); NFS
// mounts go on with indented `opts:`, `age:`, `events:`, `bytes:`, `RPC
// iostats version:`, `xprt:` lines and, after `per-op statistics`, one line
// per operation: `READ: ops transmissions major_timeouts bytes_sent
// bytes_received queue_ms rtt_ms execute_ms [errors]` (errors since
// statvers 1.1).
#ifndef FEEDPROF_PLATFORM_NFS_MOUNTSTATS_READER_H_
#define FEEDPROF_PLATFORM_NFS_MOUNTSTATS_READER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "platform/machine_facts.h"
#include "platform/machine_root.h"

namespace feedprof::platform {

// One per-op statistics line.
struct NfsOpStats {
  std::string op;  // "READ", "GETATTR"
  uint64_t ops = 0;
  uint64_t transmissions = 0;
  uint64_t major_timeouts = 0;
  uint64_t bytes_sent = 0;
  uint64_t bytes_received = 0;
  uint64_t queue_ms = 0;
  uint64_t rtt_ms = 0;
  uint64_t execute_ms = 0;
  uint64_t errors = 0;  // 0 before statvers 1.1
};

// One mount of /proc/self/mountstats; `ops` is empty for file systems
// that keep no RPC statistics.
struct MountStats {
  std::string device;       // "storage01:/export/datasets", unescaped
  std::string mount_point;  // unescaped
  std::string fs_type;      // "nfs4", "nfs", "ext4", ...
  std::string statvers;     // "1.1"; empty for non-NFS mounts
  std::vector<NfsOpStats> ops;
};

// Every mount, in file order; malformed lines are skipped.
std::vector<MountStats> ParseMountstats(std::string_view text);

// The mount at `mount_point` (the last of them: later mounts shadow
// earlier ones), or null.
const MountStats* FindMountStats(const std::vector<MountStats>& mounts,
                                 std::string_view mount_point);

// /proc/self/mountstats under `root`, the NFS mount at `mount_point`;
// unknown with the file's problem, or when the mount is missing or keeps
// no per-op statistics.
Fact<MountStats> ReadNfsMountStats(const MachineRoot& root,
                                   std::string_view mount_point);

// The change between two readings of one mount over `elapsed_ms`, summed
// over the operations (an operation missing from `before` counts from
// zero); unknown when a counter went backwards (the mount was replaced).
Fact<NfsReadFacts> NfsReadDelta(const MountStats& before,
                                const MountStats& after, double elapsed_ms);

}  // namespace feedprof::platform

#endif  // FEEDPROF_PLATFORM_NFS_MOUNTSTATS_READER_H_
