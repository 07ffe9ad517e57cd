// Reads what the pgoutput plugin (protocol version 1, as
// pg_logical_slot_peek_binary_changes returns it) says changed in one
// table: the keys of its inserted, updated and deleted rows, in text form.
// Pure functions over the messages' bytes; every length is checked, so a
// hostile name or value can only make the decoding fail, never shift it.
// Why pgoutput and not test_decoding: docs/online-migration.md#logical-capture.

#ifndef PGLAYOUT_MIGRATOR_LOGICAL_DECODE_H_
#define PGLAYOUT_MIGRATOR_LOGICAL_DECODE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace pglayout::migrator {

// One changed row's key: the values of the key columns, in their order.
using DecodedKey = std::vector<std::string>;

// The keys that |messages| (one pgoutput message each, raw bytes) change in
// relation |oid| whose row key is |key_columns| (names as pg_attribute has
// them): an INSERT's new key, an UPDATE's new key and its old key when the
// message carries one (a changed key), a DELETE's old key. Aborted when
// the table was truncated or a key cannot be read (NULL, a column missing
// from the relation, an unchanged TOAST value with no old key); Internal
// on a malformed message. Other relations' changes are skipped.
Status DecodeChangedKeys(const std::vector<std::string>& messages, uint32_t oid,
                         const std::vector<std::string>& key_columns,
                         std::vector<DecodedKey>* keys);

// The bytes that |hex| (pairs of hex digits, as encode(..., 'hex') writes)
// spells; false on anything else.
bool HexToBytes(const std::string& hex, std::string* bytes);

}  // namespace pglayout::migrator

#endif  // PGLAYOUT_MIGRATOR_LOGICAL_DECODE_H_
