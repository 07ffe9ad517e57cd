#include "migrator/preflight.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "common/sql.h"
#include "common/units.h"
#include "migrator/online_sql.h"
#include "migrator/sql_util.h"
#include "migrator/steps.h"

namespace pglayout::migrator {
namespace {

class Checker {
 public:
  explicit Checker(const PreflightInput& in) : in_(in) {}

  std::vector<Finding> Run() {
    CheckServer();
    for (const TablespaceSpec& ts : in_.plan->tablespaces) CheckTablespace(ts);
    for (const Placement& p : in_.plan->placements) CheckPlacement(p);
    CheckFreeSpace();
    CheckWalRetention();
    CheckSettings();
    std::stable_sort(findings_.begin(), findings_.end(),
                     [](const Finding& a, const Finding& b) {
                       return a.severity < b.severity;
                     });
    return std::move(findings_);
  }

 private:
  void Refuse(const std::string& object, const std::string& reason) {
    findings_.push_back({Finding::Severity::kRefusal, object, reason});
  }
  void Warn(const std::string& object, const std::string& reason) {
    findings_.push_back({Finding::Severity::kWarning, object, reason});
  }

  const ServerFacts& server() const { return *in_.server; }

  void CheckServer() {
    if (server().version_num < 120000) {
      Refuse("server", fmt::format("PostgreSQL {} is not supported; pglayout "
                                   "migrate needs 12 or later",
                                   server().version_num));
    }
    if (server().in_recovery) {
      Refuse("server",
             "the server is in recovery (a standby); run against the primary");
    }
    if (!server().lock_holder.empty()) {
      Refuse("server",
             "another pglayout migrate is running on this database: " +
                 server().lock_holder);
    }
    if (!server().superuser && !server().create_db_privilege) {
      Refuse("database " + server().database,
             fmt::format("role {} lacks CREATE on database {}, needed for the "
                         "journal schema pglayout",
                         server().user, server().database));
    }
  }

  bool UnderDirectory(const std::string& path, const std::string& dir) const {
    if (dir.empty()) return false;
    return path == dir || path.starts_with(dir + "/");
  }

  void CheckTablespace(const TablespaceSpec& ts) {
    std::string object = "tablespace " + ts.name;
    if (in_.started_tablespaces.count(ts.name)) return;
    if (const TablespaceFacts* existing = server().FindTablespace(ts.name)) {
      if (existing->location != ts.path) {
        Refuse(object, fmt::format("already exists at '{}', the plan says '{}'",
                                   existing->location, ts.path));
      }
      return;
    }
    for (const TablespaceFacts& other : server().tablespaces) {
      if (!other.location.empty() && other.location == ts.path) {
        Refuse(object, fmt::format("directory '{}' is already used by "
                                   "tablespace {}",
                                   ts.path, other.name));
      }
    }
    // A standby replays CREATE TABLESPACE with the same path and stops
    // (its startup process fails) when that directory is missing there.
    if (!in_.standby_dirs_ready) {
      for (const std::string& standby : server().streaming_standbys) {
        Refuse(object,
               fmt::format("standby {} streams from this server and would "
                           "stop replaying at CREATE TABLESPACE unless "
                           "directory '{}' exists on its host too; create it "
                           "there (empty, owned by the PostgreSQL OS user), "
                           "also on standbys not connected now, then run "
                           "again with --standby-dirs-ready",
                           standby, ts.path));
      }
    }
    if (!server().superuser) {
      Refuse(object, fmt::format("CREATE TABLESPACE needs a superuser; role {} "
                                 "is not one",
                                 server().user));
      return;  // the directory checks below need superuser to read
    }
    if (UnderDirectory(ts.path, server().data_directory)) {
      Refuse(object, fmt::format("directory '{}' is inside the data directory "
                                 "'{}'",
                                 ts.path, server().data_directory));
    }
    auto dir = server().path_is_directory.find(ts.path);
    if (dir == server().path_is_directory.end()) {
      Refuse(object, fmt::format("directory '{}' does not exist on the server "
                                 "host; create it, owned by the PostgreSQL "
                                 "OS user",
                                 ts.path));
      return;
    }
    if (!dir->second) {
      Refuse(object,
             fmt::format("'{}' exists but is not a directory", ts.path));
      return;
    }
    auto entries = server().path_entries.find(ts.path);
    if (entries == server().path_entries.end()) return;
    for (const std::string& e : entries->second) {
      if (e.starts_with("PG_")) {
        Refuse(object, fmt::format("directory '{}' is already in use by a "
                                   "tablespace (it holds {})",
                                   ts.path, e));
        return;
      }
    }
    if (!entries->second.empty()) {
      Warn(object, fmt::format("directory '{}' is not empty ({} entries)",
                               ts.path, entries->second.size()));
    }
  }

