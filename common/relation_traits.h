// Two traits of a table with one encoding each, shared by the model
// (common/model.h), the catalog reader (pg/table_facts_read.h) and the
// migrator's facts (migrator/facts.h): its persistence and its replica
// identity, with the names workload.toml spells them by.

#ifndef PGLAYOUT_COMMON_RELATION_TRAITS_H_
#define PGLAYOUT_COMMON_RELATION_TRAITS_H_

#include <string>

namespace pglayout {

// How a table's changes reach the WAL (pg_class.relpersistence: p, u, t).
enum class Persistence { kPermanent, kUnlogged, kTemporary };
// What UPDATE and DELETE log of the old row for logical decoding
// (pg_class.relreplident: d, f, i, n).
enum class ReplicaIdentity { kDefault, kFull, kIndex, kNothing };

// "permanent", "unlogged", "temporary"; "default", "full", "index",
// "nothing".
const char* PersistenceName(Persistence persistence);
const char* ReplicaIdentityName(ReplicaIdentity identity);
// From those names; false for any other text.
bool ParsePersistence(const std::string& name, Persistence* persistence);
bool ParseReplicaIdentity(const std::string& name, ReplicaIdentity* identity);
// From the catalog's one-letter codes; an unknown code gives the default
// (permanent; default).
Persistence PersistenceFromCode(char code);
ReplicaIdentity ReplicaIdentityFromCode(char code);

}  // namespace pglayout

#endif  // PGLAYOUT_COMMON_RELATION_TRAITS_H_
