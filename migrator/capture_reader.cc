#include "migrator/capture_reader.h"

#include <utility>

namespace pglayout::migrator {
namespace {

// How long a read waits for a message before it asks the server for a
// keepalive again (its sent position), in milliseconds.
constexpr int kAskEveryMs = 500;

}  // namespace

CaptureReader::CaptureReader(uint32_t oid, std::vector<std::string> key_columns,
                             Opener open)
    : oid_(oid), key_columns_(std::move(key_columns)), open_(std::move(open)) {}

Status CaptureReader::Open() {
  stream_.reset();
  PGLAYOUT_RETURN_IF_ERROR(open_(&stream_));
  decoder_ = std::make_unique<ChangeDecoder>(oid_, key_columns_);
  return Status::Ok();
}

Status CaptureReader::Take(const StreamMessage& message, Lsn upto,
                           bool* reached) {
  if (message.kind == StreamMessage::Kind::kKeepalive) {
    // The server has read and sent everything up to its sent position.
    if (message.position >= upto) *reached = true;
    if (message.reply_requested) {
      PGLAYOUT_RETURN_IF_ERROR(stream_->Confirm(confirmed_, false));
    }
    return Status::Ok();
  }
  std::vector<DecodedKey> keys;
  Lsn commit_end = 0;
  PGLAYOUT_RETURN_IF_ERROR(decoder_->Add(message.data, &keys, &commit_end));
  pending_.insert(keys.begin(), keys.end());
  // Commits come in the order of their WAL: every earlier one is read.
  if (commit_end >= upto) *reached = true;
  return Status::Ok();
}

Status CaptureReader::ReadUpTo(Lsn upto) {
  if (upto <= read_) return Status::Ok();
  bool reopened = false;
  Status st;
  for (;;) {
    if (!stream_) PGLAYOUT_RETURN_IF_ERROR(Open());
    // Ask for the server's position now rather than at its next keepalive:
    // our confirmed position is behind what it sent, so it answers.
    st = stream_->Confirm(confirmed_, true);
    bool reached = false;
    while (st.ok() && !reached) {
      StreamMessage message;
      bool got = false;
      st = stream_->Receive(kAskEveryMs, &message, &got);
      if (st.ok() && got) {
        st = Take(message, upto, &reached);
      } else if (st.ok()) {
        st = stream_->Confirm(confirmed_, true);
      }
    }
    if (st.ok()) break;
    if (st.code() != Status::Code::kUnavailable || reopened) return st;
    reopened = true;
    stream_.reset();
  }
  read_ = upto;
  return Status::Ok();
}

Status CaptureReader::Confirm() {
  pending_.clear();
  if (read_ <= confirmed_ || !stream_) return Status::Ok();
  Status st = stream_->Confirm(read_, false);
  if (st.ok()) {
    confirmed_ = read_;
  } else if (st.code() == Status::Code::kUnavailable) {
    // The slot stays where it was: a new stream gives the keys again,
    // which the log already holds.
    stream_.reset();
    return Status::Ok();
  }
  return st;
}

}  // namespace pglayout::migrator
