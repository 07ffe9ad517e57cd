// The seam for a logical replication stream: a walsender connection
// (replication=database) in START_REPLICATION's copy mode, whose server
// decodes the slot's WAL once, as it is written, and sends what the output
// plugin makes of it. The one real implementation (replication_stream.cc)
// speaks libpq; tests of the readers above it use a fake. Why a stream
// rather than repeated reads of the slot:
// docs/online-migration.md#logical-capture.

#ifndef PGLAYOUT_PG_REPLICATION_STREAM_H_
#define PGLAYOUT_PG_REPLICATION_STREAM_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"

namespace pglayout {

// A WAL position, as pg_lsn's text "16/B374D848" spells it.
using Lsn = uint64_t;

// "16/B374D848" as a position; false on anything else.
bool ParseLsn(const std::string& text, Lsn* lsn);

struct StreamMessage {
  enum class Kind { kData, kKeepalive };
  Kind kind = Kind::kKeepalive;
  // kData: where the message's WAL record starts ('w' message's start);
  // kKeepalive: how far the server has read and sent (its sent position).
  Lsn position = 0;
  bool reply_requested = false;  // kKeepalive: answer now or be cut off
  std::string data;              // kData: one output plugin message
};

class ReplicationStream {
 public:
  virtual ~ReplicationStream() = default;
  // The next message, waiting at most |timeout_ms|; *got is false when none
  // came. Unavailable once the connection is lost, with the server's reason.
  virtual Status Receive(int timeout_ms, StreamMessage* message, bool* got) = 0;
  // A standby status update: every change up to |flushed| is safe on our
  // side, so the server may advance the slot's confirmed position to it;
  // |reply_requested| asks for a keepalive at once.
  virtual Status Confirm(Lsn flushed, bool reply_requested) = 0;
};

// Opens a walsender connection to |conninfo| (libpq keywords or a URI;
// passwords never reach a message) tagged |application_name|, and starts
// streaming logical slot |slot| from its confirmed position with the
// plugin options |options| (name, value: each value sent as a string
// literal).
Status StartLogicalStream(
    const std::string& conninfo, const std::string& application_name,
    const std::string& slot,
    const std::vector<std::pair<std::string, std::string>>& options,
    std::unique_ptr<ReplicationStream>* stream);

}  // namespace pglayout

#endif  // PGLAYOUT_PG_REPLICATION_STREAM_H_
