// What the migrator knows about the server and the relations a plan names.
//
// These structs are filled from the system catalogs by server_facts.h
// (GatherFacts) and read by the pure parts of the migrator: the preflight
// (preflight.h), the step planner (steps.h) and the SQL generators
// (online_sql.h). Tests build them by hand, which is how the planner and the
// preflight are tested without a server.
//
// Names: `schema` and `name` are the system catalogs' spellings (unquoted,
// exact case); quote them with QuoteIdent before use. Sizes are bytes.

#ifndef PGLAYOUT_MIGRATOR_FACTS_H_
#define PGLAYOUT_MIGRATOR_FACTS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/hash_rule.h"
#include "common/model.h"
#include "common/relation_traits.h"

namespace pglayout::migrator {

struct ColumnFacts {
  std::string name;
  std::string type;  // format_type(): "integer", "character varying(20)"
  bool not_null = false;
  char identity = 0;                 // 'a' ALWAYS, 'd' BY DEFAULT, 0 none
  char generated = 0;                // 's' stored, 'v' virtual (18), 0 none
  int stat_target = -1;              // -1 = default
  std::vector<std::string> options;  // attoptions: "n_distinct=-1"
  // The extended hash function of the type's default hash operator class
  // and the type it takes, both schema-qualified
  // ("pg_catalog.hashint4extended", "pg_catalog.int4"); empty when the type has
  // none (json, point).
  std::string hash_function;
  std::string hash_input_type;
  // The column's collation when it is not its type's default, quoted and
  // qualified (pg_catalog."C"); "" otherwise.
  std::string collation;
  // The type's name from pg_type, quoted and schema-qualified, without the
  // modifier: what a key's cast and the capture log's column are spelled
  // with ("pg_catalog.int4", "pg_catalog.varchar", "public.mood"); a domain
  // stays the domain.
  std::string cast_type = "";
};

struct IndexFacts {
  std::string name;
  std::string tablespace;  // "" = the database default
  uint64_t size = 0;
  bool valid = true;
  bool unique = false;
  bool primary = false;
  bool partial = false;              // has a WHERE clause
  bool has_expressions = false;      // indexes an expression, not only columns
  std::string constraint;            // backing constraint name, "" if none
  char constraint_type = 0;          // 'p', 'u', 'x' or 0
  std::vector<std::string> columns;  // key columns (plain columns only)
  // pg_get_indexdef() after "ON <table> ": "USING btree (id) WHERE ...".
  std::string using_clause;
  // pg_get_constraintdef() for constraint-backed indexes: "UNIQUE (a, b)".
  // It leaves out the index's storage parameters, which |options| has.
  std::string constraint_def;
  std::vector<std::string> options;  // reloptions: "fillfactor=70"
  bool clustered = false;            // CLUSTER ... USING marked it
  // ALTER INDEX ... ALTER COLUMN n SET STATISTICS t (expression columns):
  // (column number, target) for targets that are not the default.
  std::vector<std::pair<int, int>> column_stat_targets;
  bool replica_identity = false;  // REPLICA IDENTITY USING INDEX it
};

struct ForeignKeyFacts {
  std::string name;
  std::string table;              // the other table, quoted-qualified
  std::string definition;         // pg_get_constraintdef(): "FOREIGN KEY ...",
                                  // without a trailing " NOT VALID"
  bool valid = true;              // convalidated: NOT VALID stays NOT VALID
  bool from_partitioned = false;  // the referencing table is partitioned
};

// A CHECK constraint marked NOT VALID: rows older than it may break it.
struct CheckFacts {
  std::string name;
  std::string definition;  // "CHECK ((qty > 0))", without " NOT VALID"
};

struct TriggerFacts {
  std::string name;
  std::string definition;  // pg_get_triggerdef()
  char enabled = 'O';      // tgenabled: O, D, R, A
};

struct ViewFacts {
  std::string name;                  // quoted-qualified
  std::string definition;            // pg_get_viewdef(), names schema-qualified
  std::vector<std::string> options;  // reloptions: "security_barrier=true"
};

struct PolicyFacts {
  std::string name;
  std::string definition;  // full CREATE POLICY text without the table
};

// An extended statistics object on the table (CREATE STATISTICS).
struct StatisticsFacts {
  std::string schema;  // where the object lives (unquoted)
  std::string name;
  int target = -1;    // ALTER STATISTICS ... SET STATISTICS; -1 = default
  std::string owner;  // "" = not known (facts made by hand)
};

// A function of a role that is not a superuser, which an online copy, a
// hash conversion or a partition move would evaluate with pglayout's
// privileges (docs/security.md#code-of-other-roles).
struct UntrustedCodeFacts {
  std::string object;    // "constraint c", "index i", "default of column c"
  std::string function;  // regprocedure: "public.f(integer)"
  std::string owner;     // the function's owner (unquoted)
};

// A relation's facts in groups named as pg/table_facts_read.h names them
// (keys, dependents, storage, security) plus its place in a partition tree
// (partition). Outside the groups: what the relation is and its structure
// (columns, indexes, statistics), which the SQL generators copy.
struct TableFacts {
  bool exists = false;
  uint32_t oid = 0;
  std::string schema;
  std::string name;
  char kind = 'r';               // relkind: r, p, i, m, v, f, S, t
  bool has_inheritance = false;  // an inheritance parent or child
  bool typed = false;            // CREATE TABLE ... OF type
  bool extension_member = false;
  bool system = false;  // in pg_catalog / information_schema
  // Set by the migrator, not read from the system catalogs: the placement is
  // already carried out as planned (a finished hash-partition plan run
  // again), so there is nothing to check or do.
  bool placed_as_planned = false;
  std::string table;    // for an index: its table (quoted-qualified)
  std::string comment;  // "" = none

