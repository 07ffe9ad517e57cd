#include "observe/observe_pg.h"

#include <fmt/format.h>

#include <cstdlib>
#include <unordered_map>

#include "observe/rule_facts.h"
#include "pg/pg_catalog_read.h"
#include "pg/sql_row.h"
#include "pg/table_facts_read.h"

namespace pglayout {
namespace {

// The settings the planner and the diagnosis use. Names a version does not
// have (io_method before 18) are simply absent from the result.
constexpr const char* kSettings[] = {
    "shared_buffers",
    "max_wal_size",
    "min_wal_size",
    "checkpoint_timeout",
    "checkpoint_completion_target",
    "full_page_writes",
    "wal_compression",
    "wal_level",
    "wal_segment_size",
    "effective_io_concurrency",
    "maintenance_io_concurrency",
    "random_page_cost",
    "seq_page_cost",
    "io_combine_limit",
    "io_method",
    "io_workers",
    "log_checkpoints",
    "block_size",
    "data_directory",
    "server_version_num",
};

// User relations with storage or facts: tables, indexes, TOAST, matviews,
// partitioned tables. OIDs below FirstNormalObjectId (16384) are the system
// catalogs and their TOAST; temporary tables belong to one session and
// cannot be placed. Partitioned indexes have neither storage nor statistics.
// RelationsQuery() reports a TOAST relation's index as TOAST of the table
// that owns the TOAST relation (TOAST storage moves with that table and is
// never placed on its own: docs/workload-model.md), and leaves out
// pglayout's own relations (kPglayoutInternal).
constexpr char kRelationFilter[] =
    "c.relkind IN ('r', 'i', 't', 'm', 'p') AND c.oid >= 16384 "
    "AND c.relpersistence <> 't'";

// pglayout's own relations, with their indexes and TOAST (o is the owner):
// the journal and the old copies in schema pglayout, and the shadow tables
// "pglayout_new_<oid>" of a migration in progress.
constexpr char kPglayoutInternal[] =
    "(COALESCE(onsp.nspname, n.nspname) = 'pglayout' "
    "OR COALESCE(o.relname, c.relname) LIKE 'pglayout\\_new\\_%')";

// The name of a relation as PostgreSQL prints a regclass, but always with
// its schema (regclass drops the schema when it is on the search_path).
std::string QualifiedSql(const std::string& ns, const std::string& cls) {
  return fmt::format(
      "pg_catalog.quote_ident({}.nspname) || '.' || "
      "pg_catalog.quote_ident({}.relname)",
      ns, cls);
}

std::string RelationsQuery() {
  return fmt::format(
      "SELECT c.oid, {name}, "
      "CASE WHEN it.oid IS NULL THEN c.relkind ELSE 't' END, "
      "COALESCE(o.oid, 0), "
      "COALESCE({owner}, ''), COALESCE(t.spcname, dts.spcname), "
      "c.reltuples, c.relpages, c.relpersistence, c.relispartition, "
      "COALESCE({root}, ''), COALESCE({parent}, '') "
      "FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n "
      "ON n.oid = c.relnamespace "
      "LEFT JOIN pg_catalog.pg_index i ON i.indexrelid = c.oid "
      "LEFT JOIN pg_catalog.pg_class tt ON c.relkind = 't' AND "
      "tt.reltoastrelid = c.oid "
      "LEFT JOIN pg_catalog.pg_class it ON it.reltoastrelid = i.indrelid "
      "LEFT JOIN pg_catalog.pg_class o ON o.oid = COALESCE(it.oid, i.indrelid, "
      "tt.oid) "
      "LEFT JOIN pg_catalog.pg_namespace onsp ON onsp.oid = o.relnamespace "
      "LEFT JOIN pg_catalog.pg_tablespace t ON t.oid = c.reltablespace "
      // A partition's root (12+): the table Citus distributes, partitions
      // included (planner/citus_plan.h). Index partitions need none.
      "LEFT JOIN pg_catalog.pg_class pr ON c.relispartition AND c.relkind IN "
      "('r', 'p') "
      "AND pr.oid = pg_catalog.pg_partition_root(c.oid) "
      "LEFT JOIN pg_catalog.pg_namespace prn ON prn.oid = pr.relnamespace "
      // and its parent, whose key its bound belongs to (one row: a
      // partition has one parent).
      "LEFT JOIN pg_catalog.pg_inherits ih ON c.relispartition AND c.relkind "
      "IN ('r', 'p') AND ih.inhrelid = c.oid "
      "LEFT JOIN pg_catalog.pg_class pp ON pp.oid = ih.inhparent "
      "LEFT JOIN pg_catalog.pg_namespace ppn ON ppn.oid = pp.relnamespace "
      "CROSS JOIN (SELECT s.spcname FROM pg_catalog.pg_database d "
      "JOIN pg_catalog.pg_tablespace s ON s.oid = d.dattablespace "
      "WHERE d.datname = pg_catalog.current_database()) dts "
      "WHERE {filter} AND NOT {internal}",
      fmt::arg("name", QualifiedSql("n", "c")),
      fmt::arg("owner", QualifiedSql("onsp", "o")),
      fmt::arg("root", QualifiedSql("prn", "pr")),
      fmt::arg("parent", QualifiedSql("ppn", "pp")),
      fmt::arg("filter", kRelationFilter),
      fmt::arg("internal", kPglayoutInternal));
}

// The size of relation c as Relation::size defines it: every fork moves
// with the tablespace. Not pg_table_size(), which adds the TOAST relation
// and its index, rows of their own here. Only unlogged relations have an
// init fork: the CASE spares a lookup per relation.
constexpr char kSizeSql[] =
    "pg_catalog.pg_relation_size(c.oid, 'main') + "
    "pg_catalog.pg_relation_size(c.oid, 'fsm') + "
    "pg_catalog.pg_relation_size(c.oid, 'vm') + "
    "CASE WHEN c.relpersistence = 'u' "
    "THEN pg_catalog.pg_relation_size(c.oid, 'init') ELSE 0 END";

// The per-relation counters: the functions behind pg_statio_all_tables,
// pg_statio_all_indexes and pg_stat_all_tables, called directly so one scan
// of pg_class serves tables and indexes alike. pg_relation_size() takes a
// brief AccessShareLock; relations someone holds exclusively (ALTER TABLE,
// VACUUM FULL) are skipped instead of waited for, and keep their last size.
std::string CountersQuery() {
  return fmt::format(
      "SELECT c.oid, "
      "pg_catalog.pg_stat_get_blocks_fetched(c.oid) - "
      "pg_catalog.pg_stat_get_blocks_hit(c.oid), "
      "pg_catalog.pg_stat_get_blocks_hit(c.oid), "
      "pg_catalog.pg_stat_get_tuples_inserted(c.oid), "
      "pg_catalog.pg_stat_get_tuples_updated(c.oid), "
      "pg_catalog.pg_stat_get_tuples_hot_updated(c.oid), "
      "pg_catalog.pg_stat_get_tuples_deleted(c.oid), "
      "CASE WHEN x.relation IS NULL THEN {size} END "
      "FROM pg_catalog.pg_class c LEFT JOIN (SELECT DISTINCT l.relation "
      "FROM pg_catalog.pg_locks l "
      "WHERE l.mode = 'AccessExclusiveLock' AND l.relation IS NOT NULL "
      "AND l.database = (SELECT d.oid FROM pg_catalog.pg_database d "
      "WHERE d.datname = pg_catalog.current_database())) x "
      "ON x.relation = c.oid "
      "WHERE {filter}",
      fmt::arg("size", kSizeSql), fmt::arg("filter", kRelationFilter));
}

std::string ServerQuery(bool in_recovery) {
  // On a standby pg_current_wal_lsn() fails; the replay position advances
  // at the primary's WAL rate.
  const char* lsn = in_recovery ? "pg_catalog.pg_last_wal_replay_lsn()"
                                : "pg_catalog.pg_current_wal_lsn()";
  return fmt::format(
      "SELECT extract(epoch FROM pg_catalog.clock_timestamp()), "
      "COALESCE(pg_catalog.pg_wal_lsn_diff({}, '0/0'), 0), "
      "(SELECT COALESCE(pg_catalog.sum(xact_commit), 0) "
      "FROM pg_catalog.pg_stat_database), "
      "(SELECT buffers_clean FROM pg_catalog.pg_stat_bgwriter)",
      lsn);
}

// pg_stat_wal exists from 14; its wal_records, wal_fpi and wal_bytes kept
// their names in 18, which moved the write and sync counts to pg_stat_io
// (object "wal"). wal_sync counts the flushes of WAL to disk, which is
// what the WAL volume serves; commits include read-only transactions.
std::string WalQuery(int version) {
  return std::string("SELECT wal_records, wal_fpi, wal_bytes, ") +
         (version < 180000 ? "wal_sync" : "-1") +
         " FROM pg_catalog.pg_stat_wal";
}

// The WAL flushes of 18 from its pg_stat_io rows.
int64_t WalSyncsFromIo(const std::vector<IoCounters>& io) {
  int64_t syncs = 0;
  for (const IoCounters& c : io) {
    if (c.object == "wal") syncs += static_cast<int64_t>(c.fsyncs);
  }
  return syncs;
}

constexpr char kIoQuery[] =
    "SELECT backend_type, object, context, COALESCE(reads, 0), "
    "COALESCE(writes, 0), COALESCE(extends, 0), COALESCE(hits, 0), "
    "COALESCE(fsyncs, 0) FROM pg_catalog.pg_stat_io";

RelationKind KindOf(const std::string& relkind) {
  if (relkind == "i") return RelationKind::kIndex;
  if (relkind == "t") return RelationKind::kToast;
  if (relkind == "p") return RelationKind::kPartitioned;
  if (relkind == "m") return RelationKind::kMaterializedView;
  return RelationKind::kTable;  // 'r'
}

class PgStatsSource : public StatsSource {
 public:
  explicit PgStatsSource(SqlSession* session) : session_(session) {}