  void CheckPlacement(const Placement& p) {
    if (p.strategy == Strategy::kStay) return;
    if (in_.started_relations.count(p.relation)) return;
    auto it = in_.tables->find(p.relation);
    if (it == in_.tables->end() || !it->second.exists) {
      Refuse(p.relation, "relation does not exist");
      return;
    }
    const TableFacts& t = it->second;
    if (t.placed_as_planned) return;
    for (const std::string& gid : t.prepared_xacts) {
      Refuse(p.relation,
             "prepared transaction " + gid +
                 " holds a lock on it and would block the move until it is "
                 "resolved: COMMIT PREPARED or ROLLBACK PREPARED it first");
    }
    if (p.strategy == Strategy::kMove) {
      CheckMove(p, t);
    } else {
      CheckHashPartition(p, t);
    }
  }

  void CheckMove(const Placement& p, const TableFacts& t) {
    if (t.kind == 'p' && t.is_partition) {
      Refuse(p.relation,
             fmt::format("is itself partitioned (a partition of {} with "
                         "partitions of its own): moving it moves nothing, "
                         "and pglayout does not detach and attach a "
                         "partitioned partition; place its partitions "
                         "instead",
                         t.partition_parent));
      return;
    }
    if (t.kind == 'p') {
      Refuse(p.relation,
             "is a partitioned table: moving it moves nothing; "
             "place its partitions instead");
      return;
    }
    if (t.kind != 'r' && t.kind != 'i' && t.kind != 'm') {
      Refuse(p.relation, fmt::format("is not a table, index or materialized "
                                     "view (relkind '{}')",
                                     t.kind));
      return;
    }
    if (t.system) Refuse(p.relation, "is a system relation");
    if (!p.online) return;
    if (t.kind == 'i') {
      if (server().version_num < 140000) {
        Refuse(p.relation,
               "an online index move (REINDEX CONCURRENTLY ... "
               "TABLESPACE) needs PostgreSQL 14; use online = "
               "false or upgrade");
      }
      return;
    }
    if (t.kind == 'm') {
      Refuse(p.relation,
             "a materialized view cannot be moved online; use "
             "online = false");
      return;
    }
    // Whatever keeps a table from being copied and swapped, ALTER TABLE
    // ... SET TABLESPACE moves it as the same object: each refusal says
    // so, with the lock that would cost.
    size_t first = findings_.size();
    CheckOnlineCopy(p, t);
    for (size_t i = first; i < findings_.size(); ++i) {
      Finding& f = findings_[i];
      if (f.severity != Finding::Severity::kRefusal ||
          f.reason.find("online = false") != std::string::npos) {
        continue;
      }
      f.reason += fmt::format("; online = false moves it offline ({})",
                              OfflineLockForecast(t, in_.offline_rate_mbps));
    }
  }

