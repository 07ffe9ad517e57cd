// The one file that includes libpqxx. Every libpqxx exception is caught here
// and turned into a Status. The catch list ends with std::exception because
// in libpqxx 6.4 several errors are not pqxx::failure: usage_error is a
// std::logic_error, conversion_error a std::domain_error, and range_error
// and unexpected_rows (exec0/exec1 given the wrong number of rows) are
// std::out_of_range.

#include <fmt/format.h>
#include <libpq-fe.h>

#include <cstdlib>
#include <pqxx/pqxx>
#include <string>

#include "pg/conninfo.h"
#include "pg/server_message.h"
#include "pg/sql.h"

namespace pglayout {
namespace {

std::string ServerDescription(pqxx::connection& conn) {
  const char* host = conn.hostname();
  const char* port = conn.port();
  const char* db = conn.dbname();
  const char* user = conn.username();
  return fmt::format("{}:{}/{} as {}", host ? host : "(socket)",
                     port ? port : "", db ? db : "", user ? user : "");
}

// The SQLSTATE of a libpqxx exception. libpqxx 6.4 throws a few errors
// without it (transaction rollbacks such as deadlocks and serialization
// failures, which are not even sql_errors, and 42501), so those are told
// by their type; the most derived types come first.
std::string SqlStateOf(const std::exception& e) {
  if (auto* sql = dynamic_cast<const pqxx::sql_error*>(&e);
      sql != nullptr && !sql->sqlstate().empty()) {
    return sql->sqlstate();
  }
  if (dynamic_cast<const pqxx::deadlock_detected*>(&e)) return "40P01";
  if (dynamic_cast<const pqxx::serialization_failure*>(&e)) return "40001";
  if (dynamic_cast<const pqxx::statement_completion_unknown*>(&e)) {
    return "40003";
  }
  if (dynamic_cast<const pqxx::transaction_rollback*>(&e)) return "40000";
  if (dynamic_cast<const pqxx::insufficient_privilege*>(&e)) return "42501";
  if (dynamic_cast<const pqxx::too_many_connections*>(&e)) return "53300";
  return "";
}

// A server that closes an idle session (pg_terminate_backend, an idle
// timeout, a shutdown, a crash) first sends a FATAL error or a WARNING
// "terminating connection ...", which libpq hands to the notice processor
// as no statement is running: kept here as the reason.
class FatalNotice : public pqxx::errorhandler {
 public:
  explicit FatalNotice(pqxx::connection_base& conn) : errorhandler(conn) {}
  bool operator()(const char msg[]) noexcept override {
    try {
      std::string text(msg);
      if (text.rfind("FATAL:", 0) == 0 || text.rfind("PANIC:", 0) == 0 ||
          text.find("terminating connection") != std::string::npos) {
        last = text;
      }
    } catch (...) {
    }
    return true;
  }
  std::string last;
};

class PqxxSession : public SqlSession {
 public:
  PqxxSession(std::unique_ptr<pqxx::connection> conn, std::string conninfo)
      : conn_(std::move(conn)),
        fatal_(*conn_),
        conninfo_(std::move(conninfo)),
        description_(ServerDescription(*conn_)) {}

  Status Execute(const std::string& sql, const std::vector<SqlValue>& params,
                 SqlResult* result) override {
    last_sqlstate_.clear();
    // libpqxx's own error on a closed connection ("Could not obtain client
    // encoding: not connected") says nothing: repeat why it closed.
    if (!lost_reason_.empty() || !conn_->is_open()) return Lost("");
    try {
      pqxx::nontransaction tx(*conn_);
      pqxx::result r = ExecParams(tx, sql, params);
      Convert(r, result);
      return Status::Ok();
    } catch (const pqxx::broken_connection& e) {
      last_sqlstate_ = SqlStateOf(e);
      return Lost(e.what());
    } catch (const std::exception& e) {
      last_sqlstate_ = SqlStateOf(e);
      // A FATAL error (terminated by an administrator, a timeout) closes
      // the connection: the statement's error is the reason.
      if (!conn_->is_open()) return Lost(e.what());
      std::string message = Clean(e.what());
      if (!last_sqlstate_.empty()) {
        message += fmt::format(" (SQLSTATE {})", last_sqlstate_);
      }
      return Status::SqlError(message);
    }
  }

  std::string last_sqlstate() const override { return last_sqlstate_; }
  int server_version() const override { return conn_->server_version(); }
  std::string Describe() const override { return description_; }

 private:
  static pqxx::result ExecParams(pqxx::transaction_base& tx,
                                 const std::string& sql,
                                 const std::vector<SqlValue>& params) {
    if (params.empty()) return tx.exec(sql);
    // libpqxx 6.4 has no runtime parameter list in its public API; a
    // prepared statement takes a dynamic_params range instead.
    std::vector<const char*> raw;
    raw.reserve(params.size());
    for (const SqlValue& p : params) raw.push_back(p ? p->c_str() : nullptr);
    return tx.exec_params(sql, pqxx::prepare::make_dynamic_params(raw));
  }

