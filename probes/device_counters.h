// I/O on the probed device that is not the probe's own: the device's
// counters (/proc/diskstats) around a point, less what the probe issued;
// writes are judged in read points only. Found at kForeignShare of the
// probe's own bytes and at least kForeignMinBytes. DeviceCounters is the
// seam: DiskstatsCounters reads /proc/diskstats, the tests give their own.
// Why: docs/probe.md#io-that-is-not-the-probes-own.

#ifndef PGLAYOUT_PROBES_DEVICE_COUNTERS_H_
#define PGLAYOUT_PROBES_DEVICE_COUNTERS_H_

#include <cstdint>
#include <string>

#include "common/status.h"
#include "common/units.h"

namespace pglayout::probes {

inline constexpr double kForeignShare = 0.05;
inline constexpr uint64_t kForeignMinBytes = 4 * kMiB;

// Cumulative bytes the block device read and wrote.
struct DiskCounters {
  uint64_t read_bytes = 0;
  uint64_t write_bytes = 0;
};

class DeviceCounters {
 public:
  virtual ~DeviceCounters() = default;
  virtual std::string device() const = 0;  // as people know it: "vdb"
  virtual Status Read(DiskCounters* out) = 0;
};

// Reads |device|'s counters from |path| (/proc/diskstats) on every Read.
class DiskstatsCounters final : public DeviceCounters {
 public:
  explicit DiskstatsCounters(std::string device,
                             std::string path = "/proc/diskstats")
      : device_(std::move(device)), path_(std::move(path)) {}
  std::string device() const override { return device_; }
  Status Read(DiskCounters* out) override;

 private:
  std::string device_;
  std::string path_;
};

// What the probe issued in one point, warm-up included.
struct OwnIo {
  uint64_t read_bytes = 0;
  uint64_t write_bytes = 0;
};

struct ForeignIo {
  uint64_t read_bytes = 0;   // reads the probe did not issue
  uint64_t write_bytes = 0;  // writes it did not issue (read points only)
  double share = 0;          // their sum over the probe's own bytes
  bool found = false;        // share >= kForeignShare, >= kForeignMinBytes
};

// The device's I/O between |before| and |after| beyond |own| (see above).
ForeignIo JudgeForeignIo(const DiskCounters& before, const DiskCounters& after,
                         const OwnIo& own);

// "12 MiB of reads and 3 MiB of writes (+30% on the probe's own)".
std::string DescribeForeignIo(const ForeignIo& foreign);

}  // namespace pglayout::probes

#endif  // PGLAYOUT_PROBES_DEVICE_COUNTERS_H_
