// What every phase of one online copy shares (online.cc drives them): the
// executor, the step and its journal position, the table's facts and the
// names of what the run creates. Phases take it by reference and keep their
// own state; docs/online-migration.md#how-an-online-copy-runs.

#ifndef PGLAYOUT_MIGRATOR_ONLINE_CONTEXT_H_
#define PGLAYOUT_MIGRATOR_ONLINE_CONTEXT_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "common/text.h"
#include "migrator/capture_reader.h"
#include "migrator/executor.h"
#include "migrator/facts.h"
#include "migrator/online_sql.h"
#include "migrator/steps.h"

namespace pglayout::migrator {

// The shadow as the first CheckShadow of a run found it.
struct ShadowSeen {
  std::string oid;    // "" = not checked yet in this run
  std::string shape;  // a hash of its CHECK constraints and defaults
};

struct OnlineContext {
  Executor* ex;
  const Step& step;
  int step_no;        // orders the journal rows
  uint32_t oid;       // the source table's, when the step started
  TableFacts table;   // as read at the start of this run
  OnlineNames names;  // unset once the table is swapped (phase "swapped")
  // Kept across the phases of this run by CheckShadow (which takes the
  // context by const reference, as every phase does).
  mutable ShadowSeen shadow_seen;
  // The replication slot that captures the table's changes
  // (online_logical.h); "" = the capture trigger.
  std::string capture_slot;
  // Its stream, open across the phases of this run (logical() only).
  std::shared_ptr<CaptureReader> capture_reader;
  bool logical() const { return !capture_slot.empty(); }

  const std::string& key() const { return step.key; }
  // The relation's name for messages: one line, control characters
  // escaped (DisplayName); never for SQL.
  std::string relation() const { return DisplayName(step.placement->relation); }
  bool Adaptive() const {
    return ex->options().throttle == ThrottleMode::kAdaptive;
  }
  double Now() const { return ex->clock()->Now(); }
  double Since(double start) const { return Now() - start; }
  void Sleep(double seconds) const { ex->clock()->Sleep(seconds); }
};

// A transaction of bulk work (copy batch, index build, replay round) that
// does not wait for its commit to be flushed; |name| as for
// Executor::Transaction.
Status BulkTransaction(Executor* ex, const std::string& name,
                       const std::function<Status()>& body);

// How CheckShadow locks the shadow before it looks: a lock that holds off
// DROP TABLE and CREATE TRIGGER until the caller's transaction ends.
enum class ShadowLock {
  kHeld,              // the caller holds ACCESS EXCLUSIVE already (the swap)
  kAccessShare,       // a read-only transaction (the verification)
  kShareRowExclusive  // a copy batch, a replay round, an index build
};

// Inside the caller's transaction, before it writes to or reads the
// shadow: the shadow (and each partition) is still the relation this run
// first checked (same oid), a table owned by a superuser (so that no other
// role could have hung code on it), with the partitions the target has,
// no trigger but internal ones, no rule, no policy, no row security, and
// the CHECK constraints and defaults it had. Otherwise Aborted, naming
// what is wrong; nothing has been swapped and a later run resumes from the
// journal, checking again (docs/security.md#code-of-other-roles).
Status CheckShadow(const OnlineContext& c, ShadowLock lock);

// Whether index |name| exists in the table's schema.
Status ShadowIndexExists(const OnlineContext& c, const std::string& name,
                         bool* exists);

// The source's rows: reltuples, or a guess from its heap's 8 KiB blocks.
double EstimatedRows(const TableFacts& t);

// About how many of the source's |blocks| heap blocks hold |rows| rows (at
// least 1).
int64_t BlocksHolding(const TableFacts& t, int64_t rows, int64_t blocks);

}  // namespace pglayout::migrator

#endif  // PGLAYOUT_MIGRATOR_ONLINE_CONTEXT_H_
