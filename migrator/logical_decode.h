// Reads what the pgoutput plugin (protocol version 1, the only one 12 has)
// says changed in one table: the keys of its inserted, updated and deleted
// rows, in text form. Pure code over the messages' bytes; every length is
// checked, so a hostile name or value can only make the decoding fail, never
// shift it. Why pgoutput and not test_decoding:
// docs/online-migration.md#logical-capture.

#ifndef PGLAYOUT_MIGRATOR_LOGICAL_DECODE_H_
#define PGLAYOUT_MIGRATOR_LOGICAL_DECODE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "pg/replication_stream.h"

namespace pglayout::migrator {

// One changed row's key: the values of the key columns, in their order.
using DecodedKey = std::vector<std::string>;

// Reads one table's changes from a stream of pgoutput messages, in the
// order the walsender sends them: the relation's description comes once
// per connection (and again after the table changes), so it is kept
// across messages. The keys come as the changes give them: an INSERT's
// new key, an UPDATE's new key and its old key when the message carries
// one (a changed key), a DELETE's old key.
class ChangeDecoder {
 public:
  // Relation |oid| whose row key is |key_columns| (names as pg_attribute
  // has them).
  ChangeDecoder(uint32_t oid, std::vector<std::string> key_columns);

  // Appends the keys |message| (one message, raw bytes) changes to *keys;
  // sets *commit_end to the end of the transaction's WAL on a COMMIT.
  // Aborted when the table was truncated or a key cannot be read (NULL, a
  // column missing from the relation, an unchanged TOAST value with no old
  // key); Internal on a malformed message. Other relations' changes are
  // skipped.
  Status Add(const std::string& message, std::vector<DecodedKey>* keys,
             Lsn* commit_end);

 private:
  uint32_t oid_;
  std::vector<std::string> key_columns_;
  std::vector<size_t> positions_;  // of the key columns in the description
  bool described_ = false;
};

}  // namespace pglayout::migrator

#endif  // PGLAYOUT_MIGRATOR_LOGICAL_DECODE_H_
