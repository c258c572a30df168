// FAQ as JSON: an array of objects (or {"entries": [...]}), or JSON Lines with one object per
// line. Keys: question or questions, answer, and optionally id, title, tags, locale, label.
#include <boost/json.hpp>

#include <algorithm>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "core/text.h"
#include "core/utf8.h"
#include "kb/import/sources.h"

namespace supportd::kb {
namespace json = boost::json;
namespace {

int line_at(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + offset, '\n'));
}

std::size_t skip_space(std::string_view text, std::size_t i) {
  while (i < text.size() &&
         (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) {
    ++i;
  }
  return i;
}

// Byte offsets where the elements of the array starting at `i` begin. The text is known to be
// valid JSON, so only strings and nesting need tracking.
std::vector<std::size_t> element_offsets(std::string_view text, std::size_t i) {
  std::vector<std::size_t> offsets;
  ++i;  // '['
  int depth = 0;
  bool expect_element = true;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    if (depth == 0 && c == ']') break;
    if (depth == 0 && c == ',') {
      expect_element = true;
      continue;
    }
    if (expect_element && depth == 0) {
      offsets.push_back(i);
      expect_element = false;
    }
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') ++i;
      }
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return offsets;
}

// The offset of the first key that appears twice in one object of `text` (valid JSON), and the
// key; nothing when every object's keys are distinct. Boost.JSON keeps one of the two silently.
std::optional<std::pair<std::size_t, std::string>> duplicate_key(std::string_view text) {
  struct Frame {
    bool object = false;
    bool expect_key = false;
    std::set<std::string> keys;
  };
  std::vector<Frame> stack;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      const std::size_t start = i;
      bool escaped = false;
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') {
          escaped = true;
          ++i;
        }
      }
      if (stack.empty() || !stack.back().object || !stack.back().expect_key) continue;
      std::string key(text.substr(start + 1, i - start - 1));
      if (escaped) {  // compare what the escapes mean: "a" and "\u0061" are one key
        boost::system::error_code ec;
        const json::value decoded = json::parse(text.substr(start, i - start + 1), ec);
        if (!ec && decoded.is_string()) key = std::string(decoded.as_string());
      }
      stack.back().expect_key = false;
      if (!stack.back().keys.insert(key).second) return std::make_pair(start, key);
    } else if (c == '{' || c == '[') {
      stack.push_back({c == '{', c == '{', {}});
    } else if ((c == '}' || c == ']') && !stack.empty()) {
      stack.pop_back();
    } else if (c == ',' && !stack.empty() && stack.back().object) {
      stack.back().expect_key = true;
    }
  }
  return std::nullopt;
}

Result<json::value> parse_json(std::string_view text, const std::string& file, int first_line) {
  json::stream_parser parser;
  boost::system::error_code ec;
  const std::size_t used = parser.write_some(text.data(), text.size(), ec);
  if (!ec) parser.finish(ec);
  if (ec) {
    return Error::invalid(file + ":" + std::to_string(first_line + line_at(text, used) - 1) +
                          ": invalid JSON (" + ec.message() + ")");
  }
  if (const auto duplicate = duplicate_key(text)) {
    return Error::invalid(file + ":" +
                          std::to_string(first_line + line_at(text, duplicate->first) - 1) +
                          ": the key '" + duplicate->second + "' appears twice in one object");
  }
  return parser.release();
}

Result<std::string> string_field(const json::object& object, std::string_view key,
                                 const std::string& where) {
  const json::value* value = object.if_contains(key);
  if (value == nullptr || value->is_null()) return std::string();
  if (!value->is_string())
    return Error::invalid(where + ": '" + std::string(key) + "' must be a string");
  return std::string(trim(std::string_view(value->as_string())));
}

Result<std::vector<std::string>> string_list(const json::object& object, std::string_view key,
                                             const std::string& where) {
  std::vector<std::string> items;
  const json::value* value = object.if_contains(key);
  if (value == nullptr || value->is_null()) return items;
  if (value->is_string())
    return std::vector<std::string>{std::string(trim(std::string_view(value->as_string())))};
  if (!value->is_array()) {
    return Error::invalid(where + ": '" + std::string(key) + "' must be a list of strings");
  }
  for (const json::value& item : value->as_array()) {
    if (!item.is_string()) {
      return Error::invalid(where + ": '" + std::string(key) + "' must be a list of strings");
    }
    items.emplace_back(trim(std::string_view(item.as_string())));
  }
  return items;
}

