#include "tests/integration/twin_writer.h"

#include <utility>

namespace pglayout {

TwinWriter::TwinWriter(Opener open, std::function<std::string(int)> body,
                       std::chrono::milliseconds pause)
    : open_(std::move(open)), body_(std::move(body)), pause_(pause) {
  thread_ = std::thread([this]() { Loop(); });
}

void TwinWriter::Stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

void TwinWriter::Loop() {
  std::unique_ptr<SqlSession> s;
  for (int i = 0; !stop_; ++i) {
    if (!s && !open_(&s).ok()) {
      s.reset();
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      continue;
    }
    if (ExecuteSql(s.get(), "BEGIN; " + body_(i) + " COMMIT").ok()) {
      ++commits_;
    } else {
      (void)ExecuteSql(s.get(), "ROLLBACK");
      s.reset();
    }
    std::this_thread::sleep_for(pause_);
  }
}

}  // namespace pglayout
