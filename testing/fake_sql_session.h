// The one scripted SqlSession of the unit tests: records every statement
// and answers from rules matched by substring, so that the executor's
// transaction and retry logic, the readers of result rows and the
// version-specific SQL of each stage are tested without a server.

#ifndef PGLAYOUT_TESTING_FAKE_SQL_SESSION_H_
#define PGLAYOUT_TESTING_FAKE_SQL_SESSION_H_

#include <string>
#include <utility>
#include <vector>

#include "pg/sql.h"

namespace pglayout {

class FakeSqlSession : public SqlSession {
 public:
  struct Rule {
    std::string contains;  // matches statements containing this text
    SqlResult result;
    std::string sqlstate;  // non-empty: fail with this SQLSTATE
    int times = -1;        // how often it applies; -1 = always
  };

  explicit FakeSqlSession(int server_version = 150000)
      : version(server_version) {}

  // Of the rules whose text a statement contains and that are not used up
  // (times != 0), the longest text wins, so that a rule for one query
  // overrides a rule for a fragment many queries share; of rules with
  // texts of the same length, the first added. Unmatched statements
  // succeed with an empty result.
  void On(Rule rule) { rules_.push_back(std::move(rule)); }
  void Fail(const std::string& contains, const std::string& sqlstate,
            int times = -1) {
    On({contains, {}, sqlstate, times});
  }
  // Statements containing |contains| return |rows| (no column names),
  // always; replaces an earlier Answer of the same text.
  void Answer(const std::string& contains,
              std::vector<std::vector<SqlValue>> rows) {
    for (Rule& r : rules_) {
      if (r.contains == contains && r.sqlstate.empty() && r.times < 0) {
        r.result.rows = std::move(rows);
        return;
      }
    }
    On({contains, {{}, std::move(rows)}, "", -1});
  }

  Status Execute(const std::string& sql, const std::vector<SqlValue>& params,
                 SqlResult* result) override {
    statements.push_back(sql);
    last_params = params;
    last_sqlstate_.clear();
    Rule* best = nullptr;
    for (Rule& r : rules_) {
      if (r.times == 0 || sql.find(r.contains) == std::string::npos) continue;
      if (best == nullptr || r.contains.size() > best->contains.size()) {
        best = &r;
      }
    }
    *result = SqlResult();
    if (best == nullptr) return Status::Ok();
    if (best->times > 0) --best->times;
    if (!best->sqlstate.empty()) {
      last_sqlstate_ = best->sqlstate;
      return Status::SqlError("fake error (SQLSTATE " + best->sqlstate + ")");
    }
    *result = best->result;
    return Status::Ok();
  }
  std::string last_sqlstate() const override { return last_sqlstate_; }
  int server_version() const override { return version; }
  std::string Describe() const override { return description; }

  // How many statements contained |contains|, and whether one did.
  int Count(const std::string& contains) const {
    int n = 0;
    for (const std::string& s : statements) {
      if (s.find(contains) != std::string::npos) ++n;
    }
    return n;
  }
  bool Ran(const std::string& contains) const { return Count(contains) > 0; }

  std::vector<std::string> statements;
  std::vector<SqlValue> last_params;
  int version;
  std::string description = "fake";

 private:
  std::vector<Rule> rules_;
  std::string last_sqlstate_;
};

}  // namespace pglayout

#endif  // PGLAYOUT_TESTING_FAKE_SQL_SESSION_H_