Result<Entry> parse_object(const json::value& value, const std::string& file, int line,
                           std::set<std::string>& used_ids) {
  const std::string where = file + ":" + std::to_string(line);
  if (!value.is_object()) return Error::invalid(where + ": each FAQ must be a JSON object");
  const json::object& object = value.as_object();
  static const std::set<std::string_view> known = {"id",    "question", "questions", "answer",
                                                   "title", "tags",     "locale",    "label"};
  for (const auto& field : object) {
    if (known.count(field.key()) == 0) {
      return Error::invalid(where + ": unknown key '" + std::string(field.key()) +
                            "' (known: id, question, questions, answer, title, tags, locale, "
                            "label)");
    }
  }
  Entry entry;
  entry.kind = EntryKind::kFaq;
  entry.source = {file, line};
  auto questions = string_list(object, "questions", where);
  if (!questions) return questions.error();
  auto question = string_field(object, "question", where);
  if (!question) return question.error();
  if (!question->empty()) questions->insert(questions->begin(), *question);
  if (questions->empty()) return Error::invalid(where + ": the FAQ has no question");
  for (const std::string& text : *questions) {
    if (text.empty()) return Error::invalid(where + ": a question is empty");
    entry.questions.push_back({text, entry.source});
  }
  auto answer = string_field(object, "answer", where);
  if (!answer) return answer.error();
  if (answer->empty()) return Error::invalid(where + ": the answer is missing or empty");
  entry.answer = *answer;
  auto id = string_field(object, "id", where);
  auto title = string_field(object, "title", where);
  auto locale = string_field(object, "locale", where);
  auto label = string_field(object, "label", where);
  auto tags = string_list(object, "tags", where);
  for (const Error* error : {id ? nullptr : &id.error(), title ? nullptr : &title.error(),
                             locale ? nullptr : &locale.error(), label ? nullptr : &label.error(),
                             tags ? nullptr : &tags.error()}) {
    if (error != nullptr) return *error;
  }
  entry.title = title->empty() ? entry.questions.front().text : *title;
  if (id->empty()) {
    entry.id = unique_id("faq/" + slugify(entry.title), used_ids);
  } else {
    if (used_ids.count(*id) != 0) return Error::invalid(where + ": id '" + *id + "' appears twice");
    used_ids.insert(*id);
    entry.id = *id;
  }
  entry.label = label->empty() ? entry.id : *label;
  entry.locale = *locale;
  for (const std::string& tag : *tags) {
    if (!tag.empty()) entry.tags.push_back(tag);
  }
  return entry;
}

}  // namespace

Result<ParsedSource> parse_faq_json(std::string_view text, const std::string& file, bool lines) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  if (const std::size_t bad = first_invalid_utf8(text); bad != text.size()) {
    return Error::invalid(file + ":" + std::to_string(line_at(text, bad)) + ": invalid UTF-8");
  }
  ParsedSource parsed;
  parsed.file = file;
  parsed.format = SourceFormat::kFaqJson;
  std::set<std::string> used_ids;
  const auto add = [&](const json::value& value, int line) -> Status {
    ++parsed.records;
    auto entry = parse_object(value, file, line, used_ids);
    if (!entry) return entry.error();
    parsed.entries.push_back(std::move(*entry));
    return {};
  };
  if (lines) {
    int line = 0;
    std::size_t start = 0;
    while (start < text.size()) {
      std::size_t end = text.find('\n', start);
      if (end == std::string_view::npos) end = text.size();
      ++line;
      const std::string_view content = text.substr(start, end - start);
      start = end + 1;
      if (trim(content).empty()) continue;
      auto value = parse_json(content, file, line);
      if (!value) return value.error();
      if (Status status = add(*value, line); !status) return status.error();
    }
  } else {
    auto document = parse_json(text, file, 1);
    if (!document) return document.error();
    std::size_t array_start = skip_space(text, 0);
    const json::array* items = nullptr;
    if (document->is_array()) {
      items = &document->as_array();
    } else if (document->is_object() && document->as_object().if_contains("entries") &&
               document->as_object().at("entries").is_array()) {
      if (document->as_object().size() != 1) {
        return Error::invalid(file + ":1: the top-level object may only hold \"entries\"");
      }
      items = &document->as_object().at("entries").as_array();
      array_start = text.find('[');  // the only array at the top level
    } else {
      return Error::invalid(file + ":1: expected an array of FAQ objects or {\"entries\": [...]}");
    }
    const std::vector<std::size_t> offsets = element_offsets(text, array_start);
    for (std::size_t i = 0; i < items->size(); ++i) {
      const int line = i < offsets.size() ? line_at(text, offsets[i]) : 1;
      if (Status status = add((*items)[i], line); !status) return status.error();
    }
  }
  if (parsed.entries.empty()) return Error::invalid(file + ":1: the file holds no FAQ entries");
  return parsed;
}

}  // namespace supportd::kb
