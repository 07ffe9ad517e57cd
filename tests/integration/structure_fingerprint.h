// A catalog fingerprint of a table and of what hangs on it, for the tests
// that a move or a hash conversion keeps a table what it was.
//
//   std::vector<std::string> before;
//   PGLAYOUT_ASSERT_OK(TableFingerprint(session, "public.t", &before));
//   ... migrate ...
//   EXPECT_EQ(FingerprintDiff(before, after), "");
//
// One line per fact, sorted, each starting with what it is about ("column",
// "index", "acl", ...). Covered: the table (persistence, owner, row type,
// replica identity, row security, storage parameters of it and its TOAST,
// comment, ACL with grantors), its columns (position among the live ones,
// type, NOT NULL, default, identity with its sequence's parameters and
// value, generated, statistics target, storage, compression, options,
// collation, comment, ACL with grantors), its constraints with validity,
// deferrability and comments, other tables' foreign keys to it, its indexes
// (definition, storage parameters, CLUSTER mark, replica identity, validity,
// column statistics targets, comment), its extended statistics (definition,
// target, owner, comment), triggers with their states and comments,
// policies with roles, expressions and comments, rules, publications, every
// object of another table or of the database that depends on it (with its
// definition where it has one: views, policies, defaults, rules) and what it
// depends on, and its rows (count and a hash of their text).
//
// For a partition, also its parent and bounds, and what it has from the
// parent: columns and constraints marked inherited, indexes attached to the
// parent's, the clones of the parent's row triggers.
//
// Left out, as what a move or a conversion changes by design: the
// tablespace, the relation kind and partition key, the partitions. For a
// partitioned table the storage parameters are its partitions' (which must
// all agree), and the CLUSTER and replica identity marks are read from the
// partitions' indexes, which carry them (a partitioned table has neither).

#ifndef PGLAYOUT_TESTS_INTEGRATION_STRUCTURE_FINGERPRINT_H_
#define PGLAYOUT_TESTS_INTEGRATION_STRUCTURE_FINGERPRINT_H_

#include <string>
#include <vector>

#include "common/sql.h"
#include "common/status.h"

namespace pglayout {

// The fingerprint of |table| (as a regclass is typed: "public.t") into
// *lines, sorted.
[[nodiscard]] Status TableFingerprint(SqlSession* session,
                                      const std::string& table,
                                      std::vector<std::string>* lines);

// "" when equal; otherwise the lines lost ("- ...") and gained ("+ ...").
std::string FingerprintDiff(const std::vector<std::string>& before,
                            const std::vector<std::string>& after);

}  // namespace pglayout

#endif  // PGLAYOUT_TESTS_INTEGRATION_STRUCTURE_FINGERPRINT_H_
