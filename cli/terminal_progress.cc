#include "cli/terminal_progress.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cmath>
#include <cstdio>

#include "common/text.h"

namespace pglayout::cli {
namespace {

std::string Seconds(double s) {
  if (s >= 3600)
    return fmt::format("{}h{:02}m", int(s) / 3600, int(s) % 3600 / 60);
  if (s >= 60) return fmt::format("{}m{:02}s", int(s) / 60, int(s) % 60);
  return fmt::format("{:.0f}s", s);
}

}  // namespace

std::string FormatProgressLine(const ProgressUpdate& u) {
  std::string line;
  if (u.fraction >= 0) {
    constexpr int kWidth = 20;
    double f = std::min(1.0, u.fraction);
    int filled = static_cast<int>(std::lround(f * kWidth));
    line = fmt::format("[{}{}] {:3.0f}% ", std::string(filled, '#'),
                       std::string(kWidth - filled, '-'), f * 100);
  }
  line += u.task;
  if (!u.step.empty()) line += ": " + u.step;
  if (!u.detail.empty()) line += ", " + u.detail;
  line += ", " + Seconds(u.elapsed_s);
  if (u.eta_s >= 0) line += ", ETA " + Seconds(u.eta_s);
  // Names (a table's, a file's) come from the database or the user: one
  // line, nothing that moves the cursor or reorders the text.
  return DisplayName(line);
}

TerminalProgress::TerminalProgress(bool interactive)
    : interactive_(interactive) {}

TerminalProgress::~TerminalProgress() { ClearLine(); }

void TerminalProgress::ClearLine() {
  if (interactive_ && line_shown_) {
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
    line_shown_ = false;
  }
}

void TerminalProgress::Update(const ProgressUpdate& update) {
  auto now = std::chrono::steady_clock::now();
  auto min_gap = interactive_ ? std::chrono::milliseconds(100)
                              : std::chrono::milliseconds(5000);
  if (now - last_print_ < min_gap) return;
  last_print_ = now;
  std::string line = FormatProgressLine(update);
  if (interactive_) {
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
    line_shown_ = true;
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  std::fflush(stderr);
}

void TerminalProgress::Finish(const std::string& task,
                              const std::string& summary) {
  ClearLine();
  spdlog::info("{}: {}", DisplayName(task), DisplayName(summary));
}

}  // namespace pglayout::cli
