#include "migrator/logical_decode.h"

#include <fmt/format.h>

#include <map>
#include <optional>

namespace pglayout::migrator {
namespace {

// A column of a tuple: 'n' NULL, 'u' unchanged TOAST value, 't' text.
struct TupleValue {
  char kind = 'n';
  std::string text;
};

// Reads one message front to back; any read past its end sets failed().
class Reader {
 public:
  explicit Reader(const std::string& bytes) : bytes_(bytes) {}

  bool failed() const { return failed_; }
  void Fail() { failed_ = true; }

  char Byte() {
    if (!Need(1)) return 0;
    return bytes_[pos_++];
  }
  uint64_t Unsigned(int width) {
    if (!Need(static_cast<size_t>(width))) return 0;
    uint64_t v = 0;
    for (int i = 0; i < width; ++i) {
      v = (v << 8) | static_cast<unsigned char>(bytes_[pos_++]);
    }
    return v;
  }
  void Skip(size_t n) {
    if (Need(n)) pos_ += n;
  }
  // A NUL-terminated string.
  std::string CString() {
    size_t end = bytes_.find('\0', pos_);
    if (failed_ || end == std::string::npos) {
      failed_ = true;
      return "";
    }
    std::string out = bytes_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return out;
  }
  std::string Bytes(size_t n) {
    if (!Need(n)) return "";
    std::string out = bytes_.substr(pos_, n);
    pos_ += n;
    return out;
  }

 private:
  bool Need(size_t n) {
    if (failed_ || bytes_.size() - pos_ < n) failed_ = true;
    return !failed_;
  }

  const std::string& bytes_;
  size_t pos_ = 0;
  bool failed_ = false;
};

// TupleData: Int16 count, then per column 'n', 'u' or 't' + Int32 + bytes.
std::vector<TupleValue> ReadTuple(Reader* in) {
  std::vector<TupleValue> out(in->Unsigned(2));
  for (TupleValue& v : out) {
    v.kind = in->Byte();
    if (v.kind == 't' || v.kind == 'b') {
      v.text = in->Bytes(static_cast<size_t>(in->Unsigned(4)));
    } else if (v.kind != 'n' && v.kind != 'u') {
      in->Fail();
    }
    if (in->failed()) break;
  }
  return out;
}

// Relation: Int32 oid, namespace, name, Int8 identity, Int16 columns, each
// Int8 flags, name, Int32 type, Int32 typmod. Returns the column names.
std::vector<std::string> ReadRelation(Reader* in, uint32_t* oid) {
  *oid = static_cast<uint32_t>(in->Unsigned(4));
  in->CString();
  in->CString();
  in->Byte();
  std::vector<std::string> columns(in->Unsigned(2));
  for (std::string& name : columns) {
    in->Byte();
    name = in->CString();
    in->Skip(8);
    if (in->failed()) break;
  }
  return columns;
}

// The key of |tuple| by |positions|; nullopt (and *why) if it has none.
std::optional<DecodedKey> KeyOf(const std::vector<TupleValue>& tuple,
                                const std::vector<size_t>& positions,
                                std::string* why) {
  DecodedKey key;
  for (size_t p : positions) {
    if (p >= tuple.size()) {
      *why = "a key column is missing from the decoded row";
      return std::nullopt;
    }
    const TupleValue& v = tuple[p];
    if (v.kind != 't') {
      *why = v.kind == 'u' ? "a key column is an unchanged TOAST value"
                           : "a key column is NULL";
      return std::nullopt;
    }
    key.push_back(v.text);
  }
  return key;
}

// One change message of our relation (|tag| I, U or D): its keys.
Status ReadChange(char tag, Reader* in, const std::vector<size_t>& positions,
                  std::vector<DecodedKey>* keys) {
  std::string why;
  char part = in->Byte();
  bool had_old = false;
  if (tag != 'I' && (part == 'K' || part == 'O')) {
    std::optional<DecodedKey> old = KeyOf(ReadTuple(in), positions, &why);
    if (!old)
      return Status::Aborted("cannot read a changed row's old key: " + why);
    keys->push_back(*old);
    had_old = true;
    if (tag == 'U') part = in->Byte();
  }
  if (tag == 'D') {
    if (!had_old) return Status::Aborted("cannot read a deleted row's key");
    return Status::Ok();
  }
  if (part != 'N') return Status::Internal("a change message has no new row");
  std::optional<DecodedKey> now = KeyOf(ReadTuple(in), positions, &why);
  if (now) {
    keys->push_back(*now);
  } else if (!had_old) {
    // An unchanged key that is an external TOAST value comes as the old
    // key; without one, the row's key is unknown.
    return Status::Aborted("cannot read a changed row's key: " + why);
  }
  return Status::Ok();
}

// The positions of |key_columns| among |columns|.
Status KeyPositions(const std::vector<std::string>& columns,
                    const std::vector<std::string>& key_columns,
                    std::vector<size_t>* positions) {
  positions->clear();
  for (const std::string& k : key_columns) {
    size_t p = 0;
    while (p < columns.size() && columns[p] != k) ++p;
    if (p == columns.size()) {
      return Status::Aborted(fmt::format(
          "cannot find key column {} among the decoded columns (was it "
          "renamed?)",
          k));
    }
    positions->push_back(p);
  }
  return Status::Ok();
}

}  // namespace

ChangeDecoder::ChangeDecoder(uint32_t oid, std::vector<std::string> key_columns)
    : oid_(oid), key_columns_(std::move(key_columns)) {}

Status ChangeDecoder::Add(const std::string& message,
                          std::vector<DecodedKey>* keys, Lsn* commit_end) {
  Reader in(message);
  char tag = in.Byte();
  Status st;
  if (tag == 'R') {
    uint32_t rel = 0;
    std::vector<std::string> columns = ReadRelation(&in, &rel);
    if (rel == oid_ && !in.failed()) {
      st = KeyPositions(columns, key_columns_, &positions_);
      described_ = st.ok();
    }
  } else if (tag == 'I' || tag == 'U' || tag == 'D') {
    uint32_t rel = static_cast<uint32_t>(in.Unsigned(4));
    if (rel != oid_) return Status::Ok();
    if (!described_) {
      return Status::Internal(
          "a decoded change came before its relation's description");
    }
    st = ReadChange(tag, &in, positions_, keys);
  } else if (tag == 'T') {
    uint32_t count = static_cast<uint32_t>(in.Unsigned(4));
    in.Byte();
    for (uint32_t i = 0; i < count && !in.failed(); ++i) {
      if (static_cast<uint32_t>(in.Unsigned(4)) == oid_ && !in.failed()) {
        return Status::Aborted(
            "the table was truncated during the copy; the copy is stale");
      }
    }
  } else if (tag == 'C') {
    in.Byte();       // flags
    in.Unsigned(8);  // the commit record's position
    const Lsn end = in.Unsigned(8);
    if (!in.failed()) *commit_end = end;
  }
  PGLAYOUT_RETURN_IF_ERROR(st);
  if (in.failed()) {
    return Status::Internal(
        fmt::format("could not decode a pgoutput message of type '{}' ({} "
                    "bytes)",
                    tag, message.size()));
  }
  return Status::Ok();
}

}  // namespace pglayout::migrator
