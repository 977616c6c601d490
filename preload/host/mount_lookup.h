// Which mount holds a path, and the block device under it, for the
// platform snapshot.
//
// Whether the program reads its data from a local NVMe disk, a spinning
// disk, NFS or a FUSE bucket decides what an I/O-bound verdict should say.
// The snapshot runs inside the profiled process (possibly in the child of a
// fork, on a small stack), so this reads /proc/self/mountinfo in fixed-size
// chunks into caller-owned buffers, without allocating, and keeps only the
// best-matching line. The analysis side (lib/src/platform) has its own
// parser; it may allocate and this one may not.
#ifndef FEEDPROF_PRELOAD_HOST_MOUNT_LOOKUP_H_
#define FEEDPROF_PRELOAD_HOST_MOUNT_LOOKUP_H_

#include <cstddef>
#include <cstdint>

namespace feedprof::preload::host {

struct MountFields {
  uint32_t major = 0;
  uint32_t minor = 0;
  char mount_point[512] = {};
  char fs_type[64] = {};
  char source[256] = {};
  char options[768] = {};  // mount options, then the file system's, each once
  // The block device (a partition's disk) and its queue settings; empty /
  // 0 when the mount has no local block device.
  char block_device[64] = {};
  uint32_t disk_kind = 0;  // proto DiskKind: 1 solid state, 2 rotational
  char scheduler[32] = {};
};

// The mount holding `path` (absolute, without "." or ".." parts) according
// to the mountinfo file at `mountinfo_path`: the longest mount point that
// is `path` or a parent of it, a later line winning over an earlier one on
// the same point. When `want_dev` is not 0 (the path's st_dev, as
// makedev(major, minor)) and no prefix match has that device, the last
// mount of that device wins (a path reached through a symbolic link).
// `scratch` (at least 1 KiB) holds the chunks being scanned. False when no
// mount matches or the file cannot be read.
bool FindMount(const char* mountinfo_path, const char* path, uint64_t want_dev,
               char* scratch, size_t scratch_bytes, MountFields* out);

// Fills the block device fields of `m` from sysfs under `root` ("" for the
// machine's own /sys): /sys/dev/block/MAJ:MIN (or, for a file system with
// an anonymous device such as btrfs, /sys/class/block/ of its source),
// queue/rotational and queue/scheduler of the disk.
void ReadBlockDevice(const char* root, MountFields* m);

// Removes "." and ".." parts and doubled slashes from the absolute path in
// `path`, in place.
void NormalizePath(char* path);

}  // namespace feedprof::preload::host

#endif  // FEEDPROF_PRELOAD_HOST_MOUNT_LOOKUP_H_
