#include "probes/write_paths.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <memory>

#include "common/units.h"
#include "probes/interval_reporter.h"
#include "probes/io_pattern.h"
#include "probes/prober.h"

namespace pglayout::probes {
namespace {

constexpr uint64_t kBlock = 1 * kMiB;

double SecondsSince(uint64_t t0_ns) {
  return static_cast<double>(MonotonicNs() - t0_ns) / 1e9;
}

// Fills |out| from what was measured between |cpu0| and now.
void Finish(uint64_t bytes, double seconds, double sync_seconds,
            const CpuTimes& cpu0, DurableWrite* out) {
  CpuTimes cpu1 = ProcessCpuTimes();
  out->bytes = bytes;
  out->seconds_to_durable = seconds;
  out->sync_seconds = sync_seconds;
  out->mbps = seconds > 0 ? static_cast<double>(bytes) / seconds / 1e6 : 0;
  out->user_cpu_seconds = cpu1.user - cpu0.user;
  out->system_cpu_seconds = cpu1.system - cpu0.system;
}

// write() all of |size| bytes at |offset|, resuming after short writes.
int WriteAll(int fd, const unsigned char* data, uint64_t size,
             uint64_t offset) {
  uint64_t done = 0;
  while (done < size) {
    ssize_t n =
        pwrite(fd, data + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return EIO;
    done += static_cast<uint64_t>(n);
  }
  return 0;
}

// The buffered writes themselves; *written is what reached the page cache.
Status WriteBuffered(int fd, const std::string& path, uint64_t bytes,
                     double max_seconds, uint64_t t0, uint64_t* written) {
  std::unique_ptr<unsigned char[]> block(new unsigned char[kBlock]);
  FillRandom(block.get(), kBlock, 0xb0ff);
  *written = 0;
  for (uint64_t serial = 1; *written < bytes; ++serial) {
    if (SecondsSince(t0) > max_seconds) break;
    StampBlocks(block.get(), kBlock, serial);
    if (int error = WriteAll(fd, block.get(), kBlock, *written); error != 0) {
      return TransferError(
          fmt::format("buffered write of {} at offset {}", path, *written),
          error);
    }
    *written += kBlock;
  }
  return Status::Ok();
}

// Drops the (clean) pages of |path| from the page cache.
void DropFromPageCache(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  fdatasync(fd);  // in case anything is still dirty: DONTNEED skips dirty
  posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  close(fd);
}

}  // namespace

Status MeasureBufferedWrite(const std::string& path, uint64_t bytes,
                            double max_seconds, DurableWrite* out) {
  bytes = bytes / kBlock * kBlock;
  if (bytes == 0) {
    return Status::InvalidInput("a buffered write needs at least 1 MiB");
  }
  *out = DurableWrite();
  int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return Status::FromErrno(fmt::format("opening {}", path), errno);
  CpuTimes cpu0 = ProcessCpuTimes();
  uint64_t t0 = MonotonicNs();
  uint64_t written = 0;
  Status st = WriteBuffered(fd, path, bytes, max_seconds, t0, &written);
  uint64_t sync0 = MonotonicNs();
  // Durable means on the device: fdatasync writes back the dirty pages and
  // flushes the device cache; close is counted as a program would pay it.
  int sync_error = st.ok() && fdatasync(fd) != 0 ? errno : 0;
  int close_error = close(fd) != 0 ? errno : 0;
  double sync_seconds = SecondsSince(sync0);
  double seconds = SecondsSince(t0);
  Finish(written, seconds, sync_seconds, cpu0, out);
  DropFromPageCache(path);
  PGLAYOUT_RETURN_IF_ERROR(st);
  if (sync_error != 0) {
    return TransferError(fmt::format("fdatasync of {}", path), sync_error);
  }
  if (close_error != 0) {
    return TransferError(fmt::format("close of {}", path), close_error);
  }
  return Status::Ok();
}

Status MeasureDirectWrite(IoEngine* engine, uint64_t bytes, double max_seconds,
                          DurableWrite* out) {
  *out = DurableWrite();
  IoJob job = SequentialWriteJob(bytes, max_seconds);
  JobResult r;
  CpuTimes cpu0 = ProcessCpuTimes();
  Status st = engine->Run(
      job, [](const IntervalStats&) { return true; }, &r);
  if (!st.ok()) return st.WithContext("direct sequential write");
  Finish(r.total.bytes, r.total.seconds + r.sync_seconds, r.sync_seconds, cpu0,
         out);
  return Status::Ok();
}

Status CompareBufferedAndDirect(IoEngine* engine, const std::string& path,
                                uint64_t bytes, double max_seconds,
                                BufferedVsDirect* out) {
  BufferedVsDirect result;
  PGLAYOUT_RETURN_IF_ERROR(
      MeasureBufferedWrite(path, bytes, max_seconds, &result.buffered));
  PGLAYOUT_RETURN_IF_ERROR(MeasureDirectWrite(engine, result.buffered.bytes,
                                              max_seconds, &result.direct));
  *out = result;
  return Status::Ok();
}

}  // namespace pglayout::probes