  Status ReadServer(ServerInfo* info) override {
    info->version_num = session_->server_version();
    info->description = session_->Describe();
    SqlValue recovery;
    PGLAYOUT_RETURN_IF_ERROR(
        Value("SELECT pg_catalog.pg_is_in_recovery()", &recovery));
    in_recovery_ = recovery == "t";
    info->in_recovery = in_recovery_;
    PGLAYOUT_RETURN_IF_ERROR(ReadSettings(&info->settings));
    PGLAYOUT_RETURN_IF_ERROR(
        WithPrivilegeHint(ReadPgTablespaces(session_, &info->tablespaces)));
    CheckpointStatistics checkpoints;
    bool found = false;
    PGLAYOUT_RETURN_IF_ERROR(ReadCheckpoints(&checkpoints, &found));
    if (!found) return Status::Ok();
    info->checkpoints_since_reset = Counters(checkpoints);
    info->checkpoints_reset_at = checkpoints.stats_reset;
    return Status::Ok();
  }

  Status ReadSample(Sample* sample, bool* skipped) override {
    *skipped = false;
    PGLAYOUT_RETURN_IF_ERROR(Run("BEGIN READ ONLY", {}, nullptr));
    Status st = ReadSampleInTransaction(sample);
    std::string sqlstate = session_->last_sqlstate();
    // The statistics snapshot lives as long as the transaction: end it.
    Status end = Run(st.ok() ? "COMMIT" : "ROLLBACK", {}, nullptr);
    if (!st.ok() && sqlstate == "55P03") {
      *skipped = true;  // lock_timeout despite the pg_locks filter: a race
      return end;
    }
    PGLAYOUT_RETURN_IF_ERROR(st);
    return end;
  }

