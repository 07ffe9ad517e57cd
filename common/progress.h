// Progress of long work (a probe, a bulk copy), reported by the libraries and
// shown by the CLI. Libraries never write to the terminal themselves.

#ifndef PGLAYOUT_COMMON_PROGRESS_H_
#define PGLAYOUT_COMMON_PROGRESS_H_

#include <string>

namespace pglayout {

struct ProgressUpdate {
  std::string task;      // "probe data1", "copy public.orders"
  std::string step;      // "randread qd=32", "batch 17/120"
  double fraction = -1;  // 0..1 of the task, or -1 when unknown
  double elapsed_s = 0;  // since the task started
  double eta_s = -1;     // estimated seconds left, or -1 when unknown
  std::string detail;    // "48,210 IOPS", "85 MB/s, 120,000 rows/s"
};

class ProgressSink {
 public:
  virtual ~ProgressSink() = default;
  // Called often (many times a second is fine); implementations throttle.
  virtual void Update(const ProgressUpdate& update) = 0;
  // The task ended; |summary| is one line for the log.
  virtual void Finish(const std::string& task, const std::string& summary) = 0;
};

// Discards everything: for tests and --quiet.
class NullProgress : public ProgressSink {
 public:
  void Update(const ProgressUpdate&) override {}
  void Finish(const std::string&, const std::string&) override {}
};

}  // namespace pglayout

#endif  // PGLAYOUT_COMMON_PROGRESS_H_
