// Real direct I/O on small files in the build tree: the io_uring and
// thread-pool engines, the pglayout probe command end to end, its refusals,
// and the removal of the probe file when the command is interrupted.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/files.h"
#include "common/units.h"
#include "probes/probe_file.h"
#include "probes/prober.h"
#include "probes/thread_pool_engine.h"
#include "probes/topology.h"
#include "probes/uring_engine.h"
#include "probes/write_paths.h"

namespace pglayout::probes {
namespace {

namespace fs = std::filesystem;

class RealFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::path base = fs::path(PGLAYOUT_BUILD_DIR) / "tmp";
    fs::create_directories(base);
    std::string pattern = (base / "probe-it-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  size_t Entries(const std::string& dir) const {
    return static_cast<size_t>(std::distance(fs::directory_iterator(dir), {}));
  }
  bool HasProbeFile() const {
    for (const auto& e : fs::directory_iterator(dir_)) {
      if (e.path().filename().string().rfind(".pglayout-probe-", 0) == 0)
        return true;
    }
    return false;
  }

  // Starts pglayout with |args|; stdout and stderr go to |log|. With
  // |block_io_uring| the child runs under a seccomp filter that fails
  // io_uring_setup with ENOSYS, as container runtimes' default profiles do.
  pid_t Start(const std::vector<std::string>& args, const std::string& log,
              bool block_io_uring = false) {
    pid_t pid = fork();
    if (pid == 0) {
      int fd = open(log.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0644);
      dup2(fd, 1);
      dup2(fd, 2);
      if (block_io_uring && !BlockIoUring()) _exit(126);
      std::vector<char*> argv{const_cast<char*>(PGLAYOUT_BINARY)};
      for (const std::string& a : args)
        argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(PGLAYOUT_BINARY, argv.data());
      _exit(127);
    }
    return pid;
  }

  static bool BlockIoUring() {
    sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_io_uring_setup, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    sock_fprog program{static_cast<unsigned short>(std::size(filter)), filter};
    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
           prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) == 0;
  }

