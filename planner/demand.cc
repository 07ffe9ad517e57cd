#include "planner/demand.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace pglayout::planner {
namespace {

bool IsInside(const std::string& directory, const std::string& root) {
  if (root.empty() || !directory.starts_with(root)) return false;
  return directory.size() == root.size() || root.ends_with('/') ||
         directory[root.size()] == '/';
}

std::string Location(const Workload& w, const std::string& tablespace) {
  if (tablespace.empty() || tablespace == "pg_default") {
    return w.Setting("data_directory").value_or("");
  }
  for (const TablespaceInfo& t : w.tablespaces) {
    if (t.name == tablespace) return t.location;
  }
  return "";
}

uint64_t Growth(const Relation& r, double horizon) {
  if (r.growth_bytes_per_second <= 0) return 0;
  return static_cast<uint64_t>(r.growth_bytes_per_second * horizon);
}

// Adds an index or TOAST relation to its table's group.
Status AddDependent(const Relation& r, const Workload& w, double horizon,
                    std::map<std::string, TableDemand>* by) {
  if (r.table.empty()) {
    return Status::InvalidInput(fmt::format(
        "workload relation '{}' is an {} but names no table ('table' key)",
        r.name, RelationKindName(r.kind)));
  }
  auto it = by->find(r.table);
  if (it == by->end()) {
    const Relation* owner = w.Find(r.table);
    if (owner != nullptr && owner->kind == RelationKind::kPartitioned) {
      return Status::Ok();  // a partitioned index: no storage of its own
    }
    return Status::InvalidInput(fmt::format(
        "workload relation '{}' ({}) belongs to table '{}', which is not a "
        "table in the workload; add a [[relation]] for it",
        r.name, RelationKindName(r.kind), r.table));
  }
  TableDemand& d = it->second;
  if (r.kind == RelationKind::kIndex) {
    d.indexes.push_back(r.name);
  } else {
    d.heap_bytes += r.size;
  }
  d.bytes += r.size;
  d.read_iops += r.read_iops;
  d.write_iops += r.write_iops;
  d.bytes_needed += r.size + Growth(r, horizon);
  return Status::Ok();
}

}  // namespace

std::string VolumeOfDirectory(const VolumeSet& volumes,
                              const std::string& directory) {
  const Volume* best = nullptr;
  for (const Volume& v : volumes.volumes) {
    if (!IsInside(directory, v.path)) continue;
    if (best == nullptr || v.path.size() > best->path.size()) best = &v;
  }
  return best ? best->name : "";
}

Status BuildDemand(const Workload& workload, const VolumeSet& volumes,
                   const DemandOptions& options,
                   std::vector<TableDemand>* tables, WalDemand* wal) {
  std::map<std::string, TableDemand> by_table;
  for (const Relation& r : workload.relations) {
    if (r.kind != RelationKind::kTable) continue;
    TableDemand d;
    d.table = r.name;
    d.facts = &r;
    d.heap_bytes = d.bytes = r.size;
    d.bytes_needed = r.size + Growth(r, options.horizon_seconds);
    d.read_iops = r.read_iops;
    d.write_iops = r.write_iops;
    d.tablespace = r.tablespace == "pg_default" ? "" : r.tablespace;
    d.current_volume =
        VolumeOfDirectory(volumes, Location(workload, d.tablespace));
    by_table.emplace(r.name, std::move(d));
  }
  for (const Relation& r : workload.relations) {
    if (r.kind != RelationKind::kIndex && r.kind != RelationKind::kToast) {
      continue;
    }
    PGLAYOUT_RETURN_IF_ERROR(
        AddDependent(r, workload, options.horizon_seconds, &by_table));
  }
  tables->clear();
  for (auto& [name, d] : by_table) {
    std::sort(d.indexes.begin(), d.indexes.end());
    tables->push_back(std::move(d));
  }
  wal->peak_known = workload.wal_bytes_per_second_peak > 0;
  wal->bytes_per_second = wal->peak_known ? workload.wal_bytes_per_second_peak
                                          : workload.wal_bytes_per_second;
  wal->commits_per_second = workload.commits_per_second;
  return Status::Ok();
}

}  // namespace pglayout::planner