  Status ReadRelations(std::vector<RelationInfo>* relations) override {
    SqlResult r;
    PGLAYOUT_RETURN_IF_ERROR(Run(RelationsQuery(), {}, &r));
    relations->clear();
    relations->reserve(r.rows.size());
    return ReadRows(r, "relations", [&](SqlRowReader& row) {
      RelationInfo info;
      info.oid = static_cast<uint32_t>(row.Int(0));
      info.name = row.Text(1);
      info.kind = KindOf(row.Text(2));
      info.table_oid = static_cast<uint32_t>(row.Int(3));
      info.table = row.Text(4);
      info.tablespace = row.Text(5);
      info.reltuples = row.Double(6);
      info.relpages = row.Double(7);
      const std::string persistence = row.Text(8);
      info.persistence =
          PersistenceFromCode(persistence.empty() ? 0 : persistence.front());
      info.is_partition = row.Bool(9);
      info.partition_of = row.Text(10);
      info.partition_parent = row.Text(11);
      relations->push_back(std::move(info));
    });
  }

  Status ReadFacts(const RelationInfo& table, Relation* relation) override {
    TableRuleFacts facts;
    PGLAYOUT_RETURN_IF_ERROR(
        WithPrivilegeHint(ReadTableRuleFacts(session_, table.oid, &facts)));
    WriteRuleFacts(facts, relation);
    return Status::Ok();
  }

