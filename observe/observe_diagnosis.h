// What `pglayout observe` tells people after capturing a workload: the
// checkpoint health (requested checkpoints should be near zero next to
// timed ones: docs/checkpoints.md#timed-and-requested), the WAL rate
// against max_wal_size, and the hottest relations with the tablespace (and
// so the volume) they sit on.
//
// Findings are plain sentences; the table is fixed-width text. Both go to
// stdout, and the findings into --json.

#ifndef PGLAYOUT_OBSERVE_OBSERVE_DIAGNOSIS_H_
#define PGLAYOUT_OBSERVE_OBSERVE_DIAGNOSIS_H_

#include <string>
#include <vector>

#include "common/model.h"
#include "observe/log_parser.h"
#include "observe/observe.h"
#include "observe/oracle_segments.h"

namespace pglayout {

// Share of requested checkpoints among all, 0..1; -1 when there were none.
double RequestedShare(int64_t timed, int64_t requested);

std::vector<std::string> DiagnoseLive(const ObserveResult& result);
std::vector<std::string> DiagnoseLog(const CheckpointLogSummary& report,
                                     const Workload& workload);
std::vector<std::string> DiagnoseSegments(const SegmentImportSummary& report,
                                          const Workload& workload);

// The |limit| hottest relations: name, kind, tablespace (with its location
// when known), size, reads/s and writes/s at the peak and on average.
std::string HotRelationsTable(const Workload& workload, int limit);

// Findings as a bulleted block followed by the table (when the workload has
// relations).
std::string FormatDiagnosis(const std::vector<std::string>& findings,
                            const Workload& workload, int limit);

}  // namespace pglayout

#endif  // PGLAYOUT_OBSERVE_OBSERVE_DIAGNOSIS_H_