  // What the shadow-copy-and-swap path needs from any table
  // (docs/online-migration.md#eligible-tables).
  void CheckOnlineCopy(const Placement& p, const TableFacts& t) {
    const std::string& o = p.relation;
    if (t.kind != 'r') Refuse(o, "is not an ordinary table");
    if (t.persistence != 'p') {
      Refuse(o, "is unlogged or temporary: its copy would not survive a crash");
    }
    if (t.is_partition && p.strategy != Strategy::kMove) {
      Refuse(o, "is a partition of " + t.partition_parent +
                    ": it can be moved (strategy = \"move\"), not "
                    "partitioned");
    }
    if (t.is_partition && p.strategy == Strategy::kMove) CheckPartition(o, t);
    if (t.has_inheritance) Refuse(o, "takes part in table inheritance");
    if (t.typed) Refuse(o, "is a typed table (CREATE TABLE ... OF)");
    if (t.extension_member) Refuse(o, "belongs to an extension");
    if (t.system) Refuse(o, "is a system relation");
    if (!server().superuser) {
      Refuse(o, fmt::format("an online copy installs a SECURITY DEFINER "
                            "capture trigger and needs a superuser; role {} "
                            "is not one",
                            server().user));
    }
    if (t.row_key.empty()) {
      Refuse(o,
             "has no primary key and no unique index over NOT NULL "
             "columns (non-partial, no expressions): rows cannot be "
             "identified for the online copy");
    }
    for (const std::string& k : t.row_key) {
      const ColumnFacts* c = t.FindColumn(k);
      if (c && c->generated) {
        Refuse(o,
               "row key column " + DisplayIdent(k) + " is a generated column");
      }
      if (c && c->type.ends_with("[]")) {
        Refuse(o, "row key column " + DisplayIdent(k) + " is an array");
      }
    }
    for (const IndexFacts& i : t.indexes) {
      if (!i.valid) {
        Refuse(o, "index " + DisplayIdent(i.name) +
                      " is invalid; drop or REINDEX it first");
      }
    }
    for (const std::string& m : t.dependent_matviews) {
      Refuse(o, "materialized view " + m +
                    " depends on it and would keep reading the old copy");
    }
    for (const std::string& r : t.rules)
      Refuse(o, "has rule " + DisplayIdent(r));
    for (const std::string& u : t.rowtype_users) {
      Refuse(o, u + " refers to it by oid (its row type or a BEGIN ATOMIC "
                    "body) and would keep pointing at the old copy");
    }
    for (const std::string& d : t.bound_dependents) {
      Refuse(o, d +
                    " refers to it by oid and would keep reading the old "
                    "copy after the swap; " +
                    (p.strategy == Strategy::kMove
                         ? "move it with online = false (ALTER TABLE ... SET "
                           "TABLESPACE keeps the table), or drop "
                         : "drop ") +
                    "that object before the migration and create it again "
                    "after");
    }
    for (const std::string& pub : t.publications) {
      Refuse(o, "is published by publication " + DisplayIdent(pub) +
                    ": a rename swap would break its subscribers");
    }
    // The subscription's table list holds the table's oid: its apply worker
    // would find the new table by name, see no subscription state for it,
    // and skip every later change without an error.
    for (const std::string& sub : t.subscriptions) {
      Refuse(o, "receives logical replication from subscription " +
                    DisplayIdent(sub) +
                    ": after a rename swap it would silently stop applying "
                    "changes to it" +
                    (p.strategy == Strategy::kMove
                         ? "; move it with online = false (ALTER TABLE ... "
                           "SET TABLESPACE keeps the table)"
                         : "; partition it on the publisher's side, or stop "
                           "subscribing to it first"));
    }
    for (const std::string& name : t.triggers_named_like_ours) {
      Refuse(o, fmt::format("has a trigger named {}, the name an online copy "
                            "gives its own capture trigger; rename it first "
                            "(ALTER TRIGGER {} ON {} RENAME TO ...)",
                            name, name, o));
    }
    if (server().version_num < 180000) {
      for (const ForeignKeyFacts& fk : t.fks_in) {
        if (!fk.from_partitioned) continue;
        Refuse(o, fmt::format("foreign key {} of partitioned table {} "
                              "references it: the swap re-adds it NOT VALID, "
                              "which a partitioned table accepts from "
                              "PostgreSQL 18",
                              DisplayIdent(fk.name), fk.table));
      }
    }
    for (const std::string& role :
         std::set<std::string>(t.grantors_without_usage.begin(),
                               t.grantors_without_usage.end())) {
      Refuse(o, fmt::format("role {} granted privileges on it but has no "
                            "USAGE on schema {}, so it cannot grant them "
                            "again on the new table; GRANT USAGE ON SCHEMA "
                            "{} TO {} first",
                            role, DisplayIdent(t.schema), QuoteIdent(t.schema),
                            role));
    }
    if (t.self_referencing_fk) {
      Refuse(o, "has a foreign key to itself, which the swap cannot re-point");
    }
    if (t.row_security && !server().superuser) {
      Refuse(o,
             "has row-level security: copying it needs a superuser or "
             "BYPASSRLS, otherwise rows would be filtered out");
    }
  }

  // An online move of a partition detaches it and attaches its copy
  // (docs/online-migration.md#moving-a-partition).
  void CheckPartition(const std::string& o, const TableFacts& t) {
    for (const std::string& fk : t.parent_referenced_by) {
      Refuse(o, fk + " references its parent " + t.partition_parent +
                    ": DETACH PARTITION refuses while rows of that table "
                    "reference this partition's rows");
    }
    for (const ColumnFacts& c : t.columns) {
      if (c.identity) {
        Refuse(o, "column " + DisplayIdent(c.name) +
                      " is an identity column, which a partition shares "
                      "with its parent and its copy cannot");
      }
    }
    if (t.default_partition_partitioned) {
      Warn(o, "the DEFAULT partition " + t.default_partition +
                  " of its parent is partitioned: ATTACH PARTITION scans it "
                  "under the swap's lock, which holds the parent (reads and "
                  "writes through it wait that long)");
    }
  }

