#include "common/model.h"

#include <fmt/format.h>

#include <algorithm>

namespace pglayout {
namespace {

template <typename T>
const T* FindByName(const std::vector<T>& items, const std::string& name) {
  auto it = std::find_if(items.begin(), items.end(),
                         [&](const T& item) { return item.name == name; });
  return it == items.end() ? nullptr : &*it;
}

}  // namespace

const std::string& PartitionParent(const Relation& r) {
  return r.partition_parent.empty() ? r.partition_of : r.partition_parent;
}

const Volume* VolumeSet::Find(const std::string& name) const {
  return FindByName(volumes, name);
}

const Relation* Workload::Find(const std::string& name) const {
  return FindByName(relations, name);
}

std::optional<std::string> Workload::Setting(const std::string& name) const {
  auto it = settings.find(name);
  if (it == settings.end()) return std::nullopt;
  return it->second;
}

const DataLocation* Workload::FindLocation(
    const std::string& role, const std::string& tablespace) const {
  for (const DataLocation& l : locations) {
    if (l.role == role && l.tablespace == tablespace) return &l;
  }
  return nullptr;
}

const TablespaceSpec* Plan::FindTablespace(const std::string& name) const {
  return FindByName(tablespaces, name);
}

const char* RelationKindName(RelationKind kind) {
  switch (kind) {
    case RelationKind::kTable:
      return "table";
    case RelationKind::kIndex:
      return "index";
    case RelationKind::kToast:
      return "toast";
    case RelationKind::kPartitioned:
      return "partitioned";
    case RelationKind::kMaterializedView:
      return "materialized_view";
  }
  return "table";
}

const char* StrategyName(Strategy strategy) {
  switch (strategy) {
    case Strategy::kStay:
      return "stay";
    case Strategy::kMove:
      return "move";
    case Strategy::kHashPartition:
      return "hash_partition";
  }
  return "stay";
}

double DeviceReads::Share() const {
  if (server_block_reads <= 0) return 1;
  return std::clamp(device_reads / server_block_reads, 0.0, 1.0);
}

const DataLocation* Workload::TablespaceLocation(
    const std::string& tablespace) const {
  if (tablespace.empty() || tablespace == "pg_default" ||
      tablespace == "pg_global") {
    return FindLocation("data_directory");
  }
  return FindLocation("tablespace", tablespace);
}

double Workload::DeviceReadShare(const DataLocation& location) const {
  if (!location.on) return 1;
  for (const DeviceReads& d : device_reads) {
    if (d.dev == location.on->dev) return d.Share();
  }
  return 1;
}

std::string ShellQuote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::vector<std::string> WalMoveCommands(const WalMove& m) {
  const std::string data =
      m.data_directory.empty() ? "$PGDATA" : ShellQuote(m.data_directory);
  const std::string to = ShellQuote(m.to_path);
  return {
      fmt::format("pg_ctl stop -D {} -m fast", data),
      fmt::format("mv {} {}", ShellQuote(m.from_path), to),
      fmt::format("ln -sfn {} {}/pg_wal", to, data),
      fmt::format("pg_ctl start -D {}", data),
  };
}

}  // namespace pglayout
