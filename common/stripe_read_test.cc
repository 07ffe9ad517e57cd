#include "common/stripe_read.h"

#include <gtest/gtest.h>

#include "common/units.h"

namespace pglayout {
namespace {

Topology Md(const std::string& level, int disks, uint64_t chunk) {
  Topology t;
  t.raid_level = level;
  t.raid_disks = disks;
  t.chunk = chunk;
  return t;
}

TEST(FullStripeWidth, CountsTheMembersThatHoldData) {
  EXPECT_EQ(FullStripeWidth(Md("raid0", 4, 512 * kKiB)), 2 * kMiB);
  EXPECT_EQ(FullStripeWidth(Md("raid5", 4, 512 * kKiB)), 1536 * kKiB);
  EXPECT_EQ(FullStripeWidth(Md("raid6", 6, 256 * kKiB)), 1 * kMiB);
  // Mirrors read from either copy; linear has no stripe.
  EXPECT_EQ(FullStripeWidth(Md("raid10", 4, 512 * kKiB)), 0u);
  EXPECT_EQ(FullStripeWidth(Md("raid1", 2, 0)), 0u);
  EXPECT_EQ(FullStripeWidth(Md("linear", 2, 0)), 0u);
  Topology lv;
  lv.dm_target = "striped";
  lv.chunk = 64 * kKiB;
  lv.minimum_io_size = 64 * kKiB;
  lv.optimal_io_size = 256 * kKiB;
  EXPECT_EQ(FullStripeWidth(lv), 256 * kKiB);
  // A file without raid_disks: the members it lists.
  Topology listed = Md("raid0", 0, 512 * kKiB);
  listed.members = {"nvme1n1", "nvme2n1"};
  EXPECT_EQ(FullStripeWidth(listed), 1 * kMiB);
}

TEST(FullStripe, TheVolumesKeyThenItsTopologyThenItsDeclaredMembers) {
  Volume v;
  EXPECT_EQ(FullStripe(v).width, 0u);
  v.members = 4;
  v.chunk = 512 * kKiB;
  EXPECT_EQ(FullStripe(v).width, 2 * kMiB);
  // A probed RAID5 of 4: three of its members hold data.
  v.topology = Md("raid5", 4, 512 * kKiB);
  EXPECT_EQ(FullStripe(v).width, 1536 * kKiB);
  v.stripe_width = 4 * kMiB;
  EXPECT_EQ(FullStripe(v).width, 4 * kMiB);
}

// A probed volume whose three sweeps gave |min| .. |max| around |size|.
Volume Probed(uint64_t size, uint64_t min, uint64_t max) {
  Volume v;
  v.name = "data";
  v.probe_engine = "io_uring";
  v.stripe_read_size = size;
  v.stripe_read_size_min = min;
  v.stripe_read_size_max = max;
  v.stripe_read_repeats = 3;
  for (uint64_t s = 128 * kKiB; s <= 16 * kMiB; s *= 2) {
    v.seqread.push_back({s, 1, 100});
  }
  return v;
}

TEST(CheckStripeReadSize, TrustsSweepsThatAgreeAndFitTheStripe) {
  Volume v = Probed(4 * kMiB, 2 * kMiB, 4 * kMiB);
  v.members = 4;
  v.chunk = 512 * kKiB;
  v.stripe_width = 2 * kMiB;
  StripeReadCheck c = CheckStripeReadSize(v);
  EXPECT_TRUE(c.trusted) << c.why;
  EXPECT_NE(c.why.find("at least the full stripe of 2 MiB (512 KiB x 4)"),
            std::string::npos)
      << c.why;
  // Without the stripe_width key, chunk x members of a declared stripe.
  v.stripe_width = 0;
  EXPECT_EQ(FullStripe(v).width, 2 * kMiB);
  EXPECT_TRUE(CheckStripeReadSize(v).trusted);
}

TEST(CheckStripeReadSize, SaysWhyItDoesNotTrustAFigure) {
  struct Case {
    Volume volume;
    const char* why;
  };
  Volume one = Probed(1 * kMiB, 1 * kMiB, 1 * kMiB);
  one.stripe_read_repeats = 1;
  Volume old = Probed(1 * kMiB, 0, 0);  // a probe from before the repeats
  old.stripe_read_repeats = 0;
  Volume rising = Probed(4 * kMiB, 4 * kMiB, 4 * kMiB);
  rising.seqread.back().mbps = 150;  // 16 MiB: half again the plateau
  Volume below = Probed(1 * kMiB, 1 * kMiB, 1 * kMiB);
  below.stripe_width = 2 * kMiB;
  const Case cases[] = {
      {Probed(0, 0, 0), "not measured"},
      {Probed(1 * kMiB, 128 * kKiB, 16 * kMiB), "range from 128 KiB to 16 MiB"},
      {Probed(1 * kMiB, 512 * kKiB, 2 * kMiB), "more than 2x apart"},
      {one, "one sweep"},
      {old, "one sweep"},
      {rising, "not settled by 16 MiB"},
      {Probed(2 * kMiB, 512 * kKiB, 1 * kMiB), "outside the knees"},
      {below, "below the full stripe of 2 MiB"},
  };
  for (const Case& c : cases) {
    StripeReadCheck check = CheckStripeReadSize(c.volume);
    EXPECT_FALSE(check.trusted) << c.why;
    EXPECT_NE(check.why.find(c.why), std::string::npos) << check.why;
  }
}

TEST(CheckStripeReadSize, TakesADeclaredSizeAsThePersonsOwn) {
  Volume v;
  v.name = "data";
  v.stripe_read_size = 1 * kMiB;
  StripeReadCheck c = CheckStripeReadSize(v);
  EXPECT_TRUE(c.trusted);
  EXPECT_EQ(c.why, "declared; the geometry is not known");
}

}  // namespace
}  // namespace pglayout
