// Markup: builds the report's HTML and SVG, well-formed by construction.
// Tag and attribute names are program constants (never input text); values
// and text are always escaped, and invalid UTF-8 and control characters
// become U+FFFD; Finish() closes what is open; void elements are
// self-closed, so the page parses as XML too. Trusted() is for the report's
// own constant CSS only. Why: docs/report.md#well-formed-by-construction.

#ifndef PGLAYOUT_REPORT_MARKUP_H_
#define PGLAYOUT_REPORT_MARKUP_H_

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pglayout::report {

// One attribute: name (a program constant) and value (any text).
using Attr = std::pair<std::string_view, std::string>;
using Attrs = std::initializer_list<Attr>;

// Text escaped for use in element content and in quoted attribute values.
std::string Escape(std::string_view text);

class Markup {
 public:
  // <tag attrs>; the element stays open until the matching Close().
  void Open(std::string_view tag, Attrs attrs = {});
  void Open(std::string_view tag, const std::vector<Attr>& attrs);
  // Closes the innermost open element. Closing with nothing open is a
  // programming error and is ignored (the output stays well-formed).
  void Close();
  // <tag attrs/>: an element without content.
  void Empty(std::string_view tag, Attrs attrs = {});
  void Empty(std::string_view tag, const std::vector<Attr>& attrs);
  // Escaped text inside the current element.
  void Text(std::string_view text);
  // <tag attrs>text</tag>.
  void Element(std::string_view tag, Attrs attrs, std::string_view text);
  void Element(std::string_view tag, std::string_view text) {
    Element(tag, {}, text);
  }
  // Appends |markup| as is. Only for constant text written in this program.
  void Trusted(std::string_view markup);
  // Appends another builder's finished output (already escaped).
  void Append(Markup&& other);

  int depth() const { return static_cast<int>(open_.size()); }
  // Closes every open element and returns the markup.
  std::string Finish();

 private:
  void WriteStart(std::string_view tag, const Attr* begin, const Attr* end);
  std::string out_;
  std::vector<std::string> open_;
};

}  // namespace pglayout::report

#endif  // PGLAYOUT_REPORT_MARKUP_H_
