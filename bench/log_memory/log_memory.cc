// log_memory: generates a server log of a given size (gzip, checkpoint lines
// of PostgreSQL 12, 15 and 18 among other lines, as a busy server writes
// them), runs `pglayout observe --from-log` on it through each binary given
// and prints each one's peak resident memory (ru_maxrss of the child) and
// wall time, and whether their workload.toml files are identical. See
// README.md.

#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr int64_t kMiB = 1024 * 1024;

std::string Stamp(double t) {
  auto whole = static_cast<time_t>(t);
  int ms = static_cast<int>((t - static_cast<double>(whole)) * 1000);
  std::tm tm{};
  gmtime_r(&whole, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
  return fmt::format("{}.{:03d} UTC", buf, ms);
}

// The "complete" message of each version's format.
std::string Complete(int version, std::mt19937_64& rng, double total,
                     int64_t distance) {
  std::uniform_int_distribution<int> buffers(1, 50000);
  int b = buffers(rng);
  double write = total * 0.9, sync = total * 0.05;
  std::string head = fmt::format("wrote {} buffers ({:.1f}%)", b, b / 1638.4);
  if (version >= 18) head += ", wrote 3 SLRU buffers";
  std::string tail = fmt::format(
      "; 0 WAL file(s) added, 1 removed, 0 recycled; write={:.3f} "
      "s, sync={:.3f} s, total={:.3f} s; sync files=28, "
      "longest=0.024 s, average=0.006 s; distance={} kB, "
      "estimate={} kB",
      write, sync, total, distance, distance + 100);
  if (version >= 17) tail += "; lsn=0/316C608, redo lsn=0/2031418";
  return head + tail;
}

// Writes |bytes| of uncompressed log to |path| (gzip level 1).
void Generate(const std::string& path, int64_t bytes) {
  gzFile out = gzopen(path.c_str(), "wb1");
  if (out == nullptr) {
    std::perror(path.c_str());
    std::exit(1);
  }
  std::mt19937_64 rng(39);
  std::uniform_real_distribution<double> unit(0, 1);
  double t = 1709251200;  // 2024-03-01
  int64_t written = 0;
  auto line = [&](double when, int pid, const std::string& text) {
    std::string l = fmt::format("{} [{}] {}\n", Stamp(when), pid, text);
    gzwrite(out, l.data(), static_cast<unsigned>(l.size()));
    written += static_cast<int64_t>(l.size());
  };
  const int versions[] = {12, 15, 18};
  int64_t cycle = 0;
  while (written < bytes) {
    // A server of each version in turn, a day of checkpoints each.
    int version = versions[(cycle / 2000) % 3];
    ++cycle;
    double r = unit(rng);
    const char* cause = r < 0.6    ? "time"
                        : r < 0.9  ? "wal"
                        : r < 0.97 ? "immediate force wait"
                                   : "wal time";
    bool frequent = std::string(cause) == "wal" && unit(rng) < 0.5;
    if (frequent) {
      line(t, 700,
           "LOG:  checkpoints are occurring too frequently (17 "
           "seconds apart)");
      line(t, 700,
           "HINT:  Consider increasing the configuration parameter "
           "\"max_wal_size\".");
    }
    line(t, 700, std::string("LOG:  checkpoint starting: ") + cause);
    double total = 1 + unit(rng) * 100;
    // Other processes write while the checkpoint runs; their stamps are
    // taken before they write, so a few come a millisecond out of order.
    int others = static_cast<int>(unit(rng) * 6);
    for (int i = 0; i < others; ++i) {
      double when = t + total * (i + 1) / (others + 1);
      line(when, 900 + i,
           "app@shop LOG:  duration: 12.345 ms  statement: SELECT * FROM "
           "orders WHERE customer_id = 4711 AND created_at > now() - "
           "interval '1 day'");
      line(when - 0.001, 901 + i,
           "LOG:  automatic vacuum of table \"shop.public.orders\": index "
           "scans: 1");
    }
    line(t + total, 700,
         "LOG:  checkpoint complete: " +
             Complete(version, rng, total,
                      static_cast<int64_t>(unit(rng) * 1e6)));
    t += total + (frequent ? 17 : 300);
  }
  gzclose(out);
}

struct Measure {
  double seconds = 0;
  int64_t max_rss_kb = 0;
  int status = 0;
};

Measure Run(const std::string& binary, const std::string& log,
            const std::string& out) {
  auto start = std::chrono::steady_clock::now();
  std::fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    std::freopen("/dev/null", "w", stdout);
    std::freopen("/dev/null", "w", stderr);
    execl(binary.c_str(), binary.c_str(), "observe", "--from-log", log.c_str(),
          "-o", out.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  Measure m;
  m.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  m.max_rss_kb = usage.ru_maxrss;
  m.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return m;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: %s MIB BINARY... (MIB of log before compression, "
                 "e.g. 1024; each BINARY a pglayout)\n",
                 argv[0]);
    return 2;
  }
  int64_t mib = std::atoll(argv[1]);
  const char* dir = std::getenv("TMPDIR");
  std::string base = fmt::format("{}/log_memory_{}", dir ? dir : "/tmp", mib);
  std::string log = base + ".log.gz";
  if (access(log.c_str(), R_OK) != 0) {
    auto start = std::chrono::steady_clock::now();
    Generate(log, mib * kMiB);
    fmt::print(
        "generated {} ({} MiB of log) in {:.1f} s\n", log, mib,
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count());
  }
  std::string first;
  for (int i = 2; i < argc; ++i) {
    std::string out = fmt::format("{}.{}.toml", base, i);
    Measure m = Run(argv[i], log, out);
    std::string toml = Slurp(out);
    if (i == 2) first = toml;
    fmt::print("{}: exit {}, {:.1f} s, peak RSS {:.1f} MB{}\n", argv[i],
               m.status, m.seconds, static_cast<double>(m.max_rss_kb) / 1024,
               i == 2 ? ""
                      : (toml == first ? ", same workload.toml"
                                       : ", workload.toml DIFFERS"));
  }
  return 0;
}
