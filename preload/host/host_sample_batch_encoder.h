// Encodes host samples into `Packet { host_samples: HostSampleBatch }`.
//
// The sampler batches many rounds per packet (a packet every ~0.5 s, or
// sooner when the buffer fills) so the per-packet overhead of the writer
// is paid rarely, and timestamps shrink to small deltas: each repeated
// field (threads, process, system, disks, nfs) is delta-encoded on its own
// against the previous sample of the same field, the first against
// `base_ts_ns`, as proto/feedprof.proto specifies. Encoding goes into a
// caller-owned buffer through WireWriter: no allocation. A sample that does not
// fit is taken back whole, so a full buffer never yields a half-written packet.
#ifndef FEEDPROF_PRELOAD_HOST_HOST_SAMPLE_BATCH_ENCODER_H_
#define FEEDPROF_PRELOAD_HOST_HOST_SAMPLE_BATCH_ENCODER_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "preload/host/host_sample_records.h"
#include "preload/trace_packets.h"  // EncodeThreadInfoPacket, for announcements
#include "preload/wire_writer.h"

namespace feedprof::preload::host {

class HostSampleBatchEncoder {
 public:
  HostSampleBatchEncoder(uint8_t* buffer, size_t capacity);

  // Starts a new packet (dropping whatever was encoded before).
  void Begin(uint64_t base_ts_ns);

  // Append one sample; false (and the packet unchanged) when it does not
  // fit: the caller then finishes this packet and begins another.
  bool AddThread(const ThreadSampleRecord& s);
  bool AddProcess(const ProcessSampleRecord& s);
  bool AddSystem(const SystemSampleRecord& s);
  bool AddDisk(const DiskSampleRecord& s);
  bool AddNfs(const NfsSampleRecord& s);

  // Number of samples added since Begin.
  size_t sample_count() const { return samples_; }
  bool begun() const { return begun_; }

  // Closes the packet and returns its encoded size (the bytes start at
  // data()); 0 when no sample was added. Begin must be called again before
  // adding more.
  size_t Finish();
  const uint8_t* data() const { return writer_.data(); }

 private:
  // Rolls back to `mark` when the writer overflowed and returns false;
  // otherwise counts the sample, makes `ts_ns` the `*last_ts` the next
  // sample of its kind is delta-encoded against, and returns true.
  bool Commit(size_t mark, uint64_t ts_ns, uint64_t* last_ts);

  feedprof::wire::WireWriter writer_;
  feedprof::wire::WireWriter::Nested batch_;
  uint64_t last_thread_ts_ = 0;
  uint64_t last_process_ts_ = 0;
  uint64_t last_system_ts_ = 0;
  uint64_t last_disk_ts_ = 0;
  uint64_t last_nfs_ts_ = 0;
  size_t samples_ = 0;
  bool begun_ = false;
};

}  // namespace feedprof::preload::host

#endif  // FEEDPROF_PRELOAD_HOST_HOST_SAMPLE_BATCH_ENCODER_H_
