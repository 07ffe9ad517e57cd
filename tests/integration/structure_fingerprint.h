// A catalog fingerprint of a table and of what hangs on it, for the tests
// that a move or a hash conversion keeps a table what it was.
//
//   std::vector<std::string> before;
//   PGLAYOUT_ASSERT_OK(TableFingerprint(session, "public.t", &before));
//   ... migrate ...
//   EXPECT_EQ(FingerprintDiff(before, after), "");
//
// One line per fact, sorted, each starting with what it is about ("column",
// "index", "acl", ...). What it covers and leaves out:
// docs/online-migration.md#the-structure-fingerprint.

#ifndef PGLAYOUT_TESTS_INTEGRATION_STRUCTURE_FINGERPRINT_H_
#define PGLAYOUT_TESTS_INTEGRATION_STRUCTURE_FINGERPRINT_H_

#include <string>
#include <vector>

#include "common/status.h"
#include "pg/sql.h"

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
