// The online copy's first phases: the shadow, its log and capture trigger
// made in one transaction (PrepareShadow), then the rows copied in batches,
// each committed with its journal row (CopyRows): heap block ranges in disk
// order, or key ranges in key order. Nothing is replayed meanwhile.
// Why: docs/online-migration.md#how-an-online-copy-runs.

#ifndef PGLAYOUT_MIGRATOR_ONLINE_COPY_H_
#define PGLAYOUT_MIGRATOR_ONLINE_COPY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "migrator/online_context.h"
#include "migrator/online_pace.h"

namespace pglayout::migrator {

// Where the copy stands: from the journal's step row and detail when a run
// starts or resumes, advanced by each batch.
struct CopyState {
  bool by_blocks = false;       // the copy reads heap block ranges
  std::string source_filenode;  // when the shadow was made; "" = unknown
  std::string copy_xmin;        // CopyTidRangeSql's $3; "" = look every row up
  std::vector<std::string> cursor;  // where the next batch starts
  int64_t batches = 0;
  int64_t rows_copied = 0;
  int64_t bytes_copied = 0;
};

// Creates the shadow, the log and the capture trigger, records the phase
// "copy" and the step's detail; sets state->source_filenode and (copying
// by blocks) state->copy_xmin.
Status PrepareShadow(const OnlineContext& c, CopyState* state);

// Copies from state->cursor to the end of the table, |pace|'s pauses
// between batches, and records the phase "indexes" with the last batch.
// Aborted when the table is rewritten during a block-range copy.
Status CopyRows(const OnlineContext& c, OnlinePace* pace, CopyState* state);

}  // namespace pglayout::migrator

#endif  // PGLAYOUT_MIGRATOR_ONLINE_COPY_H_
