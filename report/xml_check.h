// Test support: parses a report page with libxml2's strict XML parser (no
// recovery, no network, no entity expansion from outside) and answers
// XPath questions about it. A page that is not well-formed fails to parse,
// which is how the tests prove that no input can break the markup.

#ifndef PGLAYOUT_REPORT_XML_CHECK_H_
#define PGLAYOUT_REPORT_XML_CHECK_H_

#include <memory>
#include <string>
#include <vector>

namespace pglayout::report::testing {

class XmlPage {
 public:
  // Parses |text|; on failure returns null and stores libxml2's first
  // error (with line and column) in *error.
  static std::unique_ptr<XmlPage> Parse(const std::string& text,
                                        std::string* error);
  ~XmlPage();

  // Number of nodes matching |xpath|. Prefixes: h = XHTML, s = SVG.
  int Count(const std::string& xpath) const;
  // The text content of every node matching |xpath|, in document order.
  std::vector<std::string> Texts(const std::string& xpath) const;
  // All text of the page, concatenated.
  std::string AllText() const;

 private:
  XmlPage() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pglayout::report::testing

#endif  // PGLAYOUT_REPORT_XML_CHECK_H_