  void CheckHashPartition(const Placement& p, const TableFacts& t) {
    const std::string& o = p.relation;
    if (t.kind == 'p') {
      Refuse(o,
             "is already partitioned, not as this plan says (its partitions "
             "are not the plan's, or not in the planned tablespaces)");
      return;
    }
    CheckOnlineCopy(p, t);
    CheckPartitionNames(p, t);
    for (const std::string& k : p.key) {
      const ColumnFacts* c = t.FindColumn(k);
      if (!c) {
        Refuse(o,
               "partition key column " + DisplayIdent(k) + " does not exist");
      } else if (c->generated) {
        Refuse(o, "partition key column " + DisplayIdent(k) +
                      " is a generated column");
      }
    }
    for (const IndexFacts& i : t.indexes) {
      if (!i.unique && i.constraint_type != 'x') continue;
      std::vector<std::string> missing;
      for (const std::string& k : p.key) {
        if (std::find(i.columns.begin(), i.columns.end(), k) ==
            i.columns.end()) {
          missing.push_back(k);
        }
      }
      const char* what = i.primary ? "primary key" : "unique index";
      if (i.constraint_type == 'x') what = "exclusion constraint";
      if (!missing.empty() || i.has_expressions) {
        Refuse(o, fmt::format(
                      "{} {} ({}) does not contain the partition key "
                      "column(s) {}: PostgreSQL requires every unique "
                      "constraint of a partitioned table to include "
                      "the key",
                      what, DisplayIdent(i.name), DisplayIdentList(i.columns),
                      DisplayIdentList(missing.empty() ? p.key : missing)));
      }
      if (i.constraint_type == 'x' && server().version_num < 170000) {
        Refuse(o, "exclusion constraint " + DisplayIdent(i.name) +
                      " cannot exist on a partitioned table before "
                      "PostgreSQL 17");
      }
    }
    if (server().version_num < 180000) {
      for (const ForeignKeyFacts& fk : t.fks_out) {
        Refuse(o, fmt::format("foreign key {} references {}: adding it to a "
                              "partitioned table without a long lock needs "
                              "NOT VALID, which PostgreSQL supports from 18",
                              DisplayIdent(fk.name), fk.table));
      }
    }
    for (const std::string& c : t.no_inherit_checks) {
      Refuse(o, "CHECK constraint " + DisplayIdent(c) +
                    " is NO INHERIT, which a partitioned table cannot have");
    }
    for (const TriggerFacts& tr : t.triggers) {
      if (tr.definition.find(" REFERENCING ") != std::string::npos &&
          tr.definition.find(" FOR EACH ROW ") != std::string::npos) {
        Refuse(o, "row trigger " + DisplayIdent(tr.name) +
                      " has transition tables, which a partitioned table's "
                      "row triggers cannot have");
      }
      if (tr.definition.find(" BEFORE ") != std::string::npos &&
          tr.definition.find(" FOR EACH ROW ") != std::string::npos &&
          server().version_num < 130000) {
        Refuse(o, "BEFORE ROW trigger " + DisplayIdent(tr.name) +
                      " is not supported on partitioned tables before 13");
      }
    }
  }

  // The relations a conversion creates must not exist yet, nor share a
  // name after PostgreSQL's 63-byte cut.
  void CheckPartitionNames(const Placement& p, const TableFacts& t) {
    for (const std::string& name : t.taken_names) {
      Refuse(p.relation,
             fmt::format("the conversion creates {}.{}, which exists "
                         "already; rename or drop that relation first",
                         DisplayIdent(t.schema), DisplayIdent(name)));
    }
    std::set<std::string> seen;
    for (const std::string& name : PartitionRelationNames(t, TargetOf(p))) {
      if (!seen.insert(name).second) {
        Refuse(p.relation,
               fmt::format("two of the relations the conversion creates "
                           "would both be named {} (names are cut to 63 "
                           "bytes); rename one of its indexes first",
                           DisplayIdent(name)));
      }
    }
  }

  std::string DirectoryOf(const std::string& tablespace) const {
    if (tablespace == "pg_default") return server().data_directory;
    if (const TablespaceSpec* spec = in_.plan->FindTablespace(tablespace)) {
      return spec->path;
    }
    if (const TablespaceFacts* f = server().FindTablespace(tablespace)) {
      return f->location;
    }
    return "";
  }

