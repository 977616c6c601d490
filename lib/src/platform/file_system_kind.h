// What kind of file system a mount is, from its type as mountinfo spells
// it.
//
// The kind decides what an I/O wait costs and which fix helps: every small
// read of a network file system is a round trip to a server shared with
// other clients, a user-space file system passes each read through a
// daemon (often to object storage), an overlay walks a container image's
// layers, and a memory file system reads nothing from a device. The doctor's
// storage checks and the analysis of a recorded run's reads share this one
// list.
#ifndef FEEDPROF_PLATFORM_FILE_SYSTEM_KIND_H_
#define FEEDPROF_PLATFORM_FILE_SYSTEM_KIND_H_

#include <string_view>

namespace feedprof::platform {

enum class FileSystemKind {
  kLocal,      // a block device's file system: ext4, xfs, btrfs, ...
  kNetwork,    // nfs, nfs4, cifs, lustre, ceph, ...
  kUserSpace,  // fuse.*: s3fs, gcsfuse, sshfs, ...
  kOverlay,    // a container's layered root
  kMemory,     // tmpfs, ramfs
};

FileSystemKind FileSystemKindOf(std::string_view fs_type);

// Network or user-space: no local block device, and every read may cross
// the network.
inline bool IsRemoteFileSystem(FileSystemKind kind) {
  return kind == FileSystemKind::kNetwork || kind == FileSystemKind::kUserSpace;
}

}  // namespace feedprof::platform

#endif  // FEEDPROF_PLATFORM_FILE_SYSTEM_KIND_H_
