// WellFormedXml: a small checker of the XML that blobtune writes (SVG, XHTML-like status page
// fragments): balanced tags, quoted attributes, only the five named entities and numeric ones,
// no raw '<' or '&' in text. Not a full XML parser; enough to catch a missing escape or an
// unclosed element. Returns "" when well formed, else what is wrong and where.
#ifndef BLOBTUNE_TESTS_METRICS_XML_CHECK_H_
#define BLOBTUNE_TESTS_METRICS_XML_CHECK_H_

#include <cctype>
#include <string>
#include <string_view>
#include <vector>

namespace blobtune::testing {

inline std::string WellFormedXml(std::string_view xml) {
  std::vector<std::string> open;
  size_t i = 0;
  auto at = [&](size_t pos) { return " at offset " + std::to_string(pos); };
  auto entity_ok = [&](size_t pos) {
    const size_t end = xml.find(';', pos);
    if (end == std::string_view::npos || end - pos > 10) return false;
    const std::string_view name = xml.substr(pos + 1, end - pos - 1);
    if (name == "amp" || name == "lt" || name == "gt" || name == "quot" || name == "apos") {
      return true;
    }
    if (name.size() < 2 || name[0] != '#') return false;
    for (size_t k = 1; k < name.size(); ++k) {
      if (!std::isdigit(static_cast<unsigned char>(name[k]))) return false;
    }
    return true;
  };
  size_t roots = 0;
  while (i < xml.size()) {
    const char c = xml[i];
    if (c == '&') {
      if (!entity_ok(i)) return "bad entity" + at(i);
      ++i;
      continue;
    }
    if (c == '>') return "raw '>' in text" + at(i);
    if (c != '<') {
      ++i;
      continue;
    }
    if (xml.substr(i, 4) == "<!--") {
      const size_t end = xml.find("-->", i);
      if (end == std::string_view::npos) return "unclosed comment" + at(i);
      i = end + 3;
      continue;
    }
    if (xml.substr(i, 2) == "<?" || xml.substr(i, 2) == "<!") {
      const size_t end = xml.find('>', i);
      if (end == std::string_view::npos) return "unclosed declaration" + at(i);
      i = end + 1;
      continue;
    }
    const bool closing = i + 1 < xml.size() && xml[i + 1] == '/';
    size_t k = i + (closing ? 2 : 1);
    const size_t name_start = k;
    while (k < xml.size() && (std::isalnum(static_cast<unsigned char>(xml[k])) || xml[k] == '-' ||
                              xml[k] == ':' || xml[k] == '_')) {
      ++k;
    }
    const std::string name(xml.substr(name_start, k - name_start));
    if (name.empty()) return "tag without a name" + at(i);
    if (closing) {
      if (k >= xml.size() || xml[k] != '>') return "bad closing tag" + at(i);
      if (open.empty() || open.back() != name) return "unbalanced </" + name + ">" + at(i);
      open.pop_back();
      i = k + 1;
      continue;
    }
    // Attributes: name='value' or name="value", values without '<' and with valid entities.
    bool self_closing = false;
    while (true) {
      while (k < xml.size() && std::isspace(static_cast<unsigned char>(xml[k]))) ++k;
      if (k >= xml.size()) return "unclosed tag <" + name + ">" + at(i);
      if (xml[k] == '>') break;
      if (xml.substr(k, 2) == "/>") {
        self_closing = true;
        ++k;
        break;
      }
      const size_t attr = k;
      while (k < xml.size() && xml[k] != '=' && !std::isspace(static_cast<unsigned char>(xml[k])) &&
             xml[k] != '>') {
        ++k;
      }
      if (k == attr || k >= xml.size() || xml[k] != '=')
        return "attribute without value" + at(attr);
      ++k;
      if (k >= xml.size() || (xml[k] != '\'' && xml[k] != '"')) {
        return "unquoted attribute" + at(k);
      }
      const char quote = xml[k];
      const size_t end = xml.find(quote, k + 1);
      if (end == std::string_view::npos) return "unclosed attribute" + at(k);
      for (size_t v = k + 1; v < end; ++v) {
        if (xml[v] == '<') return "raw '<' in an attribute" + at(v);
        if (xml[v] == '&' && !entity_ok(v)) return "bad entity in an attribute" + at(v);
      }
      k = end + 1;
    }
    if (!self_closing) {
      if (open.empty()) ++roots;
      open.push_back(name);
    } else if (open.empty()) {
      ++roots;
    }
    i = k + 1;
  }
  if (!open.empty()) return "unclosed <" + open.back() + ">";
  if (roots != 1) return "expected one root element, found " + std::to_string(roots);
  return "";
}

}  // namespace blobtune::testing

#endif  // BLOBTUNE_TESTS_METRICS_XML_CHECK_H_
