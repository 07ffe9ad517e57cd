// bench/fidelity: the plan's forecast against the measured layout, volume by
// volume, on the volume lab. README.md has the scenario and the figures.

#include <fmt/format.h>
#include <stdlib.h>

#include <cstring>
#include <string>

#include "testing/fidelity_scenario.h"
#include "testing/subprocess.h"

namespace pglayout {
namespace {

constexpr char kUsage[] =
    "usage: fidelity [pg15|pg18] [--probe] [--scale N] [--rate TPS] "
    "[--observe S] [--warmup S] [--clients N] [--out DIR]\n"
    "  Builds a volume lab (root), loads pgbench at --scale, runs pgbench -R "
    "--rate,\n  observes, plans, migrates under the load, observes again, "
    "and prints the\n  forecast against the measurement per volume.\n";

bool ParseArgs(int argc, char** argv, FidelitySpec* spec) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    bool has_value = i + 1 < argc;
    if (arg == "pg15") {
      spec->version = PgVersion::k15;
    } else if (arg == "pg18") {
      spec->version = PgVersion::k18;
    } else if (arg == "--probe") {
      spec->probe = true;
    } else if (arg == "--scale" && has_value) {
      spec->scale = std::atoi(argv[++i]);
    } else if (arg == "--rate" && has_value) {
      spec->rate_tps = std::atof(argv[++i]);
    } else if (arg == "--observe" && has_value) {
      spec->observe_s = std::atof(argv[++i]);
    } else if (arg == "--warmup" && has_value) {
      spec->warmup_s = std::atof(argv[++i]);
    } else if (arg == "--clients" && has_value) {
      spec->clients = std::atoi(argv[++i]);
    } else if (arg == "--out" && has_value) {
      spec->out_dir = argv[++i];
    } else {
      return false;
    }
  }
  return spec->scale > 0 && spec->rate_tps > 0 && spec->observe_s > 0 &&
         spec->clients > 0;
}

int Run(int argc, char** argv) {
  FidelitySpec spec;
  spec.pglayout = PGLAYOUT_BINARY;
  spec.observe_s = 60;
  spec.warmup_s = 20;
  if (!ParseArgs(argc, argv, &spec)) {
    fmt::print(stderr, "{}", kUsage);
    return 2;
  }
  if (spec.out_dir.empty()) {
    Status made =
        MakeTempDirectory("/tmp/pglayout-fidelity-XXXXXX", &spec.out_dir);
    if (!made.ok()) {
      fmt::print(stderr, "{}\n", made.ToString());
      return 1;
    }
  }
  FidelityResult result;
  Status s = RunFidelityScenario(spec, &result, [](const std::string& line) {
    fmt::print(stderr, "fidelity: {}\n", line);
  });
  if (!s.ok()) {
    fmt::print(stderr, "fidelity: {}\n", s.ToString());
    return 1;
  }
  fmt::print(
      "{} scale {}, pgbench -R {:.0f} -c {}, {:.0f} s windows, "
      "volumes {}; files in {}\n",
      PgVersionName(spec.version), spec.scale, spec.rate_tps, spec.clients,
      spec.observe_s, spec.probe ? "probed" : "declared", spec.out_dir);
  fmt::print("{}", FormatFidelity(result));
  for (const std::string& v : result.verdicts) fmt::print("plan: {}\n", v);
  return 0;
}

}  // namespace
}  // namespace pglayout

int main(int argc, char** argv) { return pglayout::Run(argc, argv); }
