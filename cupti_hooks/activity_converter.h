// Turns completed CUPTI activity buffers into trace packets.
//
// This is the path every GPU event takes: CUPTI hands back a buffer of
// records, libcupti's own iterator (cuptiActivityGetNextRecord) walks it,
// and each record is read in place through its typed struct
// (CUpti_ActivityKernel10, CUpti_ActivityMemcpy6, ...; the versions of the
// CUDA 13 headers) and appended to an EventBatch: GPU work to the batch of
// tid 0, runtime/driver API records to a batch of the calling thread's
// system tid. Records with a zero start or end timestamp are counted, not
// written. Noise API calls are skipped, and so are the blocking calls the
// callback path records itself (with their call sites) when a subscriber is
// active. Device and context records become DeviceInfo packets; stream
// records become StreamInfo packets (what kind of stream each id is: the
// analysis needs it to find legacy default-stream serialization).
//
// Kernel names are interned through a cache keyed by CUPTI's name pointer
// (CUPTI shares one string per function across records), so a known kernel
// costs a pointer lookup; a new one is demangled and interned once.
//
// Lock: `mutex_` serializes ConvertBuffer calls (CUPTI may complete buffers
// on its worker thread while another thread forces a flush). Inside it only
// the sink is called (intern, submit), never CUPTI functions that call back.
#ifndef FEEDPROF_CUPTI_HOOKS_ACTIVITY_CONVERTER_H_
#define FEEDPROF_CUPTI_HOOKS_ACTIVITY_CONVERTER_H_

#include <pthread.h>

#include <cstddef>
#include <cstdint>

#include "cupti_hooks/api_table.h"
#include "cupti_hooks/cupti_api.h"
#include "cupti_hooks/event_batch_encoder.h"
#include "cupti_hooks/recorder_sink.h"

namespace feedprof::cupti {

struct ConversionStats {
  uint64_t records = 0;
  uint64_t kernels = 0;
  uint64_t memcpys = 0;
  uint64_t memsets = 0;
  uint64_t syncs = 0;
  uint64_t api_calls = 0;
  uint64_t overheads = 0;
  uint64_t memory = 0;
  uint64_t external_correlations = 0;
  uint64_t devices = 0;
  uint64_t contexts = 0;
  uint64_t streams = 0;
  uint64_t noise_skipped = 0;   // noise API records
  uint64_t callback_owned = 0;  // API records the callbacks write
  uint64_t zero_timestamps = 0;
  uint64_t other_kinds = 0;  // kinds not converted
  uint64_t packets = 0;
  uint64_t packets_dropped = 0;  // sink refused them
};

class ActivityConverter {
 public:
  static constexpr size_t kGpuBatchBytes = 256 * 1024;
  static constexpr size_t kApiBatchBytes = 64 * 1024;
  static constexpr size_t kApiBatchSlots = 8;
  static constexpr size_t kNameCacheSlots = 4096;
  static constexpr size_t kMaxDevices = 64;
  static constexpr size_t kMaxContexts = 256;

  // `api` provides cuptiActivityGetNextRecord; `table` names API records.
  // All three must outlive the converter.
  ActivityConverter(const CuptiApi& api, const ApiTable& table,
                    const RecorderSink& sink);
  ~ActivityConverter();
  ActivityConverter(const ActivityConverter&) = delete;
  ActivityConverter& operator=(const ActivityConverter&) = delete;

  // With a subscriber, blocking and flush-before API calls are recorded by
  // the callbacks; their activity records are then skipped.
  void set_callbacks_own_blocking_calls(bool own) {
    callbacks_own_blocking_calls_ = own;
  }
  // Added to every CUPTI timestamp; non-zero only when CUPTI's timestamp
  // callback could not be pointed at the recorder's clock.
  void set_clock_offset_ns(int64_t offset) { clock_offset_ns_ = offset; }

  // PCI bus id of a device, learned where the driver can be asked (context
  // creation); written into the DeviceInfo packet of that device.
  void NotePciBusId(uint32_t device_id, const char* bus_id);
  // The CUDA device whose PCI bus id was noted as `bus_id`, or -1.
  int CudaOrdinalForPciBus(const char* bus_id);

  // Converts the records in buffer[0, valid_size) and submits the packets.
  // Returns the number of records with zero timestamps in it.
  uint64_t ConvertBuffer(uint8_t* buffer, size_t valid_size);