 private:
  // Runs |sql|; a missing privilege gets a hint naming the roles that
  // grant it, and the running role.
  Status Run(const std::string& sql, const std::vector<SqlValue>& params,
             SqlResult* result) {
    SqlResult ignored;
    return WithPrivilegeHint(
        session_->Execute(sql, params, result ? result : &ignored));
  }

  // |st| of the last statement, with that hint if a privilege was missing.
  Status WithPrivilegeHint(const Status& st) {
    if (st.ok() || session_->last_sqlstate() != "42501") return st;
    return st.WithHint(fmt::format(
        "observe reads the statistics views: grant pg_read_all_stats (or "
        "pg_monitor) to the observing role ({}).",
        session_->Describe()));
  }

  Status Value(const std::string& sql, SqlValue* value,
               const std::vector<SqlValue>& params = {}) {
    SqlResult r;
    PGLAYOUT_RETURN_IF_ERROR(Run(sql, params, &r));
    if (r.rows.empty() || r.rows[0].empty()) {
      return Status::Internal("no row from: " + sql);
    }
    *value = r.rows[0][0];
    return Status::Ok();
  }

  // The settings as SHOW prints them ("1GB"). pg_settings lists only what
  // the role may see: data_directory needs pg_read_all_settings and is then
  // simply missing.
  Status ReadSettings(std::map<std::string, std::string>* settings) {
    std::vector<std::string> names(std::begin(kSettings), std::end(kSettings));
    std::map<std::string, PgSetting> read;
    PGLAYOUT_RETURN_IF_ERROR(
        WithPrivilegeHint(ReadPgSettings(session_, names, &read)));
    for (const auto& [name, setting] : read) (*settings)[name] = setting.shown;
    return Status::Ok();
  }

  // The checkpoints, or the restartpoints of a standby from 17 on;
  // *found is false when the view gave no row.
  Status ReadCheckpoints(CheckpointStatistics* checkpoints, bool* found) {
    Status st = ReadCheckpointStatistics(session_, in_recovery_, checkpoints);
    *found = st.code() != Status::Code::kNotFound;
    return *found ? WithPrivilegeHint(st) : Status::Ok();
  }

  static CheckpointCounters Counters(const CheckpointStatistics& c) {
    return {c.timed, c.requested, c.write_time_ms, c.sync_time_ms,
            c.buffers_written};
  }

  Status ReadSampleInTransaction(Sample* sample) {
    int version = session_->server_version();
    ServerCounters& s = sample->server;
    SqlResult r;
    PGLAYOUT_RETURN_IF_ERROR(Run(ServerQuery(in_recovery_), {}, &r));
    SqlRowReader server(r, 0, "server counters");
    s.time = server.Double(0);
    s.wal_lsn = server.Double(1);
    s.commits = server.Int(2);
    s.buffers_clean = server.Int(3);
    PGLAYOUT_RETURN_IF_ERROR(server.status());
    CheckpointStatistics checkpoints;
    bool found = false;
    PGLAYOUT_RETURN_IF_ERROR(ReadCheckpoints(&checkpoints, &found));
    if (found) s.checkpoints = Counters(checkpoints);
    if (version >= 140000) {
      PGLAYOUT_RETURN_IF_ERROR(Run(WalQuery(version), {}, &r));
      if (!r.rows.empty()) {
        SqlRowReader wal(r, 0, "pg_stat_wal");
        s.has_wal_stats = true;
        s.wal_records = wal.Int(0);
        s.wal_fpi = wal.Int(1);
        s.wal_bytes = wal.Double(2);
        if (r.rows[0].size() > 3) s.wal_syncs = wal.Int(3);
        PGLAYOUT_RETURN_IF_ERROR(wal.status());
      }
    }
    if (version >= 160000) PGLAYOUT_RETURN_IF_ERROR(ReadIo(&s.io));
    if (version >= 180000) s.wal_syncs = WalSyncsFromIo(s.io);
    return ReadRelationCounters(&sample->relations);
  }

