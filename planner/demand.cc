#include "planner/demand.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>

#include "common/units.h"

namespace pglayout::planner {
namespace {

bool IsInside(const std::string& directory, const std::string& root) {
  if (root.empty() || !directory.starts_with(root)) return false;
  return directory.size() == root.size() || root.ends_with('/') ||
         directory[root.size()] == '/';
}

enum class Same { kYes, kNo, kUnknown };

// Whether |v| is the filesystem (or, in older files, the block device)
// that |on| resolved to; kUnknown when either side recorded no device.
Same SameDevice(const Volume& v, const std::optional<DeviceLocation>& on) {
  if (!on || !v.topology) return Same::kUnknown;
  const Topology& t = *v.topology;
  if (!t.dev.empty() && !on->dev.empty()) {
    return t.dev == on->dev ? Same::kYes : Same::kNo;
  }
  if (!t.device.empty() && !on->device.empty()) {
    return t.device == on->device ? Same::kYes : Same::kNo;
  }
  return Same::kUnknown;
}

bool Contains(const Volume& v, const DataLocation& l) {
  return IsInside(l.path, v.path) || (l.on && IsInside(l.on->resolved, v.path));
}

// Among the volumes that |same| admits, the one whose path holds |l|
// (longest), else the first admitted when |any_admitted|.
const Volume* Pick(const VolumeSet& volumes, const DataLocation& l,
                   const std::function<bool(const Volume&)>& admitted,
                   bool any_admitted) {
  const Volume* best = nullptr;
  const Volume* first = nullptr;
  for (const Volume& v : volumes.volumes) {
    if (!admitted(v)) continue;
    if (first == nullptr) first = &v;
    if (!Contains(v, l)) continue;
    if (best == nullptr || v.path.size() > best->path.size()) best = &v;
  }
  return best != nullptr ? best : any_admitted ? first : nullptr;
}

std::string DeviceText(const DeviceLocation& on) {
  std::string text = "device " + on.dev;
  if (!on.device.empty()) text += " (" + on.device + ")";
  if (!on.mount_point.empty()) text += " mounted at " + on.mount_point;
  return text;
}

uint64_t Growth(const Relation& r, const DemandOptions& o) {
  if (o.growth) {
    const double factor = o.growth->FactorOver(o.horizon_seconds);
    return static_cast<uint64_t>(static_cast<double>(r.size) * (factor - 1));
  }
  if (r.growth_bytes_per_second <= 0) return 0;
  return static_cast<uint64_t>(r.growth_bytes_per_second * o.horizon_seconds);
}

// See the header: a cycle writes each dirtied block once, within T x cct.
double CheckpointWriteIops(const Relation& r, const DemandOptions& o) {
  const double cycle = o.checkpoint_timeout_seconds;
  if (cycle <= 0 || o.checkpoint_completion_target <= 0) return r.write_iops;
  return BlocksDirtiedPerCycle(r, cycle) /
         (cycle * o.checkpoint_completion_target);
}

// Adds |r|'s bytes and rates to its table group |d|.
// Only the share of |r|'s reads that reached its device loads a volume
// (docs/workload-model.md#page-cache); it follows the relation when moved.
void AddRelation(const Relation& r, const Workload& w, const DemandOptions& o,
                 TableDemand* d) {
  d->bytes += r.size;
  d->bytes_needed += r.size + Growth(r, o);
  const DataLocation* at = w.TablespaceLocation(r.tablespace);
  d->read_iops += r.read_iops * (at != nullptr ? w.DeviceReadShare(*at) : 1);
  d->write_iops += r.write_iops;
  d->checkpoint_write_iops += CheckpointWriteIops(r, o);
  if (o.backup_window_seconds > 0) {
    d->backup_bytes_per_second +=
        static_cast<double>(r.size) / o.backup_window_seconds;
  }
}

// The table whose group |r| joins: its own table, or, for the index of a
// TOAST relation (written with the TOAST relation as its table), the table
// that owns that TOAST relation. Sets *toast when |r| is TOAST storage (the
// TOAST relation or its index), which moves with its table and is never
// placed on its own.
std::string GroupTable(const Relation& r, const Workload& w, bool* toast) {
  *toast = r.kind == RelationKind::kToast || r.name.starts_with("pg_toast.");
  const Relation* owner = w.Find(r.table);
  if (owner != nullptr && owner->kind == RelationKind::kToast) {
    *toast = true;
    return owner->table;
  }
  return r.table;
}

// Adds an index or TOAST relation to its table's group.
Status AddDependent(const Relation& r, const Workload& w,
                    const DemandOptions& options,
                    std::map<std::string, TableDemand>* by) {
  if (r.table.empty()) {
    return Status::InvalidInput(fmt::format(
        "workload relation '{}' is an {} but names no table ('table' key)",
        r.name, RelationKindName(r.kind)));
  }
  bool toast = false;
  const std::string table = GroupTable(r, w, &toast);
  auto it = by->find(table);
  if (it == by->end()) {
    const Relation* owner = w.Find(table);
    if (owner != nullptr && owner->kind == RelationKind::kPartitioned) {
      return Status::Ok();  // a partitioned index: no storage of its own
    }
    return Status::InvalidInput(fmt::format(
        "workload relation '{}' ({}) belongs to table '{}', which is not a "
        "table in the workload; add a [[relation]] for it",
        r.name, RelationKindName(r.kind), table));
  }
  TableDemand& d = it->second;
  if (toast) {
    d.heap_bytes += r.size;
  } else {
    d.indexes.push_back(r.name);
  }
  AddRelation(r, w, options, &d);
  return Status::Ok();
}

}  // namespace

double BlocksDirtiedPerCycle(const Relation& r, double cycle_seconds) {
  const double blocks = r.write_iops * cycle_seconds;
  if (r.size == 0) return blocks;
  return std::min(blocks, static_cast<double>(r.size) / kPageSize);
}

InstanceLoad TotalLoad(const std::vector<TableDemand>& tables,
                       const WalDemand& wal) {
  InstanceLoad load{wal.flushes_per_second, wal.bytes_per_second / 1e6};
  for (const TableDemand& d : tables) {
    const double pages = d.read_iops + d.checkpoint_write_iops;
    load.iops += pages;
    load.mbps += (pages * kPageSize + d.backup_bytes_per_second) / 1e6;
  }
  return load;
}

VolumeMatch VolumeOfLocation(const VolumeSet& volumes,
                             const DataLocation& location) {
  if (location.path.empty()) return {};
  auto same = [&](const Volume& v) {
    return SameDevice(v, location.on) == Same::kYes;
  };
  if (const Volume* v = Pick(volumes, location, same, true); v != nullptr) {
    return {v->name, "device " + location.on->dev};
  }
  auto unknown = [&](const Volume& v) {
    return SameDevice(v, location.on) == Same::kUnknown;
  };
  if (const Volume* v = Pick(volumes, location, unknown, false); v != nullptr) {
    return {v->name, "path prefix"};
  }
  return {};
}

DataLocation LocationOf(const Workload& w, const std::string& tablespace) {
  const bool base = tablespace.empty() || tablespace == "pg_default";
  if (const DataLocation* found = w.TablespaceLocation(tablespace)) {
    return *found;
  }
  DataLocation l;
  l.role = base ? "data_directory" : "tablespace";
  l.tablespace = base ? "" : tablespace;
  l.path = base ? w.Setting("data_directory").value_or("") : "";
  for (const TablespaceInfo& t : w.tablespaces) {
    if (!base && t.name == tablespace) l.path = t.location;
  }
  return l;
}

std::string DescribeLocation(const DataLocation& l) {
  const std::string what = l.role == "tablespace" ? "tablespace " + l.tablespace
                           : l.role == "pg_wal"   ? "pg_wal"
                                                  : "the data directory";
  if (!l.on)
    return fmt::format("{} ({}, not resolved to a device)", what, l.path);
  const std::string path =
      l.on->resolved == l.path ? l.path : l.path + " -> " + l.on->resolved;
  return fmt::format("{} ({}, {})", what, path, DeviceText(*l.on));
}

std::vector<std::string> UnmatchedLocations(const Workload& w,
                                            const VolumeSet& volumes) {
  std::vector<DataLocation> all = w.locations;
  if (all.empty()) {  // an older file: the paths it has
    all.push_back(LocationOf(w, ""));
    for (const TablespaceInfo& t : w.tablespaces) {
      if (!t.location.empty()) all.push_back(LocationOf(w, t.name));
    }
  }
  std::vector<std::string> out;
  for (const DataLocation& l : all) {
    if (l.path.empty() || !VolumeOfLocation(volumes, l).volume.empty()) {
      continue;
    }
    out.push_back(fmt::format(
        "WARNING: {} is on no declared volume: its load counts in no "
        "volume's \"before\"; probe or declare the volume that holds it",
        DescribeLocation(l)));
  }
  return out;
}

Status BuildDemand(const Workload& workload, const VolumeSet& volumes,
                   const DemandOptions& options,
                   std::vector<TableDemand>* tables, WalDemand* wal) {
  std::map<std::string, TableDemand> by_table;
  for (const Relation& r : workload.relations) {
    if (r.kind != RelationKind::kTable &&
        r.kind != RelationKind::kMaterializedView) {
      continue;
    }
    TableDemand d;
    d.table = r.name;
    d.facts = &r;
    d.heap_bytes = r.size;
    AddRelation(r, workload, options, &d);
    d.tablespace = r.tablespace == "pg_default" ? "" : r.tablespace;
    d.current_volume =
        VolumeOfLocation(volumes, LocationOf(workload, d.tablespace)).volume;
    by_table.emplace(r.name, std::move(d));
  }
  for (const Relation& r : workload.relations) {
    if (r.kind != RelationKind::kIndex && r.kind != RelationKind::kToast) {
      continue;
    }
    PGLAYOUT_RETURN_IF_ERROR(AddDependent(r, workload, options, &by_table));
  }
  tables->clear();
  for (auto& [name, d] : by_table) {
    std::sort(d.indexes.begin(), d.indexes.end());
    tables->push_back(std::move(d));
  }
  wal->peak_known = workload.wal_bytes_per_second_peak > 0;
  wal->rate_known = wal->peak_known || workload.wal_bytes_per_second;
  wal->bytes_per_second = wal->peak_known
                              ? workload.wal_bytes_per_second_peak
                              : workload.wal_bytes_per_second.value_or(0);
  wal->flushes_counted = workload.wal_syncs_per_second.has_value();
  wal->flushes_per_second =
      workload.wal_syncs_per_second.value_or(workload.commits_per_second);
  return Status::Ok();
}

std::vector<std::string> DeviceReadNotes(const Workload& w) {
  std::vector<std::string> out;
  for (const DeviceReads& d : w.device_reads) {
    out.push_back(fmt::format(
        "reads: {} served {:.0f} read requests/s for the {:.0f} blocks/s "
        "the server read from it over the observation ({:.0f}%); the rest "
        "came from the OS page cache, so the forecast counts {:.0f}% of those "
        "relations' reads, wherever they go "
        "(docs/workload-model.md#page-cache)",
        d.device, d.device_reads, d.server_block_reads, 100 * d.Share(),
        100 * d.Share()));
  }
  return out;
}

}  // namespace pglayout::planner
