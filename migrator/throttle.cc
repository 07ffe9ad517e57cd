#include "migrator/throttle.h"

#include <fmt/format.h>

#include <algorithm>

namespace pglayout::migrator {
namespace {

// Below this the pause is noise: drop it so the copy runs flat out again.
constexpr double kMinFactor = 0.05;
constexpr double kFirstFactor = 0.25;

double Rate(const ThrottleSample& from, const ThrottleSample& to) {
  double dt = to.at_s - from.at_s;
  if (dt <= 0) return 0;
  return static_cast<double>(to.xact_commit - from.xact_commit) / dt;
}

}  // namespace

Status ParseThrottleMode(const std::string& text, ThrottleMode* mode) {
  if (text == "off") {
    *mode = ThrottleMode::kOff;
  } else if (text == "adaptive") {
    *mode = ThrottleMode::kAdaptive;
  } else {
    return Status::InvalidInput(
        "--throttle: '" + text +
        "' is not a throttle mode; use adaptive or off");
  }
  return Status::Ok();
}

const char* ThrottleModeName(ThrottleMode mode) {
  return mode == ThrottleMode::kOff ? "off" : "adaptive";
}

void AdaptiveThrottle::SetBaseline(const ThrottleSample& first,
                                   const ThrottleSample& second) {
  baseline_tps_ = Rate(first, second);
  window_start_ = second;
}

std::string AdaptiveThrottle::Pressure(const ThrottleSample& now, double ratio,
                                       bool* healthy) const {
  *healthy = ratio < 0 || ratio >= limits_.recovered_ratio;
  if (now.requested_checkpoints > window_start_->requested_checkpoints) {
    *healthy = false;
    return fmt::format(
        "{} requested checkpoint(s)",
        now.requested_checkpoints - window_start_->requested_checkpoints);
  }
  if (now.replica_lag_s > limits_.max_lag_s ||
      now.replica_lag_bytes > limits_.max_lag_bytes) {
    *healthy = false;
    return fmt::format("replica lag {:.1f} s, {:.0f} MB", now.replica_lag_s,
                       now.replica_lag_bytes / 1e6);
  }
  if (ratio >= 0 && ratio < limits_.pressure_ratio) {
    return fmt::format("commits {:.2f} of baseline", ratio);
  }
  return "";
}

double AdaptiveThrottle::Next(const ThrottleSample& now, double batch_s) {
  if (!window_start_) window_start_ = now;
  if (now.at_s - window_start_->at_s >= limits_.window_s) {
    last_ratio_ = baseline_tps_ >= limits_.min_baseline_tps
                      ? Rate(*window_start_, now) / baseline_tps_
                      : -1;
    bool healthy = false;
    last_reason_ = Pressure(now, last_ratio_, &healthy);
    if (!last_reason_.empty()) {
      factor_ = std::min(limits_.max_pause_factor,
                         std::max(factor_ * 2, kFirstFactor));
    } else if (healthy) {
      factor_ = factor_ / 2 < kMinFactor ? 0 : factor_ / 2;
    }
    window_start_ = now;
    decided_ = true;
  }
  return factor_ * std::max(batch_s, 0.0);
}

std::string AdaptiveThrottle::State() const {
  std::string why = !decided_               ? std::string("measuring")
                    : !last_reason_.empty() ? last_reason_
                    : last_ratio_ >= 0
                        ? fmt::format("commits {:.2f} of baseline", last_ratio_)
                        : std::string("foreground idle");
  return fmt::format("pause {:.2f}x ({})", factor_, why);
}

}  // namespace pglayout::migrator
