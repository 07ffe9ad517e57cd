// The one reader of what a table allows: its keys, foreign keys, triggers,
// publications and the rest that decide a hash conversion and an online
// swap (common/hash_rule.h), read from pg_catalog in one query. observe
// writes them into workload.toml (for the planner), migrate reads them
// fresh before it acts (for its preflight): both see a fact the same way.
// Names are the catalog's spellings (unquoted) unless said otherwise.

#ifndef PGLAYOUT_PG_TABLE_FACTS_READ_H_
#define PGLAYOUT_PG_TABLE_FACTS_READ_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/hash_rule.h"
#include "common/relation_traits.h"
#include "common/status.h"
#include "pg/sql.h"

namespace pglayout {

struct TableRuleFacts {
  struct Keys {
    std::vector<std::string> primary_key;  // its key columns, in order
    // Valid, non-partial unique indexes on plain columns, the primary key
    // left out: what a partition key can use.
    std::vector<std::vector<std::string>> unique_keys;
    // Every primary key, unique index and exclusion constraint, the
    // primary key first, then in index creation order.
    std::vector<KeyConstraintFact> constraints;
    // The online copy's row key: the primary key, else the first valid,
    // non-partial unique index over NOT NULL plain columns; empty = none.
    std::vector<std::string> row_key;
    std::vector<std::string> identity_columns;
    std::vector<std::string> no_inherit_checks;  // CHECK ... NO INHERIT
    // {column, type as format_type prints it} of every column in a primary
    // key, unique index or foreign key: what Citus co-location compares.
    std::vector<std::vector<std::string>> column_types;
  };
  struct ForeignKey {
    ForeignKeyFact fact;  // its name and the table at its other end
    // "name (cols) -> table (cols)", columns and table as quote_ident
    // prints them: how workload.toml records it.
    std::string described;
  };
  struct Dependents {
    // Its own, to itself included; not those a partition has from its
    // parent (conparentid), which ATTACH takes over.
    std::vector<ForeignKey> fks_out;
    std::vector<std::string> fks_in;  // "table.constraint", quoted
    std::vector<ForeignKeyFact> fks_in_from_partitioned;
    std::vector<std::string> views;         // quoted-qualified
    std::vector<TriggerFact> triggers;      // user triggers, by name
    std::vector<std::string> publications;  // FOR TABLE and FOR ALL TABLES
  };
  struct Storage {
    Persistence persistence = Persistence::kPermanent;
    ReplicaIdentity replica_identity = ReplicaIdentity::kDefault;
    bool partitioned = false;  // a partitioned table or a partition
    // A partitioned table's key as pg_get_partkeydef prints it
    // ("HASH (id)"); empty for any other relation.
    std::string partition_key;
  };
  struct Security {
    bool row_security = false;
  };
  Keys keys;
  Dependents dependents;
  Storage storage;
  Security security;
};

// The facts of the table with |oid|. An oid that names no relation gives
// empty groups.
Status ReadTableRuleFacts(SqlSession* session, uint32_t oid,
                          TableRuleFacts* facts);

// What the shared rule judges, from |facts| on |server_version_num|.
HashRuleFacts RuleFactsOf(const TableRuleFacts& facts, int server_version_num);

}  // namespace pglayout

#endif  // PGLAYOUT_PG_TABLE_FACTS_READ_H_