  std::vector<ColumnFacts> columns;  // user columns in attnum order
  std::vector<IndexFacts> indexes;
  // In creation (oid) order, the order LIKE ... INCLUDING STATISTICS
  // copies them in.
  std::vector<StatisticsFacts> statistics;
  // Relations of the table's schema under names a hash conversion would
  // create (its partitions and their indexes). Set by the migrator for a
  // hash-partition placement, not read by GatherTableFacts.
  std::vector<std::string> taken_names;
  // COMMENT ON INDEX / CONSTRAINT / TRIGGER / POLICY statements for what the
  // swap makes anew, "{table}" standing for the table.
  std::vector<std::string> object_comments;
  // A hash of what the shadow took over when it was made: columns (type,
  // NOT NULL, default, identity, generated, collation, storage,
  // compression), indexes, constraints, owner, persistence and storage
  // parameters. The swap refuses when it changed since the copy started
  // (concurrent DDL); what the swap itself carries over (grants, policies,
  // triggers, comments, views) is read afresh at the swap.
  std::string structure_hash;

  // Where a partition sits in its tree and what ATTACH and DETACH of it
  // check (docs/online-migration.md#moving-a-partition). Empty unless
  // is_partition; read only for a partition.
  struct Partition {
    bool is_partition = false;  // relispartition
    // Its parent (quoted-qualified), not the tree's root (which the model
    // calls partition_of).
    std::string parent;
    // Its bound as pg_get_expr(relpartbound) prints it ("FOR VALUES FROM
    // (1) TO (9)", "DEFAULT"), and its partition constraint, ancestors'
    // included (pg_get_partition_constraintdef; "" when it has none, as the
    // only partition of a parent when that partition is its DEFAULT).
    std::string bound;
    std::string constraint;
    // The parent's partition key as pg_get_partkeydef prints it: "HASH
    // (id)" (an opclass or collation other than the column's default
    // shows); the model's partition_key is a partitioned table's own.
    std::string parent_key;
    // The parent's DEFAULT partition when it is another one
    // (quoted-qualified; "" if none), and whether that one is partitioned.
    std::string default_partition;
    bool default_partition_partitioned = false;
    // Foreign keys the partition has from its parent (conparentid): ATTACH
    // takes them over from an equal key of the new partition.
    std::vector<ForeignKeyFacts> inherited_fks_out;
    // Foreign keys that reference the parent (or an ancestor), each as
    // declared on its table (conparentid = 0; |table| is the referencing
    // one, the parent itself for a key to itself): DETACH PARTITION checks
    // their rows, so the swap drops them first, adds them back NOT VALID
    // after ATTACH and validates them after the swap.
    std::vector<ForeignKeyFacts> parent_fks_in;
  };
  Partition partition;