  // The relation of a placement this run still has to carry out (not
  // started, not already in place), or null.
  const TableFacts* Pending(const Placement& p) const {
    if (in_.started_relations.count(p.relation)) return nullptr;
    const TableFacts* t = ToPlace(p);
    return t && !t->placed_as_planned ? t : nullptr;
  }

  // The existing relation of a placement that moves it, or null.
  const TableFacts* ToPlace(const Placement& p) const {
    if (p.strategy == Strategy::kStay) return nullptr;
    auto it = in_.tables->find(p.relation);
    if (it == in_.tables->end() || !it->second.exists) return nullptr;
    return &it->second;
  }

  // Bytes each target tablespace receives from the pending placements.
  std::map<std::string, uint64_t> BytesToCopy() const {
    std::map<std::string, uint64_t> need;
    for (const Placement& p : in_.plan->placements) {
      const TableFacts* t = Pending(p);
      if (!t) continue;
      for (const auto& [ts, bytes] : BytesPerTablespace(p, *t)) {
        need[ts] += bytes;
      }
    }
    return need;
  }

  // The temp files of the largest online index build
  // (docs/online-migration.md#sort-spill). A sort whose index is larger
  // than half its memory (in memory a tuple takes about twice its size in
  // the index) spills about the index's size. The
  // builds run one at a time, so the largest counts; a partitioned copy
  // builds each partition's index on its own. A copy's builds sort in
  // sort_memory (or the server's maintenance_work_mem if larger), REINDEX
  // CONCURRENTLY in the server's. A resumed copy counts until its indexes
  // are built.
  uint64_t SortSpill() const {
    if (in_.sort_memory == 0) return 0;
    uint64_t server_memory = SettingOr(server(), "maintenance_work_mem", 0);
    uint64_t copy_memory = std::max(in_.sort_memory, server_memory);
    uint64_t largest = 0;
    auto add = [&largest](uint64_t index_bytes, uint64_t memory) {
      if (index_bytes * 2 > memory) largest = std::max(largest, index_bytes);
    };
    for (const Placement& p : in_.plan->placements) {
      const TableFacts* t =
          in_.sorts_ahead.count(p.relation) ? ToPlace(p) : Pending(p);
      if (!t || MovesOffline(p, *t)) continue;
      if (t->kind == 'i') {
        add(t->heap_size, server_memory);
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

  uint64_t BulkBytes() const {
    uint64_t total = 0;
    for (const auto& [ts, bytes] : BytesToCopy()) total += bytes;
    return total;
  }

  // WAL held by an inactive slot (or a failing archiver) is not recycled,
  // so the copies' WAL piles up on the WAL volume, and a full WAL volume
  // PANICs the server (docs/online-migration.md#wal-retention).
  void CheckWalRetention() {
    uint64_t wal =
        static_cast<uint64_t>(static_cast<double>(BulkBytes()) * kWalPerByte);
    if (wal == 0) return;
    std::string writes = HumanSize(static_cast<double>(wal));
    for (const ReplicationSlotFacts& slot : server().replication_slots) {
      if (slot.active || slot.wal_status == "lost") continue;
      std::string object = "replication slot " + slot.name;
      bool unbounded = server().max_slot_wal_keep_size_mb < 0;
      if (unbounded && in_.wal_free_bytes > 0 &&
          slot.retained_wal + wal > in_.wal_free_bytes / 2) {
        Refuse(object,
               fmt::format("is inactive and keeps all WAL ({} now); the "
                           "copies write about {} more and the WAL volume has "
                           "{} free: it could fill up and stop the server. "
                           "Reconnect its consumer or drop it{}",
                           HumanSize(static_cast<double>(slot.retained_wal)),
                           writes,
                           HumanSize(static_cast<double>(in_.wal_free_bytes)),
                           // max_slot_wal_keep_size: 13+.
                           server().version_num >= 130000
                               ? ", or set max_slot_wal_keep_size"
                               : ""));
      } else {
        Warn(object, fmt::format("is inactive: it keeps the copies' WAL "
                                 "(about {}) until it reconnects{}",
                                 writes,
                                 unbounded ? ""
                                           : " or max_slot_wal_keep_size "
                                             "is reached"));
      }
    }
    if (server().archiver_failing) {
      Warn("server", fmt::format("archive_command is failing: pg_wal keeps "
                                 "every segment until it succeeds, and the "
                                 "copies write about {}",
                                 writes));
    }
  }

  // The copies' bytes in each target tablespace and the index builds'
  // sort files in each temp tablespace (PostgreSQL may put them all in
  // any one), with the margin.
  void CheckFreeSpace() {
    std::map<std::string, uint64_t> copies = BytesToCopy();
    uint64_t spill = SortSpill();
    const std::vector<std::string>& temps = server().temp_tablespaces;
    if (spill > 0) {
      for (const std::string& ts : temps) copies.try_emplace(ts, 0);
    }
    for (const auto& [ts, bytes] : copies) {
      bool is_temp = std::find(temps.begin(), temps.end(), ts) != temps.end();
      CheckRoomIn(ts, bytes, is_temp ? spill : 0);
    }
  }

  void CheckRoomIn(const std::string& ts, uint64_t copies, uint64_t sorts) {
    auto with_margin = [this](uint64_t bytes) {
      return static_cast<uint64_t>(static_cast<double>(bytes) *
                                   in_.space_margin);
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
    std::string dir = DirectoryOf(ts);
    auto free = in_.free_bytes.find(dir);
    if (free == in_.free_bytes.end()) {
      Warn("tablespace " + ts,
           fmt::format("free space {} is unknown from this host; the "
                       "migration needs about {} there ({})",
                       dir.empty() ? "of its directory (not visible to this "
                                     "role)"
                                   : "at '" + dir + "'",
                       HumanSize(static_cast<double>(required)), what));
    } else if (free->second < required) {
      bool copies_fit = free->second >= with_margin(copies);
      Refuse("tablespace " + ts,
             fmt::format("needs {} ({} + {:.0f}% margin) but '{}' has {} "
                         "free{}",
                         HumanSize(static_cast<double>(required)), what,
                         (in_.space_margin - 1) * 100, dir,
                         HumanSize(static_cast<double>(free->second)),
                         sorts && copies_fit
                             ? "; point temp_tablespaces at a volume with "
                               "room (ALTER ROLE ... SET temp_tablespaces)"
                             : ""));
    }
  }

  void CheckSettings() {
    if (in_.plan->settings.empty()) return;
    if (!server().alter_system_allowed) {
      Refuse("settings",
             "allow_alter_system is off: ALTER SYSTEM is disabled "
             "on this server");
    }
    for (const SettingChange& s : in_.plan->settings) {
      auto ctx = server().setting_contexts.find(s.name);
      if (ctx == server().setting_contexts.end()) {
        Refuse("setting " + s.name, "is not a setting this server knows");
        continue;
      }
      if (ctx->second == "internal") {
        Refuse("setting " + s.name, "is read-only (internal)");
      } else if (ctx->second == "postmaster") {
        Warn("setting " + s.name,
             "takes effect only after a restart; it will be written with "
             "ALTER SYSTEM and reported, the server is never restarted");
      }
      if (!server().superuser) {
        Refuse("setting " + s.name,
               fmt::format("ALTER SYSTEM needs a superuser (or GRANT ALTER "
                           "SYSTEM ON PARAMETER on 15+); role {} is not one",
                           server().user));
      }
    }
  }

  const PreflightInput& in_;
  std::vector<Finding> findings_;
};

}  // namespace

std::string Finding::ToString() const {
  return (severity == Severity::kWarning ? "warning: " : "") + object + ": " +
         reason;
}

std::vector<Finding> RunPreflight(const PreflightInput& input) {
  return Checker(input).Run();
}

bool HasRefusal(const std::vector<Finding>& findings) {
  for (const Finding& f : findings) {
    if (f.severity == Finding::Severity::kRefusal) return true;
  }
  return false;
}

std::map<std::string, uint64_t> BytesPerTablespace(const Placement& placement,
                                                   const TableFacts& table) {
  std::map<std::string, uint64_t> out;
  if (placement.tablespaces.empty()) return out;
  uint64_t total = table.kind == 'i' ? table.heap_size : table.total_size();
  if (placement.strategy == Strategy::kMove) {
    out[placement.tablespaces[0]] = total;
    return out;
  }
  int k = std::max(placement.partitions, 1);
  for (int r = 0; r < k; ++r) {
    const std::string& ts =
        placement
            .tablespaces[static_cast<size_t>(r) % placement.tablespaces.size()];
    out[ts] += total / static_cast<uint64_t>(k);
  }
  return out;
}

}  // namespace pglayout::migrator