  // Runs pglayout to completion; returns its exit code (or 128 + signal).
  int Pglayout(const std::vector<std::string>& args,
               std::string* output = nullptr, bool block_io_uring = false) {
    std::string log = dir_ + ".log";
    pid_t pid = Start(args, log, block_io_uring);
    int status = 0;
    waitpid(pid, &status, 0);
    std::ifstream in(log);
    std::stringstream text;
    text << in.rdbuf();
    if (output != nullptr) *output = text.str();
    fs::remove(log);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

  std::string dir_;
};

void ExpectFilledWithRealData(const std::string& path, uint64_t size) {
  // Read back through the page cache: every 4 KiB block must hold data, and
  // no two sampled blocks may be equal (a deduplicating device would
  // otherwise store one block).
  std::ifstream in(path, std::ios::binary);
  std::vector<char> block(4096), previous(4096);
  uint64_t zero_blocks = 0, repeats = 0;
  for (uint64_t at = 0; at < size; at += 4096) {
    in.read(block.data(), 4096);
    ASSERT_TRUE(in.good()) << "short file at " << at;
    bool zero =
        std::all_of(block.begin(), block.end(), [](char c) { return c == 0; });
    zero_blocks += zero;
    repeats += at > 0 && block == previous;
    previous.swap(block);
  }
  EXPECT_EQ(zero_blocks, 0u);
  EXPECT_EQ(repeats, 0u);
}

void CheckEngine(IoEngine* engine, const ProbeFile& file) {
  uint64_t filled = 0;
  double mbps = 0, seconds = 0;
  Status st =
      FillProbeFile(engine, 64 * kMiB, 30, nullptr, &filled, &mbps, &seconds);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(filled, 64 * kMiB);
  EXPECT_GT(mbps, 0);
  ExpectFilledWithRealData(file.path(), 64 * kMiB);

  PointLimits limits{0.05, 0.2, 0.5, 0.02, 5};
  for (int depth : {1, 8}) {
    IoJob job;
    job.block_size = kPageSize;
    job.queue_depth = depth;
    job.region_size = filled;
    job.interval_seconds = 0.05;
    PointResult r;
    ASSERT_TRUE(MeasurePoint(engine, job, limits, nullptr, &r).ok());
    EXPECT_GT(r.stats.ios, 10u);
    EXPECT_EQ(r.stats.bytes, r.stats.ios * kPageSize);
    // Reads that never reach the device (holes, unwritten extents) take
    // about a microsecond; a real direct read takes far longer.
    EXPECT_GT(r.stats.latency.Percentile(0.5), 2000) << "depth " << depth;
    EXPECT_GT(r.stats.mean_inflight(), depth * 0.5);
    EXPECT_GT(r.cpu_us_per_io(), 0);
  }
  for (Durability d : {Durability::kFdatasyncEach, Durability::kDsyncEach}) {
    IoJob job;
    job.kind = IoKind::kWrite;
    job.access = Access::kSequential;
    job.durability = d;
    job.region_size = 1 * kMiB;
    job.interval_seconds = 0.05;
    PointResult r;
    ASSERT_TRUE(MeasurePoint(engine, job, limits, nullptr, &r).ok());
    EXPECT_GT(r.stats.ios, 0u);
  }
}

TEST_F(RealFiles, UringEngineFillsReadsAndWrites) {
  std::unique_ptr<ProbeFile> file;
  ASSERT_TRUE(ProbeFile::Create(dir_, 64 * kMiB, &file).ok());
  std::unique_ptr<IoEngine> engine;
  Status st = MakeUringEngine(file->fd(), file->alignment(), &engine);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(engine->name(), "io_uring");
  CheckEngine(engine.get(), *file);
}

TEST_F(RealFiles, ThreadPoolEngineFillsReadsAndWrites) {
  std::unique_ptr<ProbeFile> file;
  ASSERT_TRUE(ProbeFile::Create(dir_, 64 * kMiB, &file).ok());
  std::unique_ptr<IoEngine> engine =
      MakeThreadPoolEngine(file->fd(), file->alignment());
  EXPECT_EQ(engine->name(), "pread-threads");
  CheckEngine(engine.get(), *file);
}

TEST_F(RealFiles, ProbeCommandWritesVolumesTomlAndCleansUp) {
  fs::create_directories(dir_ + "/a");
  fs::create_directories(dir_ + "/b");
  std::string out = dir_ + "/volumes.toml";
  std::string log;
  int code = Pglayout({"-q", "probe", "--quick", "--budget", "5", "--size",
                       "64MiB", "data=" + dir_ + "/a", dir_ + "/b", "-o", out},
                      &log);
  ASSERT_EQ(code, 0) << log;
  VolumeSet set;
  Status st = ReadVolumesFile(out, &set);
  ASSERT_TRUE(st.ok()) << st.ToString();
  ASSERT_EQ(set.volumes.size(), 2u);
  const Volume& v = set.volumes[0];
  EXPECT_EQ(v.name, "data");
  EXPECT_EQ(set.volumes[1].name, "b");
  EXPECT_EQ(v.probe_engine, "io_uring");
  EXPECT_FALSE(v.randread.empty());
  EXPECT_FALSE(v.seqread.empty());
  EXPECT_FALSE(v.syncwrite.empty());
  EXPECT_GT(v.read_iops, 0);
  EXPECT_GT(v.read_latency_us, 2);
  EXPECT_GT(v.write_mbps, 0);
  EXPECT_GT(v.capacity, 0u);
  ASSERT_TRUE(v.topology.has_value());
  EXPECT_FALSE(v.topology->filesystem.empty());
  // Both directories sit on one filesystem.
  EXPECT_EQ(v.shares_device_with, std::vector<std::string>{"b"});
  EXPECT_NE(log.find("volumes.toml"), std::string::npos) << log;
  EXPECT_EQ(Entries(dir_ + "/a"), 0u);
  EXPECT_EQ(Entries(dir_ + "/b"), 0u);
}

// Issue 19, reproduction 6: another job reads the same disk while the
// probe runs (a thread reading its own file with O_DIRECT, so every read
// reaches the device). The device's counters show more than the probe
// issued; the probe repeats the points and names those still disturbed.
TEST_F(RealFiles, ProbeSaysWhenAnotherJobUsesTheDevice) {
  fs::create_directories(dir_ + "/a");
  const std::string busy = dir_ + "/busy";
  {
    std::ofstream f(busy, std::ios::binary);
    std::string block(kMiB, 'x');
    for (int i = 0; i < 64; ++i) f.write(block.data(), kMiB);
  }
  std::atomic<bool> stop{false};
  std::thread reader([&] {
    const int fd = open(busy.c_str(), O_RDONLY | O_DIRECT);
    if (fd < 0) return;
    void* buffer = nullptr;
    if (posix_memalign(&buffer, 4096, kMiB) != 0) {
      close(fd);
      return;
    }
    for (off_t at = 0; !stop.load(); at = (at + kMiB) % (64 * kMiB)) {
      if (pread(fd, buffer, kMiB, at) < 0) break;
    }
    free(buffer);
    close(fd);
  });
  std::string log;
  const int code =
      Pglayout({"probe", "--quick", "--budget", "4", "--size", "32MiB",
                "a=" + dir_ + "/a", "-o", dir_ + "/volumes.toml"},
               &log);
  stop = true;
  reader.join();
  ASSERT_EQ(code, 0) << log;
  EXPECT_NE(log.find("that was not the probe's own"), std::string::npos) << log;
}

TEST_F(RealFiles, ThreadsEngineIsNamedInTheOutput) {
  std::string log;
  int code = Pglayout(
      {"-q", "probe", "--quick", "--budget", "3", "--size", "32MiB", "--engine",
       "threads", "--json", "t=" + dir_, "-o", dir_ + ".toml"},
      &log);
  ASSERT_EQ(code, 0) << log;
  EXPECT_NE(log.find("\"probe_engine\": \"pread-threads\""), std::string::npos)
      << log;
  fs::remove(dir_ + ".toml");
}

TEST_F(RealFiles, FallsBackToThreadsWhenIoUringIsBlocked) {
  std::string log;
  int code = Pglayout({"probe", "--quick", "--budget", "3", "--size", "32MiB",
                       "--json", "t=" + dir_, "-o", dir_ + ".toml"},
                      &log, /*block_io_uring=*/true);
  ASSERT_EQ(code, 0) << log;
  EXPECT_NE(log.find("io_uring setup: Function not implemented"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("falling back to a pread/pwrite thread pool"),
            std::string::npos);
  EXPECT_NE(log.find("\"probe_engine\": \"pread-threads\""), std::string::npos);
  std::string demanded;
  EXPECT_EQ(Pglayout({"-q", "probe", "--engine", "io_uring", "--size", "32MiB",
                      dir_, "-o", dir_ + ".toml"},
                     &demanded, true),
            1)
      << "io_uring demanded but unavailable is a failure, not bad input";
  EXPECT_NE(demanded.find("seccomp"), std::string::npos) << demanded;
  EXPECT_EQ(Entries(dir_), 0u);
  fs::remove(dir_ + ".toml");
}

TEST_F(RealFiles, BadTargetsExitTwoAndWriteNothing) {
  std::string file = dir_ + "/plain";
  std::ofstream(file) << "x";
  std::string out = dir_ + "/never.toml";
  std::string log;
  EXPECT_EQ(Pglayout({"probe", dir_ + "/missing", "-o", out}, &log), 2);
  EXPECT_NE(log.find("no such directory"), std::string::npos) << log;
  EXPECT_EQ(Pglayout({"probe", "/dev/null", "-o", out}, &log), 2);
  EXPECT_NE(log.find("never writes to devices"), std::string::npos) << log;
  EXPECT_EQ(Pglayout({"probe", file, "-o", out}, &log), 2);
  EXPECT_EQ(Pglayout({"probe", "--size", "1MiB", dir_, "-o", out}, &log), 2);
  EXPECT_EQ(Pglayout({"probe", "--size", "1000TiB", dir_, "-o", out}, &log), 2);
  EXPECT_NE(log.find("10%"), std::string::npos) << log;
  EXPECT_EQ(Pglayout({"probe", "x=" + dir_, "x=" + dir_, "-o", out}, &log), 2);
  EXPECT_FALSE(fs::exists(out));
  EXPECT_EQ(Entries(dir_), 1u);  // just "plain"
}

// Pages of |path| resident in the page cache (mincore), in bytes.
uint64_t CachedBytes(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) return 0;
  off_t size = lseek(fd, 0, SEEK_END);
  void* map =
      mmap(nullptr, static_cast<size_t>(size), PROT_READ, MAP_SHARED, fd, 0);
  close(fd);
  if (map == MAP_FAILED) return 0;
  long page = sysconf(_SC_PAGESIZE);
  std::vector<unsigned char> resident(
      (static_cast<size_t>(size) + static_cast<size_t>(page) - 1) /
      static_cast<size_t>(page));
  uint64_t cached = 0;
  if (mincore(map, static_cast<size_t>(size), resident.data()) == 0) {
    for (unsigned char r : resident) cached += (r & 1) ? page : 0;
  }
  munmap(map, static_cast<size_t>(size));
  return cached;
}

TEST_F(RealFiles, BufferedAndDirectWritesAreTimedUntilDurable) {
  std::unique_ptr<ProbeFile> file;
  ASSERT_TRUE(ProbeFile::Create(dir_, 64 * kMiB, &file).ok());
  std::unique_ptr<IoEngine> engine;
  ASSERT_TRUE(MakeUringEngine(file->fd(), file->alignment(), &engine).ok());
  uint64_t filled = 0;
  double mbps = 0, seconds = 0;
  ASSERT_TRUE(FillProbeFile(engine.get(), 64 * kMiB, 30, nullptr, &filled,
                            &mbps, &seconds)
                  .ok());
  BufferedVsDirect b;
  Status st =
      CompareBufferedAndDirect(engine.get(), file->path(), filled, 30, &b);
  ASSERT_TRUE(st.ok()) << st.ToString();
  for (const DurableWrite* d : {&b.buffered, &b.direct}) {
    EXPECT_EQ(d->bytes, 64 * kMiB);
    EXPECT_GT(d->seconds_to_durable, d->sync_seconds);
    EXPECT_GT(d->sync_seconds, 0);
    EXPECT_GT(d->mbps, 0);
    EXPECT_GT(d->user_cpu_seconds + d->system_cpu_seconds, 0);
  }
  // Copying 64 MiB into the page cache costs system CPU in this process.
  EXPECT_GT(b.buffered.system_cpu_seconds, 0.005);
  // The buffered pages were dropped afterwards; the file still holds data.
  EXPECT_LT(CachedBytes(file->path()), 4 * kMiB);
  ExpectFilledWithRealData(file->path(), 64 * kMiB);
}

TEST_F(RealFiles, CompareBufferedIsWrittenToVolumesToml) {
  std::string out = dir_ + "/volumes.toml";
  std::string log;
  int code = Pglayout({"probe", "--quick", "--budget", "2", "--size", "32MiB",
                       "--compare-buffered", "d=" + dir_, "-o", out},
                      &log);
  ASSERT_EQ(code, 0) << log;
  VolumeSet set;
  ASSERT_TRUE(ReadVolumesFile(out, &set).ok());
  ASSERT_TRUE(set.volumes[0].buffered_vs_direct.has_value());
  const BufferedVsDirect& b = *set.volumes[0].buffered_vs_direct;
  EXPECT_EQ(b.buffered.bytes, 32 * kMiB);
  EXPECT_EQ(b.direct.bytes, 32 * kMiB);
  EXPECT_GT(b.direct.mbps, 0);
  EXPECT_NE(log.find("buffered vs direct"), std::string::npos) << log;
  EXPECT_NE(log.find("posix_fadvise DONTNEED"), std::string::npos) << log;
  EXPECT_EQ(Entries(dir_), 1u) << "only volumes.toml is left";
}

TEST_F(RealFiles, ConcurrentRunExposesTwoDirectoriesOnOneDisk) {
  fs::create_directories(dir_ + "/a");
  fs::create_directories(dir_ + "/b");
  std::string out = dir_ + "/volumes.toml";
  std::string log;
  int code = Pglayout(
      {"probe", "--quick", "--budget", "2", "--size", "32MiB", "--concurrent",
       "a=" + dir_ + "/a", "b=" + dir_ + "/b", "-o", out},
      &log);
  ASSERT_EQ(code, 0) << log;
  VolumeSet set;
  Status st = ReadVolumesFile(out, &set);
  ASSERT_TRUE(st.ok()) << st.ToString();
  ASSERT_TRUE(set.concurrent.has_value()) << log;
  const Concurrent& c = *set.concurrent;
  ASSERT_EQ(c.volumes.size(), 2u);
  EXPECT_GT(c.read_iops, 0);
  EXPECT_GT(c.read_mbps, 0);
  EXPECT_GT(c.sum_alone_read_iops, 0);
  // No bound on the ratio itself: the "alone" points of a --quick run are
  // short, and other readers of this disk (other tests, other load) push
  // the ratio anywhere from 1.2 to 4 (seen). Whether it is direct I/O is
  // the buffered-vs-direct test's question; here the figures must agree
  // with each other and name one disk.
  // Each figure is written to four significant figures.
  EXPECT_NEAR(c.iops_ratio, c.read_iops / c.sum_alone_read_iops,
              1e-3 * c.iops_ratio);
  std::vector<std::string> disks = PhysicalDisks(*set.volumes[0].topology);
  std::string device = disks.empty() ? "" : disks[0];
  EXPECT_NE(c.verdict.find("a and b share device " + device), std::string::npos)
      << c.verdict;
  EXPECT_NE(log.find("verdict: a and b share device"), std::string::npos)
      << log;
  EXPECT_EQ(Entries(dir_ + "/a"), 0u);
  EXPECT_EQ(Entries(dir_ + "/b"), 0u);
  std::string refused;
  EXPECT_EQ(
      Pglayout({"probe", "--concurrent", dir_ + "/a", "-o", out}, &refused), 2);
  EXPECT_NE(refused.find("at least two targets"), std::string::npos) << refused;
}

class Interrupted : public RealFiles,
                    public ::testing::WithParamInterface<int> {};

TEST_P(Interrupted, ProbeFileIsRemovedOnTheSignal) {
  const int sig = GetParam();
  std::string log = dir_ + ".log";
  pid_t pid = Start({"-q", "probe", "--budget", "60", "--size", "256MiB", dir_,
                     "-o", dir_ + ".toml"},
                    log);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!HasProbeFile() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_TRUE(HasProbeFile()) << "the probe never created its file";
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // mid-run
  ASSERT_EQ(kill(pid, sig), 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status)) << "exit status " << status;
  EXPECT_EQ(WTERMSIG(status), sig);
  EXPECT_EQ(Entries(dir_), 0u) << "probe file left behind";
  EXPECT_FALSE(fs::exists(dir_ + ".toml"));
  fs::remove(log);
}

INSTANTIATE_TEST_SUITE_P(Signals, Interrupted,
                         ::testing::Values(SIGINT, SIGTERM),
                         [](const auto& info) {
                           return std::string(info.param == SIGINT ? "SIGINT"
                                                                   : "SIGTERM");
                         });

}  // namespace
}  // namespace pglayout::probes
