// bench/fidelity: the plan's forecast against the measured layout, volume by
// volume, on the volume lab. README.md has the scenario and the figures.

#include <fmt/format.h>
#include <stdlib.h>

#include <cstring>
#include <filesystem>
#include <string>

#include "testing/fidelity_scenario.h"
#include "testing/subprocess.h"

namespace pglayout {
namespace {

constexpr char kUsage[] =
    "usage: fidelity [pg15|pg18] [--probe] [--scale N] [--rate TPS] "
    "[--observe S] [--warmup S] [--clients N] [--target U] [--stripe] "
    "[--out DIR]\n"
    "  Builds a volume lab (root), loads pgbench at --scale, runs pgbench -R "
    "--rate,\n  observes, plans, migrates under the load, observes again, "
    "and prints the\n  forecast against the measurement per volume.\n"
    "  --target U: pglayout plan --target U.\n"
    "  --stripe: two runs, pglayout plan --prefer partition (the tablespace"
    "\n  spread), then --prefer stripe with the plan's stripe built in the "
    "lab\n  (btrfs raid0); both printed.\n";

struct Options {
  FidelitySpec spec;
  bool stripe = false;
};

bool ParseArgs(int argc, char** argv, Options* options) {
  FidelitySpec* spec = &options->spec;
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
    } else if (arg == "--target" && has_value) {
      spec->plan_options = {"--target", argv[++i]};
    } else if (arg == "--stripe") {
      options->stripe = true;
    } else if (arg == "--out" && has_value) {
      spec->out_dir = argv[++i];
    } else {
      return false;
    }
  }
  return spec->scale > 0 && spec->rate_tps > 0 && spec->observe_s > 0 &&
         spec->clients > 0;
}

// One run of the scenario into |out_dir| (made when empty); prints its
// table. False on failure, after saying why.
bool RunOnce(FidelitySpec spec, const std::string& title) {
  if (spec.out_dir.empty()) {
    Status made =
        MakeTempDirectory("/tmp/pglayout-fidelity-XXXXXX", &spec.out_dir);
    if (!made.ok()) {
      fmt::print(stderr, "{}\n", made.ToString());
      return false;
    }
  }
  FidelityResult result;
  Status s = RunFidelityScenario(spec, &result, [](const std::string& line) {
    fmt::print(stderr, "fidelity: {}\n", line);
  });
  if (!s.ok()) {
    fmt::print(stderr, "fidelity: {}\n", s.ToString());
    return false;
  }
  fmt::print(
      "{}: {} scale {}, pgbench -R {:.0f} -c {}, {:.0f} s windows, "
      "volumes {}; files in {}\n",
      title, PgVersionName(spec.version), spec.scale, spec.rate_tps,
      spec.clients, spec.observe_s, spec.probe ? "probed" : "declared",
      spec.out_dir);
  for (const std::string& stripe : result.stripes) {
    fmt::print("stripe built in the lab: {}\n", stripe);
  }
  fmt::print("{}", FormatFidelity(result));
  for (const std::string& v : result.verdicts) fmt::print("plan: {}\n", v);
  return true;
}

int Run(int argc, char** argv) {
  Options options;
  FidelitySpec& spec = options.spec;
  spec.pglayout = PGLAYOUT_BINARY;
  spec.observe_s = 60;
  spec.warmup_s = 40;
  if (!ParseArgs(argc, argv, &options)) {
    fmt::print(stderr, "{}", kUsage);
    return 2;
  }
  if (!options.stripe) return RunOnce(spec, "the plan as chosen") ? 0 : 1;
  // The two remedies for a table too hot for one volume, each from
  // scratch: hash partitions over tablespaces, then the stripe.
  FidelitySpec spread = spec;
  spread.plan_options.insert(spread.plan_options.end(),
                             {"--prefer", "partition"});
  if (!RunOnce(spread, "the tablespace spread (plan --prefer partition)")) {
    return 1;
  }
  FidelitySpec stripe = spec;
  if (!stripe.out_dir.empty()) stripe.out_dir += "/stripe";
  std::error_code ec;
  if (!stripe.out_dir.empty() &&
      !std::filesystem::create_directories(stripe.out_dir, ec) && ec) {
    fmt::print(stderr, "cannot make {}: {}\n", stripe.out_dir, ec.message());
    return 1;
  }
  stripe.plan_options.insert(stripe.plan_options.end(), {"--prefer", "stripe"});
  fmt::print("\n");
  return RunOnce(stripe, "the stripe alternative (plan --prefer stripe)") ? 0
                                                                          : 1;
}

}  // namespace
}  // namespace pglayout

int main(int argc, char** argv) { return pglayout::Run(argc, argv); }
