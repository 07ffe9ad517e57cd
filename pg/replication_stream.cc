// The libpq implementation of ReplicationStream: the streaming replication
// protocol's copy-both messages ('w' data, 'k' keepalive from the server,
// 'r' status update from us), every integer big-endian.

#include "pg/replication_stream.h"

#include <fmt/format.h>
#include <libpq-fe.h>
#include <poll.h>

#include <chrono>
#include <thread>

#include "common/quote.h"
#include "pg/conninfo.h"
#include "pg/server_message.h"

namespace pglayout {
namespace {

// Microseconds from the Unix epoch to PostgreSQL's, 2000-01-01.
constexpr int64_t kPostgresEpochUs = 946684800LL * 1000000;

uint64_t ReadUint64(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

void AppendUint64(uint64_t v, std::string* out) {
  for (int i = 7; i >= 0; --i) out->push_back(static_cast<char>(v >> (8 * i)));
}

int64_t NowSincePostgresEpochUs() {
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                std::chrono::system_clock::now().time_since_epoch())
                .count();
  return static_cast<int64_t>(us) - kPostgresEpochUs;
}

// libpq's or the server's text (NULL: none) fit for a message.
std::string PassedOn(const char* what, const std::string& conninfo) {
  return PassedOnMessage(what ? what : "", conninfo);
}

// 'it''s' as the replication command grammar reads a string: quotes
// doubled, a backslash an ordinary character (no E'' form there).
std::string ReplicationLiteral(const std::string& value) {
  std::string out = "'";
  for (char ch : value) {
    if (ch == '\'') out.push_back('\'');
    out.push_back(ch);
  }
  return out + "'";
}

class LibpqStream : public ReplicationStream {
 public:
  LibpqStream(PGconn* conn, std::string conninfo)
      : conn_(conn), conninfo_(std::move(conninfo)) {}
  ~LibpqStream() override { PQfinish(conn_); }

  Status Receive(int timeout_ms, StreamMessage* message, bool* got) override {
    *got = false;
    char* buffer = nullptr;
    int n = PQgetCopyData(conn_, &buffer, /*async=*/1);
    if (n == 0) {
      pollfd fd = {PQsocket(conn_), POLLIN, 0};
      if (poll(&fd, 1, timeout_ms) < 0) {
        return Status::Unavailable("the replication stream: poll failed");
      }
      if (PQconsumeInput(conn_) == 0) return Lost();
      n = PQgetCopyData(conn_, &buffer, 1);
      if (n == 0) return Status::Ok();
    }
    if (n < 0) return Lost();
    std::string bytes(buffer, static_cast<size_t>(n));
    PQfreemem(buffer);
    return Parse(bytes, message, got);
  }

  Status Confirm(Lsn flushed, bool reply_requested) override {
    std::string update = "r";
    AppendUint64(flushed, &update);  // written
    AppendUint64(flushed, &update);  // flushed
    AppendUint64(flushed, &update);  // applied
    AppendUint64(static_cast<uint64_t>(NowSincePostgresEpochUs()), &update);
    update.push_back(reply_requested ? 1 : 0);
    if (PQputCopyData(conn_, update.data(), static_cast<int>(update.size())) !=
            1 ||
        PQflush(conn_) != 0) {
      return Lost();
    }
    return Status::Ok();
  }

 private:
  Status Parse(const std::string& bytes, StreamMessage* message, bool* got) {
    if (!bytes.empty() && bytes[0] == 'w' && bytes.size() >= 25) {
      message->kind = StreamMessage::Kind::kData;
      message->position = ReadUint64(bytes.data() + 1);
      message->reply_requested = false;
      message->data = bytes.substr(25);
    } else if (!bytes.empty() && bytes[0] == 'k' && bytes.size() >= 18) {
      message->kind = StreamMessage::Kind::kKeepalive;
      message->position = ReadUint64(bytes.data() + 1);
      message->reply_requested = bytes[17] != 0;
      message->data.clear();
    } else {
      return Status::Internal(fmt::format(
          "the replication stream sent an unknown message ({} bytes, type "
          "{})",
          bytes.size(), bytes.empty() ? 0 : static_cast<int>(bytes[0])));
    }
    *got = true;
    return Status::Ok();
  }