  // Converts one record into the open batches, submitting a batch only
  // when it fills up. Returns false for a zero-timestamp record. Not
  // thread-safe (ConvertBuffer is); used by it and by benchmarks, which
  // call SubmitBatches at the end.
  bool ConvertRecord(const CUpti_Activity* record);
  // Submits every open batch.
  void SubmitBatches();

  ConversionStats stats();

 private:
  struct NameSlot {
    const char* key;
    uint32_t id;
  };
  struct DeviceFacts {
    bool known;
    uint32_t device_id;
    uint32_t sm_count;
    uint32_t cc_major;
    uint32_t cc_minor;
    uint64_t global_memory;
    uint64_t core_clock_khz;
    uint64_t bandwidth_bytes_per_s;
    char name[128];
    char uuid[48];
    char pci_bus_id[32];
  };
  struct ContextFacts {
    uint32_t context_id;
    uint32_t device_id;
  };

  uint64_t Ts(uint64_t cupti_ts) const {
    return static_cast<uint64_t>(static_cast<int64_t>(cupti_ts) +
                                 clock_offset_ns_);
  }
  EventBatchEncoder& GpuBatch();
  EventBatchEncoder& ApiBatch(uint32_t tid);
  void Submit(EventBatchEncoder& batch);

  // Views `record` as the CUPTI struct `Activity` and converts it, unless
  // CUPTI left its start or end zero (it could not time it): that is
  // counted and the record skipped.
  template <typename Activity>
  bool ConvertTimed(const CUpti_Activity* record,
                    void (ActivityConverter::*convert)(const Activity&));
  // Appends the timed record `a` to `batch` as its repeated field
  // `batch_field`: start (delta-encoded) and duration, then the fields
  // `write_fields` writes; counts it in `kind_count`.
  template <typename Activity, typename WriteFields>
  void AppendTimedEvent(EventBatchEncoder& batch, uint32_t batch_field,
                        const Activity& a, uint64_t& kind_count,
                        WriteFields write_fields);
  void ConvertKernel(const CUpti_ActivityKernel10& k);
  void ConvertMemcpy(const CUpti_ActivityMemcpy6& m);
  void ConvertPeerCopy(const CUpti_ActivityMemcpyPtoP4& m);
  template <typename Copy>
  void WriteCopy(const Copy& m, uint32_t copy_kind);
  void ConvertMemset(const CUpti_ActivityMemset4& m);
  void ConvertSync(const CUpti_ActivitySynchronization2& s);
  bool ConvertApi(const CUpti_ActivityAPI& a, ApiDomain domain);
  void ConvertOverhead(const CUpti_ActivityOverhead3& o);
  void ConvertMemory(const CUpti_ActivityMemory4& m);
  void ConvertExternalCorrelation(const CUpti_ActivityExternalCorrelation& e);
  void ConvertDevice(const CUpti_ActivityDevice5& d);
  void ConvertContext(const CUpti_ActivityContext3& c);
  void ConvertStream(const CUpti_ActivityStream& s);
  void SubmitDeviceInfo(const DeviceFacts& facts, uint32_t context_id);
  uint32_t KernelNameId(const char* name);
  uint32_t CudaOrdinalForContext(uint32_t context_id) const;
  DeviceFacts* FindDevice(uint32_t device_id);

  const CuptiApi& api_;
  const ApiTable& table_;
  const RecorderSink& sink_;
  bool callbacks_own_blocking_calls_ = false;
  int64_t clock_offset_ns_ = 0;

  pthread_mutex_t mutex_ = PTHREAD_MUTEX_INITIALIZER;
  ConversionStats stats_;
  uint8_t* storage_ = nullptr;  // backing bytes of every batch below
  EventBatchEncoder* gpu_batch_ = nullptr;
  EventBatchEncoder* api_batches_[kApiBatchSlots] = {};
  size_t next_api_slot_ = 0;  // round-robin victim when all are open
  NameSlot name_cache_[kNameCacheSlots] = {};
  DeviceFacts devices_[kMaxDevices] = {};
  ContextFacts contexts_[kMaxContexts] = {};
  size_t context_count_ = 0;
};

}  // namespace feedprof::cupti

#endif  // FEEDPROF_CUPTI_HOOKS_ACTIVITY_CONVERTER_H_
