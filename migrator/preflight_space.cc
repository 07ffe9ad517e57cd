// Preflight's space checks (preflight_checks.h): the copies' bytes and the
// index builds' sort files in each tablespace, the WAL the copies write.

#include <fmt/format.h>

#include <algorithm>

#include "common/units.h"
#include "migrator/preflight_checks.h"
#include "migrator/sql_util.h"
#include "migrator/steps.h"

namespace pglayout::migrator {
namespace {

std::string DirectoryOf(const Plan& plan, const ServerFacts& server,
                        const std::string& tablespace) {
  if (tablespace == "pg_default") return server.data_directory;
  if (const TablespaceSpec* spec = plan.FindTablespace(tablespace)) {
    return spec->path;
  }
  if (const TablespaceFacts* f = server.FindTablespace(tablespace)) {
    return f->location;
  }
  return "";
}

void CheckRoomIn(const std::string& ts, const std::string& dir, uint64_t copies,
                 uint64_t sorts,
                 const std::map<std::string, uint64_t>& free_bytes,
                 double margin, Findings* f) {
  auto with_margin = [margin](uint64_t bytes) {
    return static_cast<uint64_t>(static_cast<double>(bytes) * margin);
  };
  uint64_t required = with_margin(copies + sorts);
  std::vector<std::string> parts;
  if (copies) {
    parts.push_back(HumanSize(static_cast<double>(copies)) + " of copies");
  }
  if (sorts) {
    parts.push_back(HumanSize(static_cast<double>(sorts)) +
                    " of index-build sort files (temp_tablespaces)");
  }
  std::string what = Join(parts, " + ");
  auto free = free_bytes.find(dir);
  if (free == free_bytes.end()) {
    f->Warn("tablespace " + ts,
            fmt::format("free space {} is unknown from this host; the "
                        "migration needs about {} there ({})",
                        dir.empty() ? "of its directory (not visible to this "
                                      "role)"
                                    : "at '" + dir + "'",
                        HumanSize(static_cast<double>(required)), what));
  } else if (free->second < required) {
    bool copies_fit = free->second >= with_margin(copies);
    f->Refuse("tablespace " + ts,
              fmt::format("needs {} ({} + {:.0f}% margin) but '{}' has {} "
                          "free{}",
                          HumanSize(static_cast<double>(required)), what,
                          (margin - 1) * 100, dir,
                          HumanSize(static_cast<double>(free->second)),
                          sorts && copies_fit
                              ? "; point temp_tablespaces at a volume with "
                                "room (ALTER ROLE ... SET temp_tablespaces)"
                              : ""));
  }
}

}  // namespace

std::map<std::string, uint64_t> BytesToCopy(
    const std::vector<PlacementWork>& pending) {
  std::map<std::string, uint64_t> need;
  for (const PlacementWork& w : pending) {
    for (const auto& [ts, bytes] : BytesPerTablespace(*w.placement, *w.table)) {
      need[ts] += bytes;
    }
  }
  return need;
}

// A sort whose index is larger than half its memory (in memory a tuple
// takes about twice its size in the index) spills about the index's size.
// The builds run one at a time, so the largest counts; a partitioned copy
// builds each partition's index on its own.
uint64_t SortSpill(const std::vector<PlacementWork>& builds,
                   uint64_t sort_memory, const ServerFacts& server) {
  if (sort_memory == 0) return 0;
  uint64_t server_memory = SettingOr(server, "maintenance_work_mem", 0);
  uint64_t copy_memory = std::max(sort_memory, server_memory);
  uint64_t largest = 0;
  auto add = [&largest](uint64_t index_bytes, uint64_t memory) {
    if (index_bytes * 2 > memory) largest = std::max(largest, index_bytes);
  };
  for (const PlacementWork& w : builds) {
    const Placement& p = *w.placement;
    const TableFacts* t = w.table;
    if (MovesOffline(p, *t)) continue;
    if (t->kind == 'i') {
      add(t->storage.heap_size, server_memory);
      continue;
    }
    uint64_t parts = p.strategy == Strategy::kHashPartition
                         ? static_cast<uint64_t>(std::max(p.partitions, 1))
                         : 1;
    for (const IndexFacts& index : t->indexes) {
      add(index.size / parts, copy_memory);
    }
  }
  return largest;
}

// PostgreSQL may put all the sort files in any one temp tablespace, so
// each must have room for them.
std::vector<Finding> CheckFreeSpace(
    const Plan& plan, const ServerFacts& server,
    std::map<std::string, uint64_t> copies, uint64_t spill,
    const std::map<std::string, uint64_t>& free_bytes, double margin) {
  Findings f;
  const std::vector<std::string>& temps = server.temp_tablespaces;
  if (spill > 0) {
    for (const std::string& ts : temps) copies.try_emplace(ts, 0);
  }
  for (const auto& [ts, bytes] : copies) {
    bool is_temp = std::find(temps.begin(), temps.end(), ts) != temps.end();
    CheckRoomIn(ts, DirectoryOf(plan, server, ts), bytes, is_temp ? spill : 0,
                free_bytes, margin, &f);
  }
  return f.list;
}

// WAL held by an inactive slot (or a failing archiver) is not recycled,
// so the copies' WAL piles up on the WAL volume, and a full WAL volume
// PANICs the server.
std::vector<Finding> CheckWalRetention(const ServerFacts& server,
                                       uint64_t bulk_bytes,
                                       uint64_t wal_free_bytes) {
  Findings f;
  uint64_t wal =
      static_cast<uint64_t>(static_cast<double>(bulk_bytes) * kWalPerByte);
  if (wal == 0) return f.list;
  std::string writes = HumanSize(static_cast<double>(wal));
  for (const ReplicationSlotFacts& slot : server.replication_slots) {
    if (slot.active || slot.wal_status == "lost") continue;
    std::string object = "replication slot " + slot.name;
    bool unbounded = server.max_slot_wal_keep_size_mb < 0;
    if (unbounded && wal_free_bytes > 0 &&
        slot.retained_wal + wal > wal_free_bytes / 2) {
      f.Refuse(
          object,
          fmt::format("is inactive and keeps all WAL ({} now); the "
                      "copies write about {} more and the WAL volume has "
                      "{} free: it could fill up and stop the server. "
                      "Reconnect its consumer or drop it{}",
                      HumanSize(static_cast<double>(slot.retained_wal)), writes,
                      HumanSize(static_cast<double>(wal_free_bytes)),
                      // max_slot_wal_keep_size: 13+.
                      server.version_num >= 130000
                          ? ", or set max_slot_wal_keep_size"
                          : ""));
    } else {
      f.Warn(object, fmt::format("is inactive: it keeps the copies' WAL "
                                 "(about {}) until it reconnects{}",
                                 writes,
                                 unbounded ? ""
                                           : " or max_slot_wal_keep_size "
                                             "is reached"));
    }
  }
  if (server.archiver_failing) {
    f.Warn("server", fmt::format("archive_command is failing: pg_wal keeps "
                                 "every segment until it succeeds, and the "
                                 "copies write about {}",
                                 writes));
  }
  return f.list;
}

}  // namespace pglayout::migrator