  static void Convert(const pqxx::result& r, SqlResult* out) {
    out->columns.clear();
    out->rows.clear();
    out->affected_rows = r.affected_rows();
    for (pqxx::row::size_type c = 0; c < r.columns(); ++c) {
      out->columns.emplace_back(r.column_name(c));
    }
    out->rows.reserve(r.size());
    for (const pqxx::row& row : r) {
      std::vector<SqlValue> values;
      values.reserve(row.size());
      for (const pqxx::field& f : row) {
        if (f.is_null()) {
          values.emplace_back(std::nullopt);
        } else {
          values.emplace_back(std::string(f.c_str(), f.size()));
        }
      }
      out->rows.push_back(std::move(values));
    }
  }

  std::string Clean(const std::string& what) const {
    return PassedOnMessage(what, conninfo_);
  }

  // Unavailable with the first reason the connection was lost for; |what|
  // is the error that noticed it, if this call did.
  Status Lost(const std::string& what) {
    if (lost_reason_.empty()) {
      // The server's own words come first: libpq's or libpqxx's text for
      // the closed socket only says that it is closed.
      const std::string fatal = TrimmedLibpqMessage(fatal_.last);
      std::string why = TrimmedLibpqMessage(what);
      // libpqxx's text when libpq found the socket closed before a
      // statement was sent.
      if (why.find("client encoding") != std::string::npos) {
        why =
            "the server closed the connection unexpectedly (a crash, a "
            "restart or the network)";
      }
      if (!fatal.empty()) {
        bool adds =
            !why.empty() && why.find("client encoding") == std::string::npos &&
            why.find(fatal.substr(fatal.find(':') + 1)) == std::string::npos;
        why = adds ? fatal + "; " + why : fatal;
      }
      lost_reason_ = why.empty() ? "the connection is closed" : Clean(why);
      if (lost_sqlstate_.empty()) lost_sqlstate_ = last_sqlstate_;
    }
    last_sqlstate_ = lost_sqlstate_.empty() ? "08006" : lost_sqlstate_;
    return Status::Unavailable(
        fmt::format("lost connection to {}: {}", description_, lost_reason_));
  }

  std::unique_ptr<pqxx::connection> conn_;
  FatalNotice fatal_;  // after conn_: unregisters before it closes
  std::string conninfo_;
  std::string description_;
  std::string last_sqlstate_;
  std::string lost_reason_;
  std::string lost_sqlstate_;
};

// |conninfo| (keywords or a URI) rewritten as keywords, with the timeouts
// every version has turned off in the startup packet's options: a
// database's or role's statement_timeout of 1ms would otherwise cancel the
// hardening statement itself. Startup options rank above database and role
// settings. The caller's own options (or PGOPTIONS) come first and stay.
Status StartupConninfo(const std::string& conninfo, std::string* out) {
  ConninfoPairs pairs;
  PGLAYOUT_RETURN_IF_ERROR(ParseConninfo(conninfo, &pairs));
  const char* env_options = std::getenv("PGOPTIONS");
  std::string startup = env_options ? env_options : "";
  for (const auto& [keyword, value] : pairs) {
    if (keyword == "options") startup = value;
  }
  SetConninfo(&pairs, "options",
              startup +
                  " -c statement_timeout=0 -c lock_timeout=0"
                  " -c idle_in_transaction_session_timeout=0");
  *out = JoinConninfo(pairs);
  return Status::Ok();
}

Status Open(const std::string& conninfo, const std::string& application_name,
            bool harden, std::unique_ptr<SqlSession>* session) {
  std::string startup_conninfo = conninfo;
  if (harden) {
    Status st = StartupConninfo(conninfo, &startup_conninfo);
    if (!st.ok()) return st;
  }
  try {
    auto conn = std::make_unique<pqxx::connection>(startup_conninfo);
    auto s = std::make_unique<PqxxSession>(std::move(conn), conninfo);
    SqlResult ignored;
    Status st = harden ? s->Execute(SessionHardeningSql(s->server_version()),
                                    {application_name}, &ignored)
                       : s->Execute(
                             "SELECT pg_catalog.set_config('application_name', "
                             "$1, false)",
                             {application_name}, &ignored);
    if (!st.ok()) return st.WithContext("setting up the session");
    *session = std::move(s);
    return Status::Ok();
  } catch (const std::exception& e) {
    return Status::Unavailable("could not connect to PostgreSQL: " +
                               PassedOnMessage(e.what(), conninfo));
  }
}

}  // namespace

Status OpenPgSession(const std::string& conninfo,
                     const std::string& application_name,
                     std::unique_ptr<SqlSession>* session) {
  return Open(conninfo, application_name, /*harden=*/true, session);
}

Status OpenPgSessionAsConfigured(const std::string& conninfo,
                                 const std::string& application_name,
                                 std::unique_ptr<SqlSession>* session) {
  return Open(conninfo, application_name, /*harden=*/false, session);
}

}  // namespace pglayout