  // The stream ended: the server's reason when it sent one.
  Status Lost() {
    std::string why = PassedOn(PQerrorMessage(conn_), conninfo_);
    while (PGresult* r = PQgetResult(conn_)) {
      if (PQresultStatus(r) == PGRES_FATAL_ERROR) {
        why = PassedOn(PQresultErrorMessage(r), conninfo_);
      }
      PQclear(r);
    }
    return Status::Unavailable(
        "the replication stream ended: " +
        (why.empty() ? std::string("no reason given") : why));
  }

  PGconn* conn_;
  std::string conninfo_;
};

}  // namespace

bool ParseLsn(const std::string& text, Lsn* lsn) {
  const size_t slash = text.find('/');
  if (slash == std::string::npos) return false;
  uint64_t halves[2] = {0, 0};
  const std::string parts[2] = {text.substr(0, slash), text.substr(slash + 1)};
  for (int i = 0; i < 2; ++i) {
    if (parts[i].empty() || parts[i].size() > 8) return false;
    for (char ch : parts[i]) {
      int digit = ch >= '0' && ch <= '9'   ? ch - '0'
                  : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                  : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                                           : -1;
      if (digit < 0) return false;
      halves[i] = halves[i] * 16 + static_cast<uint64_t>(digit);
    }
  }
  *lsn = (halves[0] << 32) | halves[1];
  return true;
}

Status StartLogicalStream(
    const std::string& conninfo, const std::string& application_name,
    const std::string& slot,
    const std::vector<std::pair<std::string, std::string>>& options,
    std::unique_ptr<ReplicationStream>* stream) {
  ConninfoPairs pairs;
  PGLAYOUT_RETURN_IF_ERROR(ParseConninfo(conninfo, &pairs));
  SetConninfo(&pairs, "replication", "database");
  SetConninfo(&pairs, "application_name", application_name);
  PGconn* conn = PQconnectdb(JoinConninfo(pairs).c_str());
  if (conn == nullptr) {
    return Status::Unavailable("could not open a replication connection");
  }
  auto made = std::make_unique<LibpqStream>(conn, conninfo);
  if (PQstatus(conn) != CONNECTION_OK) {
    return Status::Unavailable(
        "could not open a replication connection to PostgreSQL: " +
        PassedOn(PQerrorMessage(conn), conninfo));
  }
  std::string command =
      fmt::format("START_REPLICATION SLOT {} LOGICAL 0/0", QuoteIdent(slot));
  for (size_t i = 0; i < options.size(); ++i) {
    command += fmt::format("{}{} {}", i == 0 ? " (" : ", ",
                           QuoteIdent(options[i].first),
                           ReplicationLiteral(options[i].second));
  }
  if (!options.empty()) command += ")";
  // A slot still held by the walsender of a client that was just killed
  // (55006, object in use) is free once that walsender sees its client
  // gone: a moment, so wait up to 5 s for it.
  bool streaming = false;
  std::string why;
  for (int attempt = 0; attempt < 25 && !streaming; ++attempt) {
    if (attempt > 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    PGresult* r = PQexec(conn, command.c_str());
    streaming = PQresultStatus(r) == PGRES_COPY_BOTH;
    const char* state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
    const bool in_use = state != nullptr && std::string(state) == "55006";
    why = streaming ? "" : PassedOn(PQresultErrorMessage(r), conninfo);
    PQclear(r);
    if (!in_use) break;
  }
  if (!streaming) {
    return Status::Unavailable(fmt::format(
        "could not start streaming replication slot {}: {}", slot, why));
  }
  *stream = std::move(made);
  return Status::Ok();
}

}  // namespace pglayout
