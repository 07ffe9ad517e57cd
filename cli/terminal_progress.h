// The progress display on stderr: on a terminal, one line rewritten in place
// at most 10 times a second; otherwise (logs, CI) a plain line at most every
// 5 seconds, so captured output stays readable.

#ifndef PGLAYOUT_CLI_TERMINAL_PROGRESS_H_
#define PGLAYOUT_CLI_TERMINAL_PROGRESS_H_

#include <chrono>
#include <string>

#include "common/progress.h"

namespace pglayout::cli {

class TerminalProgress : public ProgressSink {
 public:
  // |interactive|: stderr is a terminal.
  explicit TerminalProgress(bool interactive);
  ~TerminalProgress() override;

  void Update(const ProgressUpdate& update) override;
  void Finish(const std::string& task, const std::string& summary) override;

 private:
  void ClearLine();

  bool interactive_;
  bool line_shown_ = false;
  std::chrono::steady_clock::time_point last_print_{};
};

// "[#####-----] 52% probe data1: randread qd=32, 48,210 IOPS, 12s, ETA 11s",
// one line: control and bidirectional characters in it (a table's name)
// escaped as \u001B, bytes that are not UTF-8 as \xE9 (common/text.h).
std::string FormatProgressLine(const ProgressUpdate& update);

}  // namespace pglayout::cli

#endif  // PGLAYOUT_CLI_TERMINAL_PROGRESS_H_
