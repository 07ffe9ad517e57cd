#include "migrator/preflight.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "common/text.h"
#include "migrator/preflight_checks.h"

namespace pglayout::migrator {
namespace {

bool UnderDirectory(const std::string& path, const std::string& dir) {
  if (dir.empty()) return false;
  return path == dir || path.starts_with(dir + "/");
}

// The existing relation of a placement that moves it, or null.
const TableFacts* ToPlace(const PreflightInput& in, const Placement& p) {
  if (p.strategy == Strategy::kStay) return nullptr;
  auto it = in.tables->find(p.relation);
  if (it == in.tables->end() || !it->second.exists) return nullptr;
  return &it->second;
}

// The relation of a placement this run still has to carry out (not
// started, not already in place), or null.
const TableFacts* Pending(const PreflightInput& in, const Placement& p) {
  if (in.started_relations.count(p.relation)) return nullptr;
  const TableFacts* t = ToPlace(in, p);
  return t && !t->placed_as_planned ? t : nullptr;
}

}  // namespace

std::vector<Finding> CheckServer(const ServerFacts& server) {
  Findings f;
  if (server.version_num < 120000) {
    f.Refuse("server", fmt::format("PostgreSQL {} is not supported; pglayout "
                                   "migrate needs 12 or later",
                                   server.version_num));
  }
  if (server.in_recovery) {
    f.Refuse("server",
             "the server is in recovery (a standby); run against the primary");
  }
  if (!server.lock_holder.empty()) {
    f.Refuse("server",
             "another pglayout migrate is running on this database: " +
                 server.lock_holder);
  }
  if (!server.superuser && !server.create_db_privilege &&
      !server.journal_schema_exists) {
    f.Refuse("database " + server.database,
             fmt::format("role {} lacks CREATE on database {}, needed for the "
                         "journal schema pglayout",
                         server.user, server.database));
  }
  return f.list;
}

std::vector<Finding> CheckTablespace(const TablespaceSpec& ts,
                                     const ServerFacts& server,
                                     bool standby_dirs_ready) {
  Findings f;
  std::string object = "tablespace " + ts.name;
  if (const TablespaceFacts* existing = server.FindTablespace(ts.name)) {
    if (existing->location != ts.path) {
      f.Refuse(object, fmt::format("already exists at '{}', the plan says '{}'",
                                   existing->location, ts.path));
    }
    return f.list;
  }
  for (const TablespaceFacts& other : server.tablespaces) {
    if (!other.location.empty() && other.location == ts.path) {
      f.Refuse(object, fmt::format("directory '{}' is already used by "
                                   "tablespace {}",
                                   ts.path, other.name));
    }
  }
  // A standby replays CREATE TABLESPACE with the same path and stops
  // (its startup process fails) when that directory is missing there.
  if (!standby_dirs_ready) {
    for (const std::string& standby : server.streaming_standbys) {
      f.Refuse(object,
               fmt::format("standby {} streams from this server and would "
                           "stop replaying at CREATE TABLESPACE unless "
                           "directory '{}' exists on its host too; create it "
                           "there (empty, owned by the PostgreSQL OS user), "
                           "also on standbys not connected now, then run "
                           "again with --standby-dirs-ready",
                           standby, ts.path));
    }
  }
  if (!server.superuser) {
    f.Refuse(object, fmt::format("CREATE TABLESPACE needs a superuser; role {} "
                                 "is not one",
                                 server.user));
    return f.list;  // the directory checks below need superuser to read
  }
  if (UnderDirectory(ts.path, server.data_directory)) {
    f.Refuse(object, fmt::format("directory '{}' is inside the data directory "
                                 "'{}'",
                                 ts.path, server.data_directory));
  }
  auto dir = server.path_is_directory.find(ts.path);
  if (dir == server.path_is_directory.end()) {
    f.Refuse(object, fmt::format("directory '{}' does not exist on the server "
                                 "host; create it, owned by the PostgreSQL "
                                 "OS user",
                                 ts.path));
    return f.list;
  }
  if (!dir->second) {
    f.Refuse(object,
             fmt::format("'{}' exists but is not a directory", ts.path));
    return f.list;
  }
  auto entries = server.path_entries.find(ts.path);
  if (entries == server.path_entries.end()) return f.list;
  for (const std::string& e : entries->second) {
    if (e.starts_with("PG_")) {
      f.Refuse(object, fmt::format("directory '{}' is already in use by a "
                                   "tablespace (it holds {})",
                                   ts.path, e));
      return f.list;
    }
  }
  if (!entries->second.empty()) {
    f.Warn(object, fmt::format("directory '{}' is not empty ({} entries)",
                               ts.path, entries->second.size()));
  }
  return f.list;
}

std::vector<Finding> CheckPrivileges(const Placement& p, const TableFacts& t,
                                     const ServerFacts& server) {
  Findings f;
  if (server.superuser) return f.list;
  if (!t.security.owner_privileges) {
    f.Refuse(p.relation,
             fmt::format("role {} is neither its owner ({}) nor a member of "
                         "that role, and moving it needs the owner's "
                         "privileges (ALTER TABLE ... SET TABLESPACE)",
                         server.user, t.security.owner));
  }
  const auto& lacking = server.tablespaces_without_create;
  for (const std::string& ts : p.tablespaces) {
    if (std::find(lacking.begin(), lacking.end(), ts) == lacking.end()) {
      continue;
    }
    f.Refuse("tablespace " + ts,
             fmt::format("role {} lacks CREATE on it, needed to move {} there",
                         server.user, p.relation));
  }
  return f.list;
}

std::vector<Finding> CheckSettings(const std::vector<SettingChange>& settings,
                                   const ServerFacts& server) {
  Findings f;
  if (settings.empty()) return f.list;
  if (!server.alter_system_allowed) {
    f.Refuse("settings",
             "allow_alter_system is off: ALTER SYSTEM is disabled "
             "on this server");
  }
  for (const SettingChange& s : settings) {
    auto ctx = server.setting_contexts.find(s.name);
    if (ctx == server.setting_contexts.end()) {
      f.Refuse("setting " + s.name, "is not a setting this server knows");
      continue;
    }
    if (ctx->second == "internal") {
      f.Refuse("setting " + s.name, "is read-only (internal)");
    } else if (ctx->second == "postmaster") {
      f.Warn("setting " + s.name,
             "takes effect only after a restart; it will be written with "
             "ALTER SYSTEM and reported, the server is never restarted");
    }
    if (!server.superuser) {
      f.Refuse("setting " + s.name,
               fmt::format("ALTER SYSTEM needs a superuser (or GRANT ALTER "
                           "SYSTEM ON PARAMETER on 15+); role {} is not one",
                           server.user));
    }
  }
  return f.list;
}

std::string Finding::ToString() const {
  return (severity == Severity::kWarning ? "warning: " : "") +
         DisplayName(object) + ": " + DisplayName(reason);
}

std::vector<Finding> RunPreflight(const PreflightInput& in) {
  const ServerFacts& server = *in.server;
  std::vector<Finding> findings;
  auto add = [&findings](std::vector<Finding> more) {
    for (Finding& f : more) findings.push_back(std::move(f));
  };
  add(CheckServer(server));
  for (const TablespaceSpec& ts : in.plan->tablespaces) {
    if (in.started_tablespaces.count(ts.name)) continue;
    add(CheckTablespace(ts, server, in.standby_dirs_ready));
  }
  for (const Placement& p : in.plan->placements) {
    if (p.strategy == Strategy::kStay) continue;
    if (in.started_relations.count(p.relation)) continue;
    const TableFacts* t = ToPlace(in, p);
    if (!t) {
      findings.push_back(
          {Finding::Severity::kRefusal, p.relation, "relation does not exist"});
      continue;
    }
    if (t->placed_as_planned) continue;
    add(CheckPrivileges(p, *t, server));
    add(CheckRelation(p, *t, server, in.offline_rate_mbps));
  }
  // What is left to copy, and the index builds still ahead (a resumed
  // copy's too, until its indexes are built).
  std::vector<PlacementWork> pending;
  std::vector<PlacementWork> builds;
  for (const Placement& p : in.plan->placements) {
    if (const TableFacts* t = Pending(in, p)) pending.push_back({&p, t});
    const TableFacts* b =
        in.sorts_ahead.count(p.relation) ? ToPlace(in, p) : Pending(in, p);
    if (b) builds.push_back({&p, b});
  }
  std::map<std::string, uint64_t> copies = BytesToCopy(pending);
  uint64_t bulk = 0;
  for (const auto& [ts, bytes] : copies) bulk += bytes;
  add(CheckFreeSpace(*in.plan, server, copies,
                     SortSpill(builds, in.sort_memory, server), in.free_bytes,
                     in.space_margin));
  add(CheckWalRetention(server, bulk, in.wal_free_bytes));
  add(CheckSettings(in.plan->settings, server));
  std::stable_sort(findings.begin(), findings.end(),
                   [](const Finding& a, const Finding& b) {
                     return a.severity < b.severity;
                   });
  return findings;
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
  uint64_t total =
      table.kind == 'i' ? table.storage.heap_size : table.total_size();
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
