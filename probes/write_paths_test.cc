#include "probes/write_paths.h"

#include <gtest/gtest.h>

#include "common/units.h"
#include "probes/simulated_device.h"

namespace pglayout::probes {
namespace {

TEST(WritePaths, DirectWriteIsTimedUntilDurable) {
  SimulatedDeviceConfig c;
  c.members = 4;
  c.flush_us = 200'000;  // a slow flush, so it shows in the figures
  SimulatedDevice device(c);
  DurableWrite d;
  Status st = MeasureDirectWrite(&device, 256 * kMiB + 5, 30, &d);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(d.bytes, 256 * kMiB);  // whole MiB only
  EXPECT_DOUBLE_EQ(d.sync_seconds, 0.2);
  EXPECT_GT(d.seconds_to_durable, d.sync_seconds);
  EXPECT_NEAR(d.mbps, static_cast<double>(d.bytes) / d.seconds_to_durable / 1e6,
              1e-6);
  // Each member writes a 512 KiB piece in 30 + 524.288 us; four members
  // stream 256 MiB in 71 ms, then the 200 ms flush: 990 MB/s amortised.
  double piece_us = 30 + 524288 / 1000.0;
  double stream_s = 256.0 * kMiB / (4 * 524288 / piece_us) / 1e6;
  EXPECT_NEAR(d.seconds_to_durable, stream_s + 0.2, 0.01);
  EXPECT_NEAR(d.mbps, 256.0 * kMiB / (stream_s + 0.2) / 1e6, 10);
  EXPECT_EQ(device.bytes_written(), 256 * kMiB);
}

TEST(WritePaths, DirectWriteStopsAtItsTimeCap) {
  SimulatedDeviceConfig c;  // one member: 1000 MB/s
  SimulatedDevice device(c);
  DurableWrite d;
  ASSERT_TRUE(MeasureDirectWrite(&device, 4 * kGiB, 0.5, &d).ok());
  EXPECT_LT(d.bytes, 1 * kGiB);
  EXPECT_GT(d.bytes, 100 * kMiB);
}

TEST(WritePaths, DirectWriteErrorsSayWhatFailed) {
  SimulatedDeviceConfig c;
  c.fail_after_write_bytes = 8 * kMiB;
  c.fail_errno = ENOSPC;
  SimulatedDevice device(c);
  DurableWrite d;
  Status st = MeasureDirectWrite(&device, 64 * kMiB, 30, &d);
  EXPECT_EQ(st.code(), Status::Code::kIoError);
  EXPECT_NE(st.message().find("no space left"), std::string::npos)
      << st.message();
}

TEST(WritePaths, BufferedWriteRefusesLessThanOneMiB) {
  DurableWrite d;
  Status st = MeasureBufferedWrite("/nonexistent", 4096, 1, &d);
  EXPECT_EQ(st.code(), Status::Code::kInvalidInput);
}

TEST(WritePaths, BufferedWriteOfAMissingFileNamesIt) {
  DurableWrite d;
  Status st = MeasureBufferedWrite("/nonexistent/probe", 4 * kMiB, 1, &d);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("/nonexistent/probe"), std::string::npos);
}

}  // namespace
}  // namespace pglayout::probes
