// The online copy's verification: the source and the shadow compared by
// row count and a sum of row hashes, before the swap in one snapshot and,
// under the swap's lock, for the keys replayed there. The hash form
// (per-column hash functions, or text forms when a type's fails) is chosen
// once per run of the step and kept across the phases.
// Why: docs/online-migration.md#how-an-online-copy-runs.

#ifndef PGLAYOUT_MIGRATOR_ONLINE_VERIFY_H_
#define PGLAYOUT_MIGRATOR_ONLINE_VERIFY_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "migrator/online_context.h"

namespace pglayout::migrator {

class OnlineVerifier {
 public:
  explicit OnlineVerifier(const OnlineContext& c) : c_(c) {}

  // Chooses the hash form if not yet chosen; outside any transaction.
  Status EnsureHashForm();

  // Compares both sides in one REPEATABLE READ snapshot, leaving out the
  // keys still in the log; records the sums in the journal. Internal,
  // naming up to 5 differing keys, when they differ.
  Status Verify();

  // Compares the rows of |keys| (the replay's key arrays) on both sides,
  // inside the swap's transaction; adds the source's rows to *rows.
  // Internal when they differ; RetryLater (and the text form from then on)
  // when a hash function fails.
  Status VerifyKeys(const std::vector<SqlValue>& keys, int64_t* rows);

 private:
  const OnlineContext& c_;
  std::optional<bool> text_form_;  // hash text forms? (EnsureHashForm)
};

}  // namespace pglayout::migrator

#endif  // PGLAYOUT_MIGRATOR_ONLINE_VERIFY_H_
