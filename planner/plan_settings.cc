#include "planner/plan_settings.h"

#include <algorithm>

#include "common/plan_setting_names.h"
#include "common/stripe_read.h"
#include "planner/remedy.h"

namespace pglayout::planner {
namespace {

// What the WAL may use: a new stripe is empty; a volume has its free bytes
// (or its capacity) less the data the plan puts on it.
uint64_t WalFreeBytes(const PlanInputs& in, const WalPlacement& wal,
                      const Layout& layout) {
  if (wal.stripe) return wal.stripe->model.capacity_bytes();
  const Volume& volume = in.volumes.volumes[wal.volume];
  uint64_t free = volume.free_bytes > 0 ? volume.free_bytes : volume.capacity;
  const int wal_bin = layout.BinOfVolume(wal.volume);
  if (wal_bin >= 0) free -= std::min(free, layout.result.bytes[wal_bin]);
  return free;
}

// The widest full stripe under the data: the plan's stripe, else the
// widest of the data volumes.
uint64_t StripeWidth(const PlanInputs& in, const Layout& layout,
                     const std::optional<StripeState>& stripe) {
  if (stripe) return kStripeChunk * stripe->members.size();
  uint64_t widest = 0;
  for (int v : layout.bin_volume) {
    if (v < 0) continue;
    widest = std::max(widest, FullStripe(in.volumes.volumes[v]).width);
  }
  return widest;
}

// The volume a base backup reads most from: pg_default's, else the stripe
// the plan builds (its members and chunk: nothing measured yet), else the
// one the plan puts most bytes on.
Volume BackupVolume(const PlanInputs& in, const Layout& layout,
                    const std::optional<StripeState>& stripe) {
  if (in.default_volume >= 0) return in.volumes.volumes[in.default_volume];
  if (stripe) {
    Volume v;
    v.name = stripe->name;
    v.members = static_cast<int>(stripe->members.size());
    v.chunk = kStripeChunk;
    return v;
  }
  int most = 0;
  for (size_t b = 1; b < layout.bins.size(); ++b) {
    if (layout.result.bytes[b] > layout.result.bytes[most]) {
      most = static_cast<int>(b);
    }
  }
  if (layout.bin_volume[most] >= 0) {
    return in.volumes.volumes[layout.bin_volume[most]];
  }
  Volume v;
  v.name = "the data";
  return v;
}

}  // namespace

PlanSettings RecommendSettings(const PlanInputs& in, const WalPlacement& wal,
                               const Layout& layout,
                               const std::optional<StripeState>& stripe,
                               const LayoutFigures& figures) {
  PlanSettings out;
  CheckpointInput checkpoint{&in.workload, in.wal.bytes_per_second,
                             WalFreeBytes(in, wal, layout),
                             in.options.recovery_budget_seconds};
  out.settings = RecommendCheckpoints(checkpoint);
  IoInput io;
  io.server_version_num = in.version;
  io.workload = &in.workload;
  io.default_volume = in.default_volume >= 0 ? &in.models[in.default_volume]
                                             : layout.bins[0].model;
  io.read_iops = figures.read_iops;
  io.read_latency_us = figures.mean_latency_us;
  io.stripe_width = StripeWidth(in, layout, stripe);
  for (SettingChange& s : RecommendIo(io)) out.settings.push_back(s);
  // The plan reader refuses any other name (common/model.h): a setting the
  // list lacks would make the plan unreadable; recommend_test.cc keeps the
  // recommenders and the list equal.
  std::erase_if(out.settings,
                [](const SettingChange& s) { return !IsPlanSetting(s.name); });
  out.backup = RecommendBackup(
      in.volumes.host, ChooseBackupReadSize(BackupVolume(in, layout, stripe)));
  return out;
}

}  // namespace pglayout::planner