  // Its files and how it logs: what a move carries over and is sized by
  // (reltuples is the planner's estimate).
  struct Storage {
    Persistence persistence = Persistence::kPermanent;
    ReplicaIdentity replica_identity = ReplicaIdentity::kDefault;
    std::string tablespace;  // "" = database default
    uint64_t heap_size = 0;  // main fork + fsm + vm
    uint64_t toast_size = 0;
    uint64_t index_size = 0;
    double reltuples = 0;
    std::vector<std::string> reloptions;        // "fillfactor=90"
    std::vector<std::string> toast_reloptions;  // "autovacuum_enabled=off"
  };
  Storage storage;

  // What the online copy identifies rows by, and the CHECK constraints
  // that LIKE would copy wrongly or a partitioned table cannot have.
  struct Keys {
    // The columns that identify a row for the online copy: the primary
    // key, else a unique, non-partial, valid index over NOT NULL plain
    // columns.
    std::vector<std::string> row_key;
    std::string row_key_index;  // the index providing row_key, "" if none
    std::vector<CheckFacts> not_valid_checks;
    // The valid CHECK ... NO INHERIT constraints with their definitions
    // ("CHECK ((v > 0)) NO INHERIT"): LIKE copies them inheritable on
    // PostgreSQL 12.
    std::vector<CheckFacts> valid_no_inherit_checks;
  };
  Keys keys;

  // What the shared rule judges (common/hash_rule.h: keys, foreign keys,
  // trigger kinds, NO INHERIT checks, publications), as the one reader
  // observe uses too gives it (pg/table_facts_read.h); the groups here
  // hold what the migrator's DDL needs.
  HashRuleFacts rule;

  // What is tied to the table by a dependency. The swap re-creates or
  // re-points the first ones (foreign keys, views, triggers, sequences);
  // each of the others stops a swap (the preflight refuses an online copy
  // over it): a swap would leave it on the old copy, break it, or wait for
  // it forever.
  struct Dependents {
    // Its own foreign keys, one to itself among them, and those of other
    // tables that reference it (a self-reference is in fks_out only).
    std::vector<ForeignKeyFacts> fks_out;
    std::vector<ForeignKeyFacts> fks_in;
    std::vector<ViewFacts> views;        // views reading the table
    std::vector<TriggerFacts> triggers;  // user triggers only
    // User triggers under a name an online copy gives its own
    // (kOwnTriggerNames): "pglayout_capture".
    std::vector<std::string> triggers_named_like_ours;
    std::vector<std::string> owned_sequences;     // serial: "schema.seq|column"
    std::vector<std::string> identity_sequences;  // "column|schema.seq"
    // Column -> its identity sequence's type ("integer"): LIKE ... INCLUDING
    // IDENTITY makes every copied identity sequence a bigint one.
    std::map<std::string, std::string> identity_sequence_types;

    // Those that stop a swap.
    std::vector<std::string> matviews;
    std::vector<std::string> rules;          // rule names (not _RETURN)
    std::vector<std::string> rowtype_users;  // "table.column" or function
    // Other objects bound to it by oid that a swap would leave on the old
    // copy: "policy readable on table documents", "rule r on table t".
    std::vector<std::string> bound;
    std::vector<std::string> subscriptions;  // applying logical replication
    // Prepared transactions holding a lock on it (gids as quoted literals).
    std::vector<std::string> prepared_xacts;
  };
  Dependents dependents;

