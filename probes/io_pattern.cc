#include "probes/io_pattern.h"

#include <cmath>
#include <cstring>

namespace pglayout::probes {

OffsetGenerator::OffsetGenerator(const IoJob& job)
    : access_(job.access),
      base_(job.region_offset),
      block_(job.block_size),
      blocks_(job.region_size / job.block_size),
      random_(job.seed) {}

uint64_t OffsetGenerator::Next() {
  uint64_t index;
  if (access_ == Access::kRandom) {
    index = random_.Below(blocks_);
  } else {
    index = cursor_;
    cursor_ = (cursor_ + 1) % blocks_;
  }
  return base_ + index * block_;
}

PacedSchedule::PacedSchedule(double rate_iops, uint64_t seed)
    : rate_(rate_iops), random_(seed ^ 0x9ace9ace9ace9aceULL) {}

double PacedSchedule::Next() {
  // Uniform in (0, 1]: never log(0).
  const double u =
      (static_cast<double>(random_.Next() >> 11) + 1) / 9007199254740992.0;
  due_ += -std::log(u) / rate_;
  return due_;
}

void FillRandom(void* data, size_t size, uint64_t seed) {
  Random random(seed ^ 0x5eed5eed5eed5eedULL);
  auto* bytes = static_cast<unsigned char*>(data);
  size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    uint64_t v = random.Next();
    std::memcpy(bytes + i, &v, 8);
  }
  uint64_t tail = random.Next();
  std::memcpy(bytes + i, &tail, size - i);
}

void StampBlocks(void* data, size_t size, uint64_t serial) {
  auto* bytes = static_cast<unsigned char*>(data);
  constexpr size_t kStride = 4096;
  for (size_t at = 0; at + sizeof(serial) <= size; at += kStride) {
    uint64_t v = serial ^ (at * 0x9e3779b97f4a7c15ULL);
    std::memcpy(bytes + at, &v, sizeof(v));
  }
}

}  // namespace pglayout::probes
