// NVIDIA GPUs on the PCI bus, from sysfs: link speed and width (current and
// maximum, and the maximum of the port the GPU sits under, which is what
// the slot can do), NUMA node and local CPUs.
#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "platform/machine_reader.h"

namespace feedprof::platform {
namespace {

constexpr uint64_t kNvidiaVendor = 0x10de;
constexpr uint64_t kDisplayControllerClass = 0x03;  // VGA, 3D controller
constexpr const char* kPciDevices = "/sys/bus/pci/devices";

// "0000:3b:00.0": a PCI function's address, as sysfs names directories.
bool LooksLikeBusId(std::string_view name) {
  return name.size() >= 12 && name[4] == ':' && name[7] == ':' &&
         name[10] == '.';
}

void ReadLink(const MachineRoot& root, const std::string& dir,
              PciLinkFacts* link) {
  const std::string missing = absl::StrCat(
      dir,
      " has no link attributes (an emulated PCI bus in a virtual machine, "
      "or a kernel before 4.13)");
  const auto speed = [&](const char* name, Fact<double>* fact) {
    const std::string path = absl::StrCat(dir, "/", name);
    const FileText f = root.Read(path);
    if (!f.ok()) {
      fact->Unknown(f.outcome == ReadOutcome::kMissing ? missing : f.Problem());
    } else if (std::optional<double> gts = ParseLinkSpeedGts(f.text)) {
      fact->Set(*gts);
    } else {
      fact->Unknown(absl::StrCat(path, " says \"", std::string(Trim(f.text)),
                                 "\" (the link is down or untrained)"));
    }
  };
  const auto width = [&](const char* name, Fact<uint32_t>* fact) {
    const std::string path = absl::StrCat(dir, "/", name);
    const FileText f = root.Read(path);
    if (!f.ok()) {
      fact->Unknown(f.outcome == ReadOutcome::kMissing ? missing : f.Problem());
    } else if (std::optional<uint64_t> w = ParseUint(f.text); w && *w > 0) {
      fact->Set(static_cast<uint32_t>(*w));
    } else {
      fact->Unknown(absl::StrCat(path, " says \"", std::string(Trim(f.text)),
                                 "\" (the link is down or untrained)"));
    }
  };
  speed("current_link_speed", &link->current_gts);
  speed("max_link_speed", &link->max_gts);
  width("current_link_width", &link->current_width);
  width("max_link_width", &link->max_width);
}

GpuFacts ReadGpu(const MachineRoot& root, const std::string& bus_id) {
  GpuFacts g;
  g.bus_id = bus_id;
  const std::string dir = absl::StrCat(kPciDevices, "/", bus_id);
  g.device_id = static_cast<uint32_t>(
      ParseHex(root.Attribute(dir + "/device").value_or("")).value_or(0));
  ReadLink(root, dir, &g.link);

  // sysfs links each function into the device tree under the port above
  // it: /sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0.
  if (const std::optional<std::string> real = root.ResolveLink(dir)) {
    const size_t slash = real->rfind('/');
    const std::string parent = real->substr(0, slash);
    const std::string parent_name = parent.substr(parent.rfind('/') + 1);
    if (LooksLikeBusId(parent_name) &&
        root.Exists(parent + "/max_link_speed")) {
      g.upstream_port = parent_name;
      ReadLink(root, parent, &g.port_link);
    }
  }
  if (g.upstream_port.empty()) {
    const std::string why = absl::StrCat("the port above ", bus_id,
                                         " is not in sysfs or has no link");
    g.port_link.max_gts.Unknown(why);
    g.port_link.max_width.Unknown(why);
    g.port_link.current_gts.Unknown(why);
    g.port_link.current_width.Unknown(why);
  }

  const FileText node = root.Read(dir + "/numa_node");
  if (!node.ok()) {
    g.numa_node.Unknown(node.Problem());
  } else if (std::optional<int64_t> n = ParseInt(node.text)) {
    g.numa_node.Set(static_cast<int>(*n));
  } else {
    g.numa_node.Unknown(dir + "/numa_node is not a number");
  }
  const FileText cpus = root.Read(dir + "/local_cpulist");
  if (!cpus.ok()) {
    g.local_cpus.Unknown(cpus.Problem());
  } else if (std::optional<std::vector<int>> list = ParseCpuList(cpus.text)) {
    g.local_cpus.Set(std::move(*list));
  } else {
    g.local_cpus.Unknown(dir + "/local_cpulist is not a CPU list");
  }
  return g;
}

}  // namespace

std::string NormalizeBusId(const std::string& bus_id) {
  // domain:bus:device.function, hexadecimal; NVML pads the domain to 8.
  std::string colons = bus_id;
  std::replace(colons.begin(), colons.end(), '.', ':');
  const std::vector<std::string_view> parts = Split(colons, ':');
  if (parts.size() != 4) return absl::AsciiStrToLower(bus_id);
  uint64_t v[4] = {};
  for (size_t i = 0; i < 4; ++i) {
    const std::optional<uint64_t> n = ParseHex(parts[i]);
    if (!n) return absl::AsciiStrToLower(bus_id);
    v[i] = *n;
  }
  return absl::StrFormat("%04x:%02x:%02x.%x", v[0], v[1], v[2], v[3]);
}

Fact<std::vector<GpuFacts>> ReadPciGpus(const MachineRoot& root) {
  Fact<std::vector<GpuFacts>> out;
  ReadOutcome outcome = ReadOutcome::kOk;
  const std::vector<std::string> names = root.List(kPciDevices, &outcome);
  if (outcome != ReadOutcome::kOk) {
    out.Unknown(
        outcome == ReadOutcome::kMissing
            ? absl::StrCat(kPciDevices,
                           " does not exist: sysfs is not mounted (a "
                           "container without /sys?), so GPUs cannot be "
                           "found on the PCI bus")
            : absl::StrCat(kPciDevices, " cannot be read"));
    return out;
  }
  std::vector<GpuFacts> gpus;
  for (const std::string& name : names) {
    const std::string dir = absl::StrCat(kPciDevices, "/", name);
    const std::optional<uint64_t> vendor =
        ParseHex(root.Attribute(dir + "/vendor").value_or(""));
    const std::optional<uint64_t> cls =
        ParseHex(root.Attribute(dir + "/class").value_or(""));
    if (!vendor || *vendor != kNvidiaVendor || !cls ||
        (*cls >> 16) != kDisplayControllerClass) {
      continue;  // other vendors, NVIDIA audio functions and NVSwitches
    }
    gpus.push_back(ReadGpu(root, name));
    gpus.back().index = static_cast<int>(gpus.size()) - 1;
  }
  out.Set(std::move(gpus));
  return out;
}

}  // namespace feedprof::platform
