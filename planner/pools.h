// Hardware that several volumes share, as pools of capacity: volumes on one
// device (each as busy as the sum of their loads), the instance's storage
// caps (the peak's total I/O against the cap), and what `probe --concurrent`
// measured (volumes slower together than alone). A pool is judged against
// the target like a volume.
// Why: docs/device-model.md#shared-hardware.

#ifndef PGLAYOUT_PLANNER_POOLS_H_
#define PGLAYOUT_PLANNER_POOLS_H_

#include <optional>
#include <string>
#include <vector>

#include "common/model.h"
#include "common/status.h"
#include "planner/demand.h"

namespace pglayout::planner {

struct DevicePools {
  std::vector<int> pool_of;  // per volume: its pool, -1 = alone on its device
  std::vector<std::vector<int>> members;  // per pool: volume indices, >= 2
  std::vector<std::string> names;         // per pool: "device vda"

  // Volumes |a| and |b| are on one device (a volume is on its own).
  bool Same(int a, int b) const {
    return a == b || (pool_of[a] >= 0 && pool_of[a] == pool_of[b]);
  }
  // Distinct devices under the volumes.
  int Devices() const;
};

// The pools of |volumes| from their shares_device_with, which is read as
// symmetric. InvalidInput when it names a volume that is not in the set.
Status FindDevicePools(const VolumeSet& volumes, DevicePools* out);

// A pool of hardware as the plan forecasts it.
struct PoolForecast {
  std::string kind;                  // "device", "instance" or "measured"
  std::string name;                  // "device vda", "instance"
  std::vector<std::string> volumes;  // its volumes; empty = every volume
  double utilization = 0;            // at the peak, after the plan
  std::string detail;                // what makes it up, for people
  // Its volumes each show its utilisation in the plan's forecast (a
  // device); false for the instance, which the forecast has no entry for.
  bool in_forecast = false;
};

// The instance's storage caps as a pool under |load|; nullopt when the
// host declares no cap.
std::optional<PoolForecast> InstancePool(const Host& host,
                                         const InstanceLoad& load);

// probe --concurrent's ratios below this mean a shared bottleneck (the
// probe's own threshold, probes/concurrent.h).
inline constexpr double kIndependentRatio = 0.8;

// The pool of what probe --concurrent measured
// (docs/device-model.md#shared-hardware), with |own| the
// utilisation of each volume of |set| by its own load; nullopt when there
// is no measurement, the volumes were independent, or |devices| already
// explains the sharing.
std::optional<PoolForecast> MeasuredPool(const VolumeSet& set,
                                         const DevicePools& devices,
                                         const std::vector<double>& own);

}  // namespace pglayout::planner

#endif  // PGLAYOUT_PLANNER_POOLS_H_
