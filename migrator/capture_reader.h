// The keys one online copy's replication slot decodes, read from a
// replication stream that stays open across the copy's pumps, so that the
// server decodes each WAL record once. Keys are kept pending until the
// caller has committed them to the log; only then is the slot told it may
// move past them, so a kill in between gives them again, never loses them.
// Why: docs/online-migration.md#logical-capture.

#ifndef PGLAYOUT_MIGRATOR_CAPTURE_READER_H_
#define PGLAYOUT_MIGRATOR_CAPTURE_READER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "common/status.h"
#include "migrator/logical_decode.h"
#include "pg/replication_stream.h"

namespace pglayout::migrator {

class CaptureReader {
 public:
  // Opens the stream at the slot's confirmed position.
  using Opener = std::function<Status(std::unique_ptr<ReplicationStream>*)>;

  CaptureReader(uint32_t oid, std::vector<std::string> key_columns,
                Opener open);

  // Receives until every transaction that committed up to |upto| has been
  // read; their keys of the table join pending(). A stream the server cut
  // (wal_sender_timeout while the run did other work, a restart) is opened
  // again once: it restarts at the confirmed position, which pending()
  // already covers.
  Status ReadUpTo(Lsn upto);

  // Keys read and not yet confirmed as in the log.
  const std::set<DecodedKey>& pending() const { return pending_; }

  // The caller has committed pending() to the log: the slot may move up to
  // where ReadUpTo last reached, and pending() empties. A stream lost
  // meanwhile leaves the slot behind, which only repeats keys.
  Status Confirm();

  // Ends the stream (the slot can then be dropped); the next ReadUpTo
  // opens it again.
  void Close() { stream_.reset(); }

 private:
  Status Open();
  // One message: its keys into pending(); *reached once it proves every
  // commit up to |upto| read.
  Status Take(const StreamMessage& message, Lsn upto, bool* reached);

  uint32_t oid_;
  std::vector<std::string> key_columns_;
  Opener open_;
  std::unique_ptr<ReplicationStream> stream_;
  std::unique_ptr<ChangeDecoder> decoder_;  // one per stream: it re-describes
  std::set<DecodedKey> pending_;
  Lsn read_ = 0;       // every commit up to here is read
  Lsn confirmed_ = 0;  // what the slot was last told
};

}  // namespace pglayout::migrator

#endif  // PGLAYOUT_MIGRATOR_CAPTURE_READER_H_
