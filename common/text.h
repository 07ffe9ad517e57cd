// Text as it reaches a file or a person: UTF-8 checked, bytes that are not
// UTF-8 escaped as \xE9, and control characters (C0, DEL, C1, bidirectional
// overrides) escaped as \u001B so that no name can move the cursor, ring the
// bell or reorder what a terminal shows. The escapes read back in TOML and
// JSON strings to the same character, so they are safe inside either.

#ifndef PGLAYOUT_COMMON_TEXT_H_
#define PGLAYOUT_COMMON_TEXT_H_

#include <cstddef>
#include <memory>
#include <streambuf>
#include <string>
#include <string_view>

namespace pglayout {

// True if |text| is well-formed UTF-8 (no overlongs, surrogates or code
// points above U+10FFFF).
bool IsValidUtf8(std::string_view text);

// |text| with every byte that is not part of a well-formed UTF-8 sequence
// written as \xNN; valid text is returned unchanged.
std::string EscapeInvalidUtf8(std::string_view text);

// ISO 8859-1 bytes as UTF-8 (every byte is the code point of its value).
std::string Latin1ToUtf8(std::string_view text);

// A name (table, schema, file, key) as shown to a person: invalid bytes as
// \xNN, control and bidirectional characters as \uNNNN (newline and tab
// included), cut after |max_bytes| bytes with "..." (0 = never cut).
std::string DisplayName(std::string_view name, size_t max_bytes = 0);

// Running text for a terminal: as DisplayName, but newline and tab stay.
std::string TerminalText(std::string_view text);

// A streambuf that passes whole lines of text through TerminalText to
// |target|; what is left without a newline goes out on sync().
class TerminalTextBuf : public std::streambuf {
 public:
  explicit TerminalTextBuf(std::streambuf* target) : target_(target) {}
  ~TerminalTextBuf() override;

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  void FlushLines();
  std::streambuf* target_;
  std::string pending_;
};

}  // namespace pglayout

#endif  // PGLAYOUT_COMMON_TEXT_H_
