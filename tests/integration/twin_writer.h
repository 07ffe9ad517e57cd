// A writer that keeps a table and its twin equal while a migration runs
// beside it: transaction i is BEGIN; |body|(i); COMMIT, one every |pause|,
// in a thread of its own. A failed transaction is rolled back and the
// session opened again (a fault under test may have ended it).

#ifndef PGLAYOUT_TESTS_INTEGRATION_TWIN_WRITER_H_
#define PGLAYOUT_TESTS_INTEGRATION_TWIN_WRITER_H_

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "common/status.h"
#include "pg/sql.h"

namespace pglayout {

class TwinWriter {
 public:
  using Opener = std::function<Status(std::unique_ptr<SqlSession>*)>;
  TwinWriter(Opener open, std::function<std::string(int)> body,
             std::chrono::milliseconds pause);
  ~TwinWriter() { Stop(); }
  TwinWriter(const TwinWriter&) = delete;
  TwinWriter& operator=(const TwinWriter&) = delete;

  void Stop();
  int commits() const { return commits_; }

 private:
  void Loop();

  Opener open_;
  std::function<std::string(int)> body_;
  std::chrono::milliseconds pause_;
  std::atomic<bool> stop_{false};
  std::atomic<int> commits_{0};
  std::thread thread_;
};

}  // namespace pglayout

#endif  // PGLAYOUT_TESTS_INTEGRATION_TWIN_WRITER_H_