  // Who may do what with it, and what copying it would run or need under
  // pglayout's privileges (docs/security.md#code-of-other-roles). The swap
  // gives the new table the same owner, row security, policies and grants.
  struct Security {
    std::string owner;
    // The running role has the owner's privileges (is the owner or a
    // member of its role, with INHERIT): what ALTER TABLE ... SET
    // TABLESPACE needs.
    bool owner_privileges = true;
    bool row_security = false;
    bool force_row_security = false;
    std::vector<PolicyFacts> policies;
    // REVOKE and GRANT statements (and SET LOCAL ROLE around a grant made
    // by a role other than the owner) that make the old table's privileges
    // on a new one, "{table}" standing for the table.
    std::vector<std::string> grants;
    // Code of other roles: every function that is not a superuser's which
    // copying the table's rows into a new table would evaluate (through
    // its CHECK constraints, defaults and generated columns, the
    // constraints of its columns' domains, its index expressions and
    // predicates, its ancestors' partition keys, its columns' hash
    // functions), directly or through an operator.
    std::vector<UntrustedCodeFacts> untrusted_code;
    // Roles that granted a privilege on it but have no USAGE on its
    // schema: they could not grant it again on the new table (quoted).
    std::vector<std::string> grantors_without_usage;
  };
  Security security;

  uint64_t total_size() const {
    return storage.heap_size + storage.toast_size + storage.index_size;
  }
  const ColumnFacts* FindColumn(const std::string& column) const;
};

// A tablespace and its directory, as observe reads it too
// (pg/pg_catalog_read.h).
using TablespaceFacts = TablespaceInfo;

struct ReplicationSlotFacts {
  std::string name;
  bool active = false;
  std::string wal_status;     // reserved, extended, unreserved, lost, ""
  uint64_t retained_wal = 0;  // bytes from restart_lsn to the current LSN
};

struct ServerFacts {
  int version_num = 0;  // server_version_num
  bool superuser = false;
  bool create_db_privilege = false;    // CREATE on the current database
  bool journal_schema_exists = false;  // schema pglayout is there already
  bool in_recovery = false;
  bool alter_system_allowed = true;  // allow_alter_system (17+)
  std::string user;
  std::string database;
  std::string data_directory;  // "" when not readable
  // Where this session's sorts spill (index builds): the tablespaces of
  // temp_tablespaces it may use (PostgreSQL spreads temp files over them),
  // else the database's default tablespace.
  std::vector<std::string> temp_tablespaces;
  std::vector<TablespaceFacts> tablespaces;
  // Existing tablespaces the running role lacks CREATE on (the database's
  // default tablespace needs none).
  std::vector<std::string> tablespaces_without_create;
  // For each tablespace path the plan names: does the server see it as a
  // directory (pg_stat_file), and what is in it.
  std::map<std::string, bool> path_is_directory;  // missing = not found
  std::map<std::string, std::vector<std::string>> path_entries;
  std::map<std::string, std::string> settings;          // name -> setting
  std::map<std::string, std::string> setting_units;     // name -> unit
  std::map<std::string, std::string> setting_contexts;  // name -> context
  // WAL retention: every slot, whether max_slot_wal_keep_size bounds them
  // (-1 = unlimited), and whether archive_command is failing now.
  std::vector<ReplicationSlotFacts> replication_slots;
  int64_t max_slot_wal_keep_size_mb = -1;
  bool archiver_failing = false;
  // Physical standbys streaming from this server ("name at address"): they
  // replay CREATE TABLESPACE with the same path.
  std::vector<std::string> streaming_standbys;
  // A pglayout migrate session that holds the run lock right now.
  std::string lock_holder;  // "" = free; else "pid 123 (app), since ..."

  const TablespaceFacts* FindTablespace(const std::string& name) const;
};

}  // namespace pglayout::migrator

#endif  // PGLAYOUT_MIGRATOR_FACTS_H_