  Status ReadIo(std::vector<IoCounters>* out) {
    SqlResult r;
    PGLAYOUT_RETURN_IF_ERROR(Run(kIoQuery, {}, &r));
    return ReadRows(r, "pg_stat_io", [&](SqlRowReader& row) {
      out->push_back({row.Text(0), row.Text(1), row.Text(2), row.Double(3),
                      row.Double(4), row.Double(5), row.Double(6),
                      row.Double(7)});
    });
  }

  Status ReadRelationCounters(
      std::unordered_map<uint32_t, RelationCounters>* out) {
    SqlResult r;
    PGLAYOUT_RETURN_IF_ERROR(Run(CountersQuery(), {}, &r));
    out->reserve(r.rows.size());
    return ReadRows(r, "relation counters", [&](SqlRowReader& row) {
      uint32_t oid = static_cast<uint32_t>(row.Int(0));
      RelationCounters c;
      c.blocks_read = row.Int(1);
      c.blocks_hit = row.Int(2);
      c.tuples_inserted = row.Int(3);
      c.tuples_updated = row.Int(4);
      c.tuples_hot_updated = row.Int(5);
      c.tuples_deleted = row.Int(6);
      // NULL: locked exclusively (skipped) or dropped meanwhile.
      if (!row.IsNull(7)) {
        c.size = static_cast<uint64_t>(row.Int(7));
        last_size_[oid] = c.size;
      } else {
        c.size = last_size_[oid];
      }
      (*out)[oid] = c;
    });
  }

  SqlSession* session_;
  bool in_recovery_ = false;
  std::unordered_map<uint32_t, uint64_t> last_size_;
};

}  // namespace

Status OpenPgStatsSource(SqlSession* session,
                         std::unique_ptr<StatsSource>* source) {
  int version = session->server_version();
  if (version < kMinObservedVersion) {
    return Status::Aborted(fmt::format(
        "{} runs PostgreSQL {}.{}, older than 12: observe reads statistics "
        "columns that exist from PostgreSQL 12 on",
        session->Describe(), version / 10000,
        version >= 100000 ? version % 10000 : (version / 100) % 100));
  }
  // A monitor must never write, wait on a lock for long, or run forever.
  // On top of OpenPgSession's hardening (pg/sql.h).
  PGLAYOUT_RETURN_IF_ERROR(ExecuteSql(
      session,
      "SELECT pg_catalog.set_config('default_transaction_read_only', 'on', "
      "false), pg_catalog.set_config('statement_timeout', '60s', false), "
      "pg_catalog.set_config('lock_timeout', '2s', false)"));
  *source = std::make_unique<PgStatsSource>(session);
  return Status::Ok();
}

Status ObserveServer(const std::string& conninfo, ProgressSink* progress,
                     const ObserveOptions& options, ObserveResult* result) {
  // Bad options fail before any connection is attempted.
  PGLAYOUT_RETURN_IF_ERROR(ValidateObserveOptions(options));
  std::unique_ptr<SqlSession> session;
  PGLAYOUT_RETURN_IF_ERROR(
      OpenPgSession(conninfo, "pglayout observe", &session));
  std::unique_ptr<StatsSource> source;
  PGLAYOUT_RETURN_IF_ERROR(OpenPgStatsSource(session.get(), &source));
  return Observe(source.get(), SystemClock(), progress, options, result);
}

}  // namespace pglayout
