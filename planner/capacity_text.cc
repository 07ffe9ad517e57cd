// The bill of materials of a capacity plan, for people and for machines.

#include <fmt/format.h>

#include <cmath>

#include "common/units.h"
#include "planner/capacity.h"

namespace pglayout::planner {
namespace {

// Lines of the "why not cheaper" list shown; the JSON has them all.
constexpr size_t kShownAlternatives = 6;

std::string Money(double amount, const std::string& currency) {
  return fmt::format("{:.2f} {}", amount, currency);
}

std::string Size(uint64_t bytes) {
  return HumanSize(static_cast<double>(bytes));
}

// "3000 + 9000 provisioned" or "3000 (included)".
std::string Figure(double total, double paid) {
  if (paid <= 0) return fmt::format("{:.0f}", total);
  return fmt::format("{:.0f} ({:.0f} provisioned)", total, paid);
}

void RenderBill(const CapacityPlan& plan, std::string* out) {
  *out +=
      fmt::format("{:<8} {:<14} {:<26} {:>10} {:>24} {:>28} {:>14}\n", "volume",
                  "role", "type", "size", "IOPS", "throughput", "per month");
  for (const BillLine& line : plan.bill) {
    const VolumeConfig& c = line.config;
    *out += fmt::format(
        "{:<8} {:<14} {:<26} {:>10} {:>24} {:>28} {:>14}\n", line.volume,
        line.role, c.type->name, Size(c.size), Figure(c.iops, c.paid_iops),
        Figure(c.type->Mbps(c.throughput), c.type->Mbps(c.paid_throughput)) +
            " MB/s",
        Money(c.price, plan.currency));
  }
  *out += fmt::format("{:>128}\n", "total " + Money(plan.total, plan.currency));
}

void RenderAlternatives(const CapacityPlan& plan, std::string* out) {
  if (!plan.cheaper.empty()) {
    *out +=
        "\nWhy not cheaper (priced lower, rejected by the planner; "
        "nearest first):\n";
    for (size_t i = 0; i < plan.cheaper.size() && i < kShownAlternatives; ++i) {
      const Alternative& a = plan.cheaper[i];
      *out += fmt::format("  - {} ({}): {}\n", a.description,
                          Money(a.price, plan.currency), a.failed);
    }
    if (plan.cheaper.size() > kShownAlternatives) {
      *out += fmt::format("  ... and {} more (see --json)\n",
                          plan.cheaper.size() - kShownAlternatives);
    }
  }
  if (!plan.impossible.empty()) {
    *out += "\nTypes that cannot serve it with the volumes allowed:\n";
    for (const Alternative& a : plan.impossible) {
      *out += fmt::format("  - {}: {}\n", a.description, a.failed);
    }
  }
  if (!plan.other_providers.empty()) {
    *out += "\nOther providers:\n";
    for (const Alternative& a : plan.other_providers) {
      *out += a.failed.empty()
                  ? fmt::format("  - {}: {} ({})\n", a.provider,
                                Money(a.price, plan.currency), a.description)
                  : fmt::format("  - {}: {}\n", a.provider, a.failed);
    }
  }
}

Json ConfigJson(const BillLine& line) {
  const VolumeConfig& c = line.config;
  return {{"volume", line.volume},
          {"role", line.role},
          {"type", c.type->name},
          {"provider", c.type->provider},
          {"size", FormatSize(c.size)},
          {"iops", c.iops},
          {"provisioned_iops", c.paid_iops},
          {"throughput", c.throughput},
          {"provisioned_throughput", c.paid_throughput},
          {"throughput_unit", c.type->throughput_unit},
          {"price_per_month", std::round(c.price * 100) / 100}};
}

Json AlternativesJson(const std::vector<Alternative>& list) {
  Json out = Json::array();
  for (const Alternative& a : list) {
    out.push_back({{"provider", a.provider},
                   {"description", a.description},
                   {"price_per_month", std::round(a.price * 100) / 100},
                   {"failed", a.failed}});
  }
  return out;
}

}  // namespace

std::string RenderCapacity(const CapacityPlan& plan) {
  std::string out = "Capacity plan (--catalog)\n";
  out += fmt::format(
      "Needs at the target: each of {} data volumes (perfect spread, the "
      "lower bound) {:.0f} IOPS, {:.0f} MB/s, {}; the WAL volume {:.0f} "
      "IOPS, {:.0f} MB/s, {}\n\n",
      plan.data_volumes, plan.data_need.iops, plan.data_need.mbps,
      Size(plan.data_need.bytes), plan.wal_need.iops, plan.wal_need.mbps,
      Size(plan.wal_need.bytes));
  if (plan.found) RenderBill(plan, &out);
  out += fmt::format("\nVerdict: {}\n", plan.verdict);
  RenderAlternatives(plan, &out);
  if (!plan.assumed.empty()) {
    out += "\nAssumed figures in this bill (no source found; check them):\n";
    for (const std::string& a : plan.assumed) out += "  - " + a + "\n";
  }
  out += fmt::format("\n({} candidate sets checked by the planner)\n",
                     plan.plans_built);
  return out;
}

Json CapacityJson(const CapacityPlan& plan) {
  Json bill = Json::array();
  for (const BillLine& line : plan.bill) bill.push_back(ConfigJson(line));
  return {{"found", plan.found},
          {"provider", plan.provider},
          {"currency", plan.currency},
          {"bill", bill},
          {"total_per_month", std::round(plan.total * 100) / 100},
          {"cheaper", AlternativesJson(plan.cheaper)},
          {"impossible", AlternativesJson(plan.impossible)},
          {"other_providers", AlternativesJson(plan.other_providers)},
          {"assumed", plan.assumed},
          {"verdict", plan.verdict}};
}

}  // namespace pglayout::planner
