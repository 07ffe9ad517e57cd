#include "planner/plan_inputs.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>

#include "planner/recommend.h"

namespace pglayout::planner {
namespace {

Status CheckOptions(const PlanOptions& opt) {
  if (!(opt.target_utilization > 0 && opt.target_utilization <= 1)) {
    return Status::InvalidInput(
        fmt::format("--target must be a fraction in (0, 1], got {}",
                    opt.target_utilization));
  }
  if (opt.prefer != "auto" && opt.prefer != "partition" &&
      opt.prefer != "stripe") {
    return Status::InvalidInput(fmt::format(
        "--prefer must be partition, stripe or auto, got '{}'", opt.prefer));
  }
  if (!(opt.headroom >= 0 && opt.headroom < 1)) {
    return Status::InvalidInput(fmt::format(
        "--headroom must be a fraction in [0, 1), got {}", opt.headroom));
  }
  if (!(opt.backup_window_seconds >= 0)) {
    return Status::InvalidInput(
        fmt::format("--backup-window must not be negative, got {} s",
                    opt.backup_window_seconds));
  }
  return Status::Ok();
}

const TableDemand* FindTable(const PlanInputs& in, const std::string& name) {
  for (const TableDemand& t : in.tables) {
    if (t.table == name) return &t;
  }
  return nullptr;
}

Status CheckSizes(const PlanInputs& in) {
  const Volume* largest = &in.volumes.volumes[0];
  for (const Volume& v : in.volumes.volumes) {
    if (v.capacity > largest->capacity) largest = &v;
  }
  for (const TableDemand& t : in.tables) {
    if (t.heap_bytes <= largest->capacity) continue;
    return Status::InvalidInput(fmt::format(
        "relation '{}' ({}) is larger than every volume (the largest is "
        "'{}', {}): no placement can hold it; declare a larger volume",
        t.table, HumanSize(static_cast<double>(t.heap_bytes)), largest->name,
        HumanSize(static_cast<double>(largest->capacity))));
  }
  return Status::Ok();
}

Status CheckKeys(const PlanInputs& in) {
  for (const auto& [table, columns] : in.options.keys) {
    const TableDemand* t = FindTable(in, table);
    if (t == nullptr) {
      return Status::InvalidInput(fmt::format(
          "--key names '{}', which is not a table in the workload", table));
    }
    if (columns.empty()) {
      return Status::InvalidInput(
          fmt::format("--key for '{}' names no column", table));
    }
    const std::vector<std::string>& pk = t->facts->primary_key;
    for (const std::string& column : columns) {
      if (pk.empty() || std::find(pk.begin(), pk.end(), column) != pk.end()) {
        continue;
      }
      return Status::InvalidInput(fmt::format(
          "--key for '{}': column '{}' is not in its primary key ({}); a "
          "hash key must be part of every unique key",
          table, column, fmt::join(pk, ", ")));
    }
  }
  return Status::Ok();
}

// Where pg_wal is now, from the workload's [[location]] of role pg_wal:
// wal_now is its volume, -1 when on no declared volume or unknown.
void LocateWal(PlanInputs* in) {
  in->wal_location = in->workload.FindLocation("pg_wal");
  if (in->wal_location == nullptr) return;
  in->wal_match = VolumeOfLocation(in->volumes, *in->wal_location);
  in->wal_now = in->VolumeIndex(in->wal_match.volume);
}

}  // namespace

DemandOptions DemandOptionsFor(const PlanOptions& options,
                               const Workload& workload) {
  DemandOptions d;
  d.growth = options.growth;
  const bool too_short = !options.growth && workload.duration > 0 &&
                         workload.duration < kMinGrowthObservation;
  d.horizon_seconds = too_short ? 0 : options.horizon_seconds;
  d.checkpoint_timeout_seconds = CheckpointTimeoutSeconds(workload);
  d.checkpoint_completion_target = kCheckpointCompletionTarget;
  d.backup_window_seconds = options.backup_window_seconds;
  return d;
}

int PlanInputs::VolumeIndex(const std::string& name) const {
  for (size_t i = 0; i < volumes.volumes.size(); ++i) {
    if (volumes.volumes[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

bool PlanInputs::DeviceEmpty(int v) const {
  for (size_t u = 0; u < models.size(); ++u) {
    const int ui = static_cast<int>(u);
    if (!pools.Same(v, ui)) continue;
    if (ui == default_volume || current_bytes[u] > 0) return false;
  }
  return true;
}

Status ReadInputs(PlanInputs* in) {
  const VolumeSet& vs = in->volumes;
  const Workload& w = in->workload;
  PGLAYOUT_RETURN_IF_ERROR(CheckOptions(in->options));
  if (vs.volumes.empty()) {
    return Status::InvalidInput(
        "no volumes: declare at least one [[volume]] in the volumes file");
  }
  for (const Volume& v : vs.volumes) {
    in->models.emplace_back();
    PGLAYOUT_RETURN_IF_ERROR(DeviceModel::Build(v, &in->models.back()));
  }
  PGLAYOUT_RETURN_IF_ERROR(FindDevicePools(vs, &in->pools));
  in->demand_options = DemandOptionsFor(in->options, w);
  PGLAYOUT_RETURN_IF_ERROR(
      BuildDemand(w, vs, in->demand_options, &in->tables, &in->wal));
  in->version = static_cast<int>(std::strtol(
      w.Setting("server_version_num").value_or("0").c_str(), nullptr, 10));
  in->live = w.source == "live" || w.source == "log";
  in->default_volume =
      in->VolumeIndex(VolumeOfLocation(vs, LocationOf(w, "")).volume);
  LocateWal(in);
  in->current_bytes.assign(vs.volumes.size(), 0);
  for (const TableDemand& t : in->tables) {
    const int v = in->VolumeIndex(t.current_volume);
    if (v >= 0) in->current_bytes[v] += t.bytes;
  }
  PGLAYOUT_RETURN_IF_ERROR(CheckSizes(*in));
  return CheckKeys(*in);
}

double TableUtilization(const DeviceModel& m, const TableDemand& d) {
  return m.Utilization(d.read_iops, d.checkpoint_write_iops,
                       d.backup_bytes_per_second);
}

double WalUtilization(const DeviceModel& m, const WalDemand& wal) {
  const double bytes_per_second = m.write_mbps() > 0
                                      ? m.write_mbps() * 1e6
                                      : m.write_capacity() * kPageSize;
  return std::max(wal.flushes_per_second / m.write_capacity(),
                  wal.bytes_per_second / bytes_per_second);
}

std::string DependentMatview(const Relation& r, const Workload& w) {
  for (const std::string& view : r.dependent_views) {
    const Relation* v = w.Find(view);
    if (v != nullptr && v->kind == RelationKind::kMaterializedView) {
      return view;
    }
  }
  return "";
}

std::string MatviewReason(const std::string& view) {
  return "materialized view " + view +
         " depends on it and would keep reading the old copy";
}

}  // namespace pglayout::planner
