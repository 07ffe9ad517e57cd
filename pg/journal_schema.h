// The trust check on schema pglayout (docs/security.md#pglayouts-schema):
// pglayout runs as a superuser and reads and writes its journal there, so
// before any statement touches the schema, it must hold only what pglayout
// makes, owned by the running role or a superuser, with no trigger, rule,
// policy, row security or grant that another role could have put there.
// The migrator and the report both call CheckJournalSchema first.

#ifndef PGLAYOUT_PG_JOURNAL_SCHEMA_H_
#define PGLAYOUT_PG_JOURNAL_SCHEMA_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "pg/sql.h"

namespace pglayout {

// The schema and the journal tables pglayout creates in it.
inline constexpr char kJournalSchema[] = "pglayout";
const std::vector<std::string>& JournalTableNames();

// One object in schema pglayout, as the catalogs describe it.
struct JournalSchemaObject {
  // schema, relation, trigger, rule, policy, function, type, statistics,
  // or another kind of object (operator, collation...).
  std::string category;
  std::string name;    // relname, proname, tgname...
  std::string detail;  // relkind of a relation, prokind of a function
  uint32_t oid = 0;
  uint32_t parent = 0;         // the relation an index, sequence, trigger,
                               // rule, policy or statistics object belongs to
  std::string owner;           // role name ("" when the object has none)
  bool trusted_owner = false;  // the running role or a superuser
  bool granted = false;        // an ACL entry for a role besides the owner
  bool row_security = false;   // ENABLE or FORCE ROW LEVEL SECURITY
  std::string description;     // pg_describe_object: "table pglayout.run"
};

// Ok when schema pglayout does not exist or holds only what pglayout makes
// and can trust; otherwise InvalidInput naming the schema's owner and each
// foreign object. Reads the catalogs only: changes nothing, runs no code
// of another role.
Status CheckJournalSchema(SqlSession* session);

// Revokes EXECUTE from PUBLIC on each function pglayout makes in schema
// pglayout (pglayout.capture_<oid>(), pglayout.block_truncate_<oid>()) that
// PUBLIC can still execute: runs an older pglayout started made them with
// the default grant. Idempotent; *revoked (may be null) gets the functions
// changed. Call only once CheckJournalSchema accepted the schema.
Status RevokeOwnFunctionsFromPublic(SqlSession* session,
                                    std::vector<std::string>* revoked);

// The judgment of CheckJournalSchema over the objects it read, for
// |running_role|. The old copies a swap moved into the schema
// (old_<oid>, the application's own table with its indexes, sequences,
// triggers and grants) are the application's and are tolerated.
Status JudgeJournalSchema(const std::vector<JournalSchemaObject>& objects,
                          const std::string& running_role);

}  // namespace pglayout

#endif  // PGLAYOUT_PG_JOURNAL_SCHEMA_H_
