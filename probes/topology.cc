#include "probes/topology.h"

#include <fmt/format.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "common/stripe_read.h"
#include "common/units.h"

namespace pglayout::probes {
namespace {

namespace fs = std::filesystem;

// The first line of a sysfs attribute, trimmed; "" if it cannot be read.
std::string ReadAttribute(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  if (!in || !std::getline(in, line)) return "";
  auto not_space = [](unsigned char c) { return !std::isspace(c); };
  line.erase(line.begin(), std::find_if(line.begin(), line.end(), not_space));
  line.erase(std::find_if(line.rbegin(), line.rend(), not_space).base(),
             line.end());
  return line;
}

uint64_t ReadNumber(const fs::path& file) {
  std::string text = ReadAttribute(file);
  if (text.empty()) return 0;
  try {
    return std::stoull(text);
  } catch (...) {
    return 0;
  }
}

bool IsPartition(const fs::path& node) {
  return fs::exists(node / "partition");
}

// The whole disk of a partition node, or the node itself.
fs::path WholeDisk(const fs::path& node) {
  return IsPartition(node) ? node.parent_path() : node;
}

std::vector<fs::path> Slaves(const fs::path& node) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(node / "slaves", ec)) {
    fs::path target = fs::canonical(entry.path(), ec);
    if (!ec) out.push_back(target);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Walks slaves/ down to the physical disks (through dm-crypt, LVM, md).
void CollectLeaves(const fs::path& node, int depth,
                   std::set<std::string>* leaves,
                   std::vector<fs::path>* leaf_nodes) {
  std::vector<fs::path> slaves = Slaves(node);
  if (slaves.empty() || depth > 8) {
    fs::path disk = WholeDisk(node);
    if (leaves->insert(disk.filename().string()).second)
      leaf_nodes->push_back(disk);
    return;
  }
  for (const fs::path& s : slaves)
    CollectLeaves(s, depth + 1, leaves, leaf_nodes);
}

void ReadQueue(const fs::path& disk, Topology* t) {
  fs::path q = disk / "queue";
  t->logical_block_size =
      static_cast<uint32_t>(ReadNumber(q / "logical_block_size"));
  t->physical_block_size =
      static_cast<uint32_t>(ReadNumber(q / "physical_block_size"));
  t->minimum_io_size = ReadNumber(q / "minimum_io_size");
  t->optimal_io_size = ReadNumber(q / "optimal_io_size");
  t->rotational = ReadNumber(q / "rotational") == 1;
  t->nr_requests = static_cast<int>(ReadNumber(q / "nr_requests"));
  t->max_sectors_kb = static_cast<int>(ReadNumber(q / "max_sectors_kb"));
  t->write_cache = ReadAttribute(q / "write_cache");
}

// md: level, chunk, the devices the array should have and its health,
// straight from md/ (Documentation/admin-guide/md.rst).
void ReadMd(const fs::path& node, Topology* t) {
  fs::path md = node / "md";
  t->raid_level = ReadAttribute(md / "level");
  t->chunk = ReadNumber(md / "chunk_size");
  t->raid_disks = static_cast<int>(ReadNumber(md / "raid_disks"));
  t->degraded = static_cast<int>(ReadNumber(md / "degraded"));
  t->sync_action = ReadAttribute(md / "sync_action");
}

// An array that is missing members, degraded or rebuilding serves I/O
// unlike the healthy array the plan will run on: say so.
void CheckMdHealth(const fs::path& md_node, Topology* t) {
  std::string name = md_node.filename().string();
  size_t present = Slaves(md_node).size();
  if (t->raid_disks > 0 && present != static_cast<size_t>(t->raid_disks)) {
    t->warnings.push_back(fmt::format(
        "{}: md/raid_disks = {} but {} member device{} in slaves/", name,
        t->raid_disks, present, present == 1 ? " is" : "s are"));
  }
  if (t->degraded > 0) {
    t->warnings.push_back(fmt::format(
        "{}: degraded, {} of {} devices missing; the figures are the "
        "survivors', not the healthy array's",
        name, t->degraded, t->raid_disks));
  }
  if (!t->sync_action.empty() && t->sync_action != "idle" &&
      t->sync_action != "frozen") {
    t->warnings.push_back(fmt::format(
        "{}: {} in progress (md/sync_action); its own I/O competes with "
        "the probe, probe again when it is idle",
        name, t->sync_action));
  }
}

// The start of partition |node| in bytes, and a warning when it is not a
// multiple of |unit|: every I/O aligned to |unit| then straddles two
// |straddled|.
std::optional<std::string> MisalignedStart(const fs::path& node, uint64_t unit,
                                           const std::string& unit_name,
                                           const std::string& straddled,
                                           uint64_t* start) {
  *start = ReadNumber(node / "start") * 512;  // always 512-byte sectors
  if (unit == 0 || *start % unit == 0) return std::nullopt;
  return fmt::format(
      "{}: starts at byte {}, not a multiple of the {} {}: aligned I/Os "
      "straddle two {}",
      node.filename().string(), *start, HumanSize(static_cast<double>(unit)),
      unit_name, straddled);
}

// A partition whose start is not a multiple of the stripe chunk (or of the
// device's minimum I/O size) splits aligned I/Os across two members.
void CheckPartitionStart(const fs::path& node, Topology* t) {
  bool chunked = t->chunk > 0;
  uint64_t unit =
      chunked ? t->chunk
              : std::max<uint64_t>(t->minimum_io_size, t->physical_block_size);
  auto warning = MisalignedStart(
      node, unit, chunked ? "chunk" : "minimum I/O size",
      chunked ? "members" : "physical blocks", &t->partition_start);
  if (warning) t->warnings.push_back(*warning);
}

// Members of an array or LV that are partitions: one starting off its
// disk's physical block (an old 63-sector DOS layout on a 4 KiB disk) turns
// every chunk written to it into read-modify-write cycles on that disk.
void CheckMemberPartitions(const fs::path& array, Topology* t) {
  for (const fs::path& member : Slaves(array)) {
    if (!IsPartition(member)) continue;
    fs::path q = WholeDisk(member) / "queue";
    uint64_t unit = std::max(ReadNumber(q / "minimum_io_size"),
                             ReadNumber(q / "physical_block_size"));
    uint64_t start = 0;
    auto warning = MisalignedStart(member, unit, "physical block size",
                                   "physical blocks of its disk", &start);
    if (warning) {
      t->warnings.push_back(array.filename().string() + " member " + *warning);
    }
  }
}

// The kernel's own verdict for stacked devices (dm, md) that have no
// partition start to check: alignment_offset is how far the device's start
// lies from the natural alignment of what is below it.
void CheckAlignmentOffset(const fs::path& node, Topology* t) {
  uint64_t offset = ReadNumber(node / "alignment_offset");
  if (offset == 0) return;
  t->warnings.push_back(fmt::format(
      "{}: alignment_offset = {} bytes: it starts off the physical blocks "
      "below it, so aligned I/Os straddle two",
      node.filename().string(), offset));
}

bool ResolveNode(const SystemPaths& paths, dev_t device, fs::path* node) {
  return BlockDeviceNode(paths, device, node);
}

// dm: the table is not in sysfs, so the target is inferred: a striped LV
// reports io hints of chunk / chunk x stripes over as many slaves; dm-crypt
// names itself in its uuid.
void ReadDm(const fs::path& node, Topology* t) {
  std::string uuid = ReadAttribute(node / "dm" / "uuid");
  size_t slaves = Slaves(node).size();
  if (uuid.rfind("CRYPT-", 0) == 0) {
    t->dm_target = "crypt";
  } else if (slaves >= 2 && t->minimum_io_size > t->logical_block_size &&
             t->optimal_io_size == t->minimum_io_size * slaves) {
    t->dm_target = "striped";
    t->chunk = t->minimum_io_size;
  } else {
    t->dm_target = "linear";
  }
}

std::string ModelOf(const fs::path& disk) {
  std::string model = ReadAttribute(disk / "device" / "model");
  if (model.empty())
    model = ReadAttribute(disk / "device" / "device" / "model");
  return model;
}

bool StartsWith(const std::string& s, std::string_view prefix) {
  return s.rfind(prefix, 0) == 0;
}

std::string OrNone(const std::string& s) { return s.empty() ? "none" : s; }

}  // namespace

std::string ClassifyKind(const std::string& disk, const std::string& model,
                         bool rotational) {
  if (model == "Amazon Elastic Block Store") return "aws-ebs";
  if (model == "Amazon EC2 NVMe Instance Storage") return "aws-instance-store";
  if (StartsWith(model, "Microsoft NVMe Direct Disk"))
    return "azure-local-nvme";
  if (StartsWith(model, "MSFT NVMe Accelerator")) return "azure-disk";
  if (model == "Virtual_Disk" || model == "Virtual Disk") return "azure-disk";
  if (model == "nvme_card-pd") return "gcp-pd";
  if (StartsWith(model, "nvme_card")) return "gcp-local-ssd";
  if (StartsWith(model, "PersistentDisk")) return "gcp-pd";
  if (StartsWith(disk, "nvme")) return "local-nvme";
  if (StartsWith(disk, "vd")) return "virtio";
  if (StartsWith(disk, "xvd")) return "xen";
  return rotational ? "hdd" : "ssd";
}

Status DiscoverTopology(const SystemPaths& paths, dev_t device,
                        const std::string& path, Topology* topology) {
  Topology t;
  unsigned major = ::major(device), minor = ::minor(device);
  t.dev = DeviceNumber(device);
  std::vector<MountEntry> mounts = ReadMountInfo(paths);
  if (const MountEntry* m = FindMount(mounts, major, minor, path);
      m != nullptr) {
    t.filesystem = m->fstype;
    t.mount_point = m->mount_point;
    t.mount_options = m->options;
  }
  fs::path node;
  if (!ResolveNode(paths, device, &node)) {
    *topology = std::move(t);  // no block device behind this filesystem
    return Status::Ok();
  }
  t.device = node.filename().string();
  fs::path disk = WholeDisk(node);
  if (disk != node) t.disk = disk.filename().string();
  ReadQueue(disk, &t);
  if (fs::exists(disk / "md")) {
    ReadMd(disk, &t);
    CheckMdHealth(disk, &t);
  }
  if (fs::exists(node / "dm")) ReadDm(node, &t);
  if (IsPartition(node)) {
    CheckPartitionStart(node, &t);
  } else {
    CheckAlignmentOffset(node, &t);
  }
  CheckMemberPartitions(disk, &t);
  std::set<std::string> leaves;
  std::vector<fs::path> leaf_nodes;
  // A partition of an md array has its members on the array's node.
  CollectLeaves(disk, 0, &leaves, &leaf_nodes);
  if (!Slaves(disk).empty()) t.members.assign(leaves.begin(), leaves.end());
  std::set<std::string> kinds;
  for (const fs::path& leaf : leaf_nodes) {
    std::string model = ModelOf(leaf);
    if (t.model.empty()) t.model = model;
    bool rotational = ReadNumber(leaf / "queue" / "rotational") == 1;
    kinds.insert(ClassifyKind(leaf.filename().string(), model, rotational));
  }
  t.kind = kinds.size() == 1 ? *kinds.begin() : "mixed";
  *topology = std::move(t);
  return Status::Ok();
}

void RecheckArrayHealth(const SystemPaths& paths, dev_t device,
                        Topology* topology) {
  fs::path node;
  if (topology->raid_level.empty() || !ResolveNode(paths, device, &node)) {
    return;
  }
  fs::path md = WholeDisk(node) / "md";
  int degraded = static_cast<int>(ReadNumber(md / "degraded"));
  std::string sync_action = ReadAttribute(md / "sync_action");
  if (degraded == topology->degraded && sync_action == topology->sync_action) {
    return;
  }
  topology->warnings.push_back(fmt::format(
      "{}: changed while it was probed (md/sync_action {} -> {}, md/degraded "
      "{} -> {}): the figures describe neither state; probe it again",
      WholeDisk(node).filename().string(), OrNone(topology->sync_action),
      OrNone(sync_action), topology->degraded, degraded));
  topology->degraded = degraded;
  topology->sync_action = sync_action;
}

void ApplyTopology(const Topology& t, Volume* volume) {
  volume->kind = t.kind;
  volume->stripe_width = FullStripeWidth(t);
  bool striped =
      (t.raid_level == "raid0" && t.chunk > 0) || t.dm_target == "striped";
  if (!striped) {
    volume->members = 1;
    volume->chunk = 0;
    return;
  }
  volume->chunk = t.chunk;
  // md: the devices the array is made of, even when one is missing.
  int members =
      t.raid_disks > 0 ? t.raid_disks : static_cast<int>(t.members.size());
  if (t.dm_target == "striped" && t.chunk > 0 && t.optimal_io_size > 0) {
    members = static_cast<int>(t.optimal_io_size / t.chunk);
  }
  volume->members = std::max(1, members);
}

std::vector<std::string> PhysicalDisks(const Topology& t) {
  if (!t.members.empty()) return t.members;
  if (!t.disk.empty()) return {t.disk};
  if (!t.device.empty()) return {t.device};
  return {};
}

Host DiscoverHost(const SystemPaths& paths) {
  Host host;
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  long pages = sysconf(_SC_PHYS_PAGES);
  long page_size = sysconf(_SC_PAGESIZE);
  host.vcpus = cpus > 0 ? static_cast<int>(cpus) : 0;
  host.memory =
      pages > 0 && page_size > 0
          ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size)
          : 0;
  host.instance_type = ReadAttribute(fs::path(paths.sysfs_root) / "class" /
                                     "dmi" / "id" / "product_name");
  return host;
}

}  // namespace pglayout::probes
