// A fixture machine whose program reads its data from two local NVMe disks
// and two NFS mounts, for the storage sampling tests (sample collector and
// sampling thread).
//
// The files are what such a machine shows: /proc/self/mountinfo with the
// root on nvme0n1p2, /scratch on nvme0n1p3 (the same disk again), /data on
// nvme1n1 and NFS mounts at /mnt/nfs (v4.2) and "/mnt/my data" (v3, a
// space in its name); /sys/dev/block links to the partitions and disks; a
// command line naming a path on each; /proc/diskstats of a 5.x kernel (20
// fields) and a /proc/self/mountstats with both NFS blocks among other
// mounts. The expected numbers are spelled out below the writers.
#ifndef FEEDPROF_TESTS_PRELOAD_HOST_STORAGE_FIXTURE_H_
#define FEEDPROF_TESTS_PRELOAD_HOST_STORAGE_FIXTURE_H_

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/testing/fixture_tree.h"

namespace feedprof::testing {

inline constexpr char kStorageCwd[] = "/home/user/run";

// /proc/diskstats with nvme0n1's reads at `nvme0_reads` (the other numbers
// fixed): a later round writes a larger count.
inline std::string StorageDiskstats(uint64_t nvme0_reads = 2893551) {
  return "   7       0 loop0 57 0 2200 14 0 0 0 0 0 60 14 0 0 0 0 0 0\n"
         " 259       0 nvme0n1 " +
         std::to_string(nvme0_reads) +
         " 1015 330581066 541219 6148214 3920483 214738186 4302765 3 "
         "2123064 5006498 0 0 0 0 532214 162512\n"
         " 259       1 nvme0n1p1 612 1012 26412 126 2 0 2 0 0 168 126 0 0 0 0 "
         "0 0\n"
         " 259       2 nvme0n1p2 2892851 3 330548214 541080 6148212 3920483 "
         "214738184 4302764 3 2122948 4843845 0 0 0 0 0 0\n"
         " 259       3 nvme0n1p3 88 0 6240 12 0 0 0 0 0 20 12 0 0 0 0 0 0\n"
         " 259       4 nvme1n1 10512 7 2690816 1802 44 2 3584 91 0 2132 1893 0 "
         "0 0 0 0 0\n"
         " 253       0 dm-0 9 0 72 1 0 0 0 0 0 4 1 0 0 0 0 0 0\n";
}

// The block of an NFS v4.2 mount as a 5.x kernel writes it (statvers=1.1,
// per-op lines with the errors column).
inline std::string Nfs4Block(const std::string& mount_point) {
  return "device storage01:/export/datasets mounted on " + mount_point +
         " with fstype nfs4 statvers=1.1\n"
         "\topts:\trw,vers=4.2,rsize=1048576,wsize=1048576,namlen=255,"
         "acregmin=3,acregmax=60,acdirmin=30,acdirmax=60,hard,proto=tcp,"
         "timeo=600,retrans=2,sec=sys,clientaddr=10.0.0.5,local_lock=none\n"
         "\tage:\t86400\n"
         "\timpl_id:\tname='',domain='',date='0,0'\n"
         "\tcaps:\tcaps=0x3ffbffff,wtmult=512,dtsize=32768,bsize=0,"
         "namlen=255\n"
         "\tnfsv4:\tbm0=0xfdffbfff,bm1=0xf9be3e,bm2=0x68800,acl=0x3,"
         "sessions,pnfs=not configured,lease_time=90,lease_expired=0\n"
         "\tsec:\tflavor=1,pseudoflavor=1\n"
         "\tevents:\t3012 120335 0 11 1201 7 121894 0 0 120 0 0 0 0 0 0 0 "
         "0 0 0 0 0 0 0 0 0 0\n"
         "\tbytes:\t4294967296 0 0 0 4294967296 0 1048576 0\n"
         "\tRPC iostats version: 1.1  p/v: 100003/4 (nfs)\n"
         "\txprt:\ttcp 837 1 2 0 12 8211 8211 0 8400 0 2 512 1\n"
         "\tper-op statistics\n"
         "\t        NULL: 1 1 0 44 24 0 0 0 0\n"
         "\t        READ: 4096 4097 1 737280 4295491584 120 20480 20992 0\n"
         "\t       WRITE: 0 0 0 0 0 0 0 0 0\n"
         "\t      COMMIT: 0 0 0 0 0 0 0 0 0\n"
         "\t        OPEN: 1200 1200 0 360000 480000 3 1800 1850 0\n"
         "\tOPEN_CONFIRM: 0 0 0 0 0 0 0 0 0\n"
         "\tOPEN_DOWNGRADE: 0 0 0 0 0 0 0 0 0\n"
         "\t       CLOSE: 1200 1200 0 264000 211200 1 900 950 0\n"
         "\t     GETATTR: 2500 2502 2 420000 600000 2 1500 1560 0\n"
         "\t      LOOKUP: 800 800 0 140000 256000 0 700 720 12\n"
         "\t      ACCESS: 300 300 0 48000 57600 0 210 215 0\n"
         "\t     READDIR: 0 0 0 0 0 0 0 0 0\n"
         "\n";
}
// Its sums: every op line, and READ.
inline constexpr uint64_t kNfs4Ops = 1 + 4096 + 1200 + 1200 + 2500 + 800 + 300;
inline constexpr uint64_t kNfs4Transmissions =
    1 + 4097 + 1200 + 1200 + 2502 + 800 + 300;
inline constexpr uint64_t kNfs4MajorTimeouts = 1 + 2;
inline constexpr uint64_t kNfs4RttMs = 20480 + 1800 + 900 + 1500 + 700 + 210;
inline constexpr uint64_t kNfs4ExecuteMs =
    20992 + 1850 + 950 + 1560 + 720 + 215;

// An NFS v3 mount as an older kernel writes it (per-op lines without the
// errors column); `escaped_mount_point` as the file spells it.
inline std::string Nfs3Block(const std::string& escaped_mount_point) {
  return "device fs1:/vol/shared mounted on " + escaped_mount_point +
         " with fstype nfs statvers=1.1\n"
         "\topts:\trw,vers=3,rsize=65536,wsize=65536,namlen=255,hard,"
         "proto=tcp,timeo=600,retrans=2,sec=sys,mountaddr=10.0.0.9,"
         "mountvers=3,mountport=635,mountproto=udp,local_lock=none\n"
         "\tage:\t3600\n"
         "\tcaps:\tcaps=0x3fcf,wtmult=4096,dtsize=8192,bsize=0,namlen=255\n"
         "\tsec:\tflavor=1,pseudoflavor=1\n"
         "\tevents:\t220 3000 0 0 200 1 3400 0 0 0 0 0 0 0 0 0 0 0 0 0 0 "
         "0 0 0 0 0 0\n"
         "\tbytes:\t32768000 0 0 0 32768000 0 8000 0\n"
         "\tRPC iostats version: 1.0  p/v: 100003/3 (nfs)\n"
         "\txprt:\ttcp 925 1 1 0 0 620 620 0 620 0 2 0 0\n"
         "\tper-op statistics\n"
         "\t        NULL: 0 0 0 0 0 0 0 0\n"
         "\t     GETATTR: 100 100 0 12000 11200 0 50 60\n"
         "\t      LOOKUP: 20 21 1 2800 4000 0 30 35\n"
         "\t        READ: 500 500 0 64000 32768000 10 4000 4100\n"
         "\n";
}
inline constexpr uint64_t kNfs3Ops = 100 + 20 + 500;
inline constexpr uint64_t kNfs3Transmissions = 100 + 21 + 500;
inline constexpr uint64_t kNfs3RttMs = 50 + 30 + 4000;
inline constexpr uint64_t kNfs3ExecuteMs = 60 + 35 + 4100;

// /proc/self/mountstats of the machine: `filler` one-line mounts first
// (thousands of them make the file outgrow the sampler's buffer), the v3
// block, an NFS mount the program does not use, and the v4 block.
inline std::string StorageMountstats(size_t filler = 0) {
  std::string text =
      "device rootfs mounted on / with fstype rootfs\n"
      "device proc mounted on /proc with fstype proc\n"
      "device /dev/nvme0n1p2 mounted on / with fstype ext4\n"
      "no device mounted on /sys/fs/bpf with fstype bpf\n";
  for (size_t i = 0; i < filler; ++i) {
    text += "device tmpfs mounted on /var/lib/kubelet/pods/" +
            std::to_string(i) +
            "/volumes/kubernetes.io~secret with fstype tmpfs\n";
  }
  text += "device /dev/nvme1n1 mounted on /data with fstype xfs\n";
  text += Nfs3Block("/mnt/my\\040data");
  text += Nfs4Block("/mnt/other");
  text += Nfs4Block("/mnt/nfs");
  text += "device tmpfs mounted on /run/user/1000 with fstype tmpfs\n";
  return text;
}

// Writes the machine under `t` (proc/ and sys/; /proc/self/mountstats as
// StorageMountstats(mountstats_filler)).
inline void WriteStorageMachine(const FixtureTree& t,
                                size_t mountstats_filler = 0) {
  t.Write("proc/self/mountinfo",
          "27 1 259:2 / / rw,relatime - ext4 /dev/nvme0n1p2 "
          "rw,errors=remount-ro\n"
          "30 27 259:3 / /scratch rw,relatime - ext4 /dev/nvme0n1p3 rw\n"
          "40 27 259:4 / /data rw,noatime - xfs /dev/nvme1n1 rw\n"
          "50 27 0:52 / /mnt/nfs rw,relatime - nfs4 "
          "storage01:/export/datasets rw,vers=4.2\n"
          "51 27 0:53 / /mnt/my\\040data rw - nfs fs1:/vol/shared rw,vers=3\n");
  std::string cmdline;
  for (const char* a :
       {"python3", "train.py", "--data=/data/imagenet", "/scratch/cache",
        "/mnt/nfs/shards", "--val=/mnt/my data/val", "--epochs", "90"}) {
    cmdline += a;
    cmdline += '\0';
  }
  t.Write("proc/self/cmdline", cmdline);
  for (const char* dir : {"home/user/run", "data/imagenet", "scratch/cache",
                          "mnt/nfs/shards", "mnt/my data/val"}) {
    t.MakeDir(dir);
  }
  const std::string nvme0 =
      "sys/devices/pci0000:00/0000:00:1d.0/0000:01:00.0/nvme/nvme0/nvme0n1";
  const std::string nvme1 =
      "sys/devices/pci0000:00/0000:00:1d.4/0000:02:00.0/nvme/nvme1/nvme1n1";
  t.Write(nvme0 + "/queue/rotational", "0\n");
  t.Write(nvme0 + "/nvme0n1p2/partition", "2\n");
  t.Write(nvme0 + "/nvme0n1p3/partition", "3\n");
  t.Write(nvme1 + "/queue/rotational", "0\n");
  t.MakeDir("sys/dev/block");
  const std::filesystem::path block =
      std::filesystem::path(t.root()) / "sys/dev/block";
  std::filesystem::create_symlink("../../" + nvme0.substr(4) + "/nvme0n1p2",
                                  block / "259:2");
  std::filesystem::create_symlink("../../" + nvme0.substr(4) + "/nvme0n1p3",
                                  block / "259:3");
  std::filesystem::create_symlink("../../" + nvme1.substr(4), block / "259:4");
  t.Write("proc/diskstats", StorageDiskstats());
  t.Write("proc/self/mountstats", StorageMountstats(mountstats_filler));
}

}  // namespace feedprof::testing

#endif  // FEEDPROF_TESTS_PRELOAD_HOST_STORAGE_FIXTURE_H_
