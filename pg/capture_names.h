// The names pglayout gives what a logical capture makes on the server: the
// replication slot of a table's move and the publication of that table
// alone (docs/online-migration.md#logical-capture). One spelling, here: the
// migrator makes and drops them, the table facts reader leaves the
// publication out of a table's own, and cleanup recognises exactly these
// names (never another's slot or publication of a similar name).

#ifndef PGLAYOUT_PG_CAPTURE_NAMES_H_
#define PGLAYOUT_PG_CAPTURE_NAMES_H_

#include <cstdint>
#include <string>

namespace pglayout {

// "pglayout_<database_oid>_<oid>": slots are the cluster's, so the
// database keeps two databases' runs apart.
std::string CaptureSlotName(uint32_t database_oid, uint32_t oid);

// "pglayout_capture_<oid>".
std::string CapturePublicationName(uint32_t oid);

// Whether |name| is exactly CaptureSlotName(database_oid, oid) for some
// oid, which goes to *oid (if not null).
bool ParseCaptureSlotName(const std::string& name, uint32_t database_oid,
                          uint32_t* oid);

// Whether |name| is exactly CapturePublicationName(oid) for some oid,
// which goes to *oid (if not null).
bool ParseCapturePublicationName(const std::string& name, uint32_t* oid);

}  // namespace pglayout

#endif  // PGLAYOUT_PG_CAPTURE_NAMES_H_
