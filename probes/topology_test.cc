#include "probes/topology.h"

#include <gtest/gtest.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/units.h"

namespace pglayout::probes {
namespace {

SystemPaths Fixture(const std::string& name) {
  std::string root = "probes/testdata/" + name;
  return SystemPaths{root + "/sys", root + "/mountinfo"};
}

Topology Discover(const std::string& fixture, unsigned major, unsigned minor,
                  const std::string& path) {
  Topology t;
  Status st =
      DiscoverTopology(Fixture(fixture), makedev(major, minor), path, &t);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return t;
}

TEST(Topology, MdRaid0OfFourInstanceStoreNvme) {
  Topology t = Discover("md_raid0_nvme", 9, 127, "/pgdata/base");
  EXPECT_EQ(t.device, "md127");
  EXPECT_EQ(t.disk, "");
  EXPECT_EQ(t.raid_level, "raid0");
  EXPECT_EQ(t.chunk, 512 * kKiB);
  EXPECT_EQ(t.members, (std::vector<std::string>{"nvme1n1", "nvme2n1",
                                                 "nvme3n1", "nvme4n1"}));
  EXPECT_EQ(t.kind,
            "aws-instance-store");  // the boot EBS volume is not a member
  EXPECT_EQ(t.model, "Amazon EC2 NVMe Instance Storage");
  EXPECT_EQ(t.minimum_io_size, 512 * kKiB);
  EXPECT_EQ(t.optimal_io_size, 2 * kMiB);
  EXPECT_EQ(t.max_sectors_kb, 512);
  EXPECT_EQ(t.raid_disks, 4);
  EXPECT_EQ(t.degraded, 0);
  EXPECT_TRUE(t.warnings.empty()) << t.warnings[0];
  EXPECT_EQ(t.filesystem, "xfs");
  EXPECT_NE(t.mount_options.find("swidth=4096"), std::string::npos);
  EXPECT_EQ(t.mount_options.rfind("rw,noatime,attr2", 0), 0u)
      << t.mount_options;

  Volume v;
  ApplyTopology(t, &v);
  EXPECT_EQ(v.members, 4);
  EXPECT_EQ(v.chunk, 512 * kKiB);
  EXPECT_EQ(v.stripe_width, 2 * kMiB);  // md/chunk_size x md/raid_disks
  EXPECT_EQ(v.kind, "aws-instance-store");

  Host h = DiscoverHost(Fixture("md_raid0_nvme"));
  EXPECT_EQ(h.instance_type, "i8ge.12xlarge");
  EXPECT_GT(h.vcpus, 0);
}

TEST(Topology, LvmStripedVolumeIsRecognisedFromItsIoHints) {
  Topology t = Discover("lvm_striped", 253, 2, "/u02/pg data/16/main");
  EXPECT_EQ(t.device, "dm-2");
  EXPECT_EQ(t.dm_target, "striped");
  EXPECT_EQ(t.chunk, 64 * kKiB);
  EXPECT_EQ(t.members, (std::vector<std::string>{"sdb", "sdc", "sdd", "sde"}));
  EXPECT_EQ(t.kind, "ssd");
  EXPECT_EQ(t.model, "BlockVolume");
  EXPECT_EQ(t.physical_block_size, 4096u);
  EXPECT_EQ(t.filesystem, "ext4");  // the mount point has an escaped space
  EXPECT_NE(t.mount_options.find("stripe=64"), std::string::npos);
  Volume v;
  ApplyTopology(t, &v);
  EXPECT_EQ(v.members, 4);
  EXPECT_EQ(v.chunk, 64 * kKiB);
  EXPECT_EQ(v.stripe_width, 256 * kKiB);  // optimal_io_size: chunk x stripes
}

TEST(Topology, EbsNvmeVolume) {
  Topology t = Discover("ebs_nvme", 259, 1, "/mnt/wal/pg_wal");
  EXPECT_EQ(t.device, "nvme1n1");
  EXPECT_EQ(t.kind, "aws-ebs");
  EXPECT_EQ(t.model, "Amazon Elastic Block Store");
  EXPECT_TRUE(t.members.empty());
  EXPECT_EQ(t.filesystem, "ext4");
  EXPECT_EQ(t.mount_options, "rw,noatime,data=ordered");
  EXPECT_FALSE(t.rotational);
  EXPECT_EQ(t.nr_requests, 255);
  Volume v;
  ApplyTopology(t, &v);
  EXPECT_EQ(v.members, 1);
  EXPECT_EQ(v.chunk, 0u);
  EXPECT_EQ(v.stripe_width, 0u);
  EXPECT_EQ(PhysicalDisks(t), std::vector<std::string>{"nvme1n1"});
  EXPECT_EQ(DiscoverHost(Fixture("ebs_nvme")).instance_type, "m7g.xlarge");
}

TEST(Topology, VirtioPartitionReadsItsDisksQueue) {
  Topology t = Discover("virtio_partitions", 254, 2, "/var/lib/postgresql");
  EXPECT_EQ(t.device, "vda2");
  EXPECT_EQ(t.disk, "vda");
  EXPECT_EQ(t.kind, "virtio");
  EXPECT_TRUE(t.rotational);
  EXPECT_EQ(t.logical_block_size, 512u);
  EXPECT_EQ(t.physical_block_size, 4096u);
  EXPECT_EQ(t.write_cache, "write back");
  EXPECT_EQ(t.filesystem, "ext4");
  EXPECT_EQ(PhysicalDisks(t), std::vector<std::string>{"vda"});
  EXPECT_EQ(t.partition_start, 1050624u * 512);  // 513 MiB: aligned
  EXPECT_TRUE(t.warnings.empty());
  // The boot partition is another filesystem on the same disk.
  Topology boot = Discover("virtio_partitions", 254, 1, "/boot/grub");
  EXPECT_EQ(boot.filesystem, "vfat");
  EXPECT_EQ(PhysicalDisks(boot), PhysicalDisks(t));
}

TEST(Topology, DegradedResyncingArrayAndMisalignedPartitionAreFlagged) {
  Topology t = Discover("md_raid10_degraded", 259, 5, "/srv/pg/16");
  EXPECT_EQ(t.device, "md1p1");
  EXPECT_EQ(t.disk, "md1");
  EXPECT_EQ(t.raid_level, "raid10");
  EXPECT_EQ(t.chunk, 512 * kKiB);
  EXPECT_EQ(t.raid_disks, 4);
  EXPECT_EQ(t.degraded, 1);
  EXPECT_EQ(t.sync_action, "recover");
  EXPECT_EQ(t.members, (std::vector<std::string>{"sda", "sdb", "sdc"}));
  EXPECT_EQ(t.partition_start, 1000u * 512);
  ASSERT_EQ(t.warnings.size(), 4u);
  EXPECT_EQ(t.warnings[0],
            "md1: md/raid_disks = 4 but 3 member devices are in slaves/");
  EXPECT_NE(t.warnings[1].find("md1: degraded, 1 of 4 devices missing"),
            std::string::npos);
  EXPECT_NE(t.warnings[2].find("md1: recover in progress"), std::string::npos);
  EXPECT_NE(t.warnings[3].find("md1p1: starts at byte 512000, not a multiple "
                               "of the 512 KiB chunk"),
            std::string::npos)
      << t.warnings[3];
  EXPECT_EQ(t.filesystem, "xfs");
  // A mirror serves reads from either copy: no full stripe to span.
  Volume v;
  ApplyTopology(t, &v);
  EXPECT_EQ(v.stripe_width, 0u);
}

TEST(Topology, MisalignedMemberPartitionIsFlagged) {
  Topology t = Discover("md_raid0_partition_members", 9, 0, "/pgwal");
  EXPECT_EQ(t.raid_level, "raid0");
  EXPECT_EQ(t.members, (std::vector<std::string>{"sda", "sdb"}));
  // sda1 starts at sector 63 (32256 bytes) on a 4 KiB-sector disk; sdb1 at
  // 1 MiB is fine, and so is md0 itself (alignment_offset 0).
  ASSERT_EQ(t.warnings.size(), 1u) << t.warnings.at(1);
  EXPECT_EQ(t.warnings[0],
            "md0 member sda1: starts at byte 32256, not a multiple of the 4 "
            "KiB physical block size: aligned I/Os straddle two physical "
            "blocks of its disk");
}

// A copy of a fixture tree that a test may change (symlinks kept).
std::string CopyFixture(const std::string& name) {
  namespace fs = std::filesystem;
  fs::path to = fs::path(::testing::TempDir()) /
                ("topology_" + name + "_" + std::to_string(getpid()));
  fs::remove_all(to);
  fs::copy("probes/testdata/" + name, to,
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  return to.string();
}

TEST(Topology, ArrayHealthChangingDuringTheProbeIsFlagged) {
  std::string root = CopyFixture("md_raid0_partition_members");
  SystemPaths paths{root + "/sys", root + "/mountinfo"};
  Topology t;
  ASSERT_TRUE(DiscoverTopology(paths, makedev(9, 0), "/pgwal", &t).ok());
  size_t before = t.warnings.size();
  RecheckArrayHealth(paths, makedev(9, 0), &t);
  EXPECT_EQ(t.warnings.size(), before) << "nothing changed yet";

  std::ofstream(root + "/sys/block/md0/md/sync_action") << "check\n";
  RecheckArrayHealth(paths, makedev(9, 0), &t);
  ASSERT_EQ(t.warnings.size(), before + 1);
  EXPECT_EQ(t.warnings.back(),
            "md0: changed while it was probed (md/sync_action idle -> check, "
            "md/degraded 0 -> 0): the figures describe neither state; probe "
            "it again");
  EXPECT_EQ(t.sync_action, "check");
  std::filesystem::remove_all(root);
}

TEST(Topology, NoBlockDeviceLeavesOnlyTheFilesystem) {
  Topology t = Discover("virtio_partitions", 0, 23, "/dev/shm/x");
  EXPECT_EQ(t.device, "");
  EXPECT_EQ(t.filesystem, "tmpfs");
  EXPECT_TRUE(PhysicalDisks(t).empty());
}

TEST(MountInfo, ParsesOptionalFieldsAndEscapes) {
  std::vector<MountEntry> m = ParseMountInfo(
      "36 35 98:0 /mnt1 /mnt/a\\040b rw,noatime master:1 shared:2 - ext3 "
      "/dev/root "
      "rw,errors=continue\n"
      "garbage line\n"
      "37 35 8:1 / / rw - ext4 /dev/sda1 rw\n");
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].major, 98u);
  EXPECT_EQ(m[0].mount_point, "/mnt/a b");
  EXPECT_EQ(m[0].fstype, "ext3");
  EXPECT_EQ(m[0].source, "/dev/root");
  EXPECT_EQ(m[0].options, "rw,noatime,errors=continue");
  EXPECT_EQ(FindMount(m, 98, 0, "/mnt/a b/x")->fstype, "ext3");
  EXPECT_EQ(FindMount(m, 8, 1, "/mnt/a bc")->fstype, "ext4");  // not a prefix
}

TEST(ClassifyKind, CloudModelStrings) {
  EXPECT_EQ(ClassifyKind("nvme1n1", "Amazon Elastic Block Store", false),
            "aws-ebs");
  EXPECT_EQ(ClassifyKind("nvme2n1", "Amazon EC2 NVMe Instance Storage", false),
            "aws-instance-store");
  EXPECT_EQ(ClassifyKind("nvme0n1", "Microsoft NVMe Direct Disk v2", false),
            "azure-local-nvme");
  EXPECT_EQ(ClassifyKind("nvme0n2", "MSFT NVMe Accelerator v1.0", false),
            "azure-disk");
  EXPECT_EQ(ClassifyKind("nvme0n1", "nvme_card-pd", false), "gcp-pd");
  EXPECT_EQ(ClassifyKind("nvme1n1", "nvme_card3", false), "gcp-local-ssd");
  EXPECT_EQ(ClassifyKind("nvme0n1", "Samsung SSD 990 PRO 2TB", false),
            "local-nvme");
  EXPECT_EQ(ClassifyKind("sda", "ST4000NM0035", true), "hdd");
  EXPECT_EQ(ClassifyKind("xvdf", "", false), "xen");
}

}  // namespace
}  // namespace pglayout::probes
