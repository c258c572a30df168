// The generation directory (kb_files.h): CURRENT read and replaced atomically, generations
// numbered, entries.jsonl and vectors.bin written and read back with every field checked,
// file hashes.
#include "kb/files/kb_files.h"

#include <boost/json.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>

#include "core/read_file.h"
#include "core/temp_file.h"
#include "core/text.h"
#include "kb/files/json_reader.h"

namespace supportd::kb {
namespace json = boost::json;
namespace fs = std::filesystem;
namespace {

constexpr char kVectorMagic[8] = {'S', 'K', 'B', 'V', 'E', 'C', '1', '\0'};
constexpr std::string_view kGenerationPrefix = "gen-";

std::string location_string(const SourceLocation& location) {
  return location.file + ":" + std::to_string(location.line);
}

Result<SourceLocation> location_from(std::string_view text, const std::string& where) {
  const std::size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) {
    return Error::make(ErrorCode::kCorrupt,
                       where + ": source '" + std::string(text) + "' is not file:line");
  }
  SourceLocation location;
  location.file = std::string(text.substr(0, colon));
  try {
    location.line = std::stoi(std::string(text.substr(colon + 1)));
  } catch (const std::exception&) {
    return Error::make(ErrorCode::kCorrupt,
                       where + ": source '" + std::string(text) + "' is not file:line");
  }
  return location;
}

Result<EntryKind> kind_from(std::string_view name, const std::string& where) {
  for (EntryKind kind : {EntryKind::kArticle, EntryKind::kFaq, EntryKind::kIntent}) {
    if (name == entry_kind_name(kind)) return kind;
  }
  return Error::make(ErrorCode::kCorrupt, where + ": unknown kind '" + std::string(name) + "'");
}

}  // namespace

Result<std::string> current_generation(const std::string& dir) {
  const fs::path current = fs::path(dir) / "CURRENT";
  if (!fs::exists(fs::path(dir))) {
    return Error::make(ErrorCode::kNotFound, dir + ": no such knowledge-base directory");
  }
  auto text = read_text_file(current.string());
  if (!text) {
    return Error::make(ErrorCode::kNotFound,
                       dir + ": not a knowledge base (no CURRENT file; run supportd kb import)");
  }
  std::string name(trim(*text));
  static const std::regex pattern("gen-[0-9]{6}");
  if (!std::regex_match(name, pattern)) {
    return Error::make(ErrorCode::kCorrupt,
                       current.string() + ":1: expected a generation name like gen-000001");
  }
  const fs::path generation = fs::path(dir) / name;
  if (!fs::is_directory(generation)) {
    return Error::make(ErrorCode::kCorrupt,
                       current.string() + ":1: names " + name + ", which does not exist");
  }
  return generation.string();
}

Result<std::pair<std::string, int>> next_generation(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Error::make(ErrorCode::kIo, dir + ": cannot create (" + ec.message() + ")");
  int highest = 0;
  for (const auto& item : fs::directory_iterator(dir, ec)) {
    const std::string name = item.path().filename().string();
    if (name.starts_with(kGenerationPrefix) && name.size() == 10) {
      try {
        highest = std::max(highest, std::stoi(name.substr(4)));
      } catch (const std::exception&) {
      }
    }
  }
  if (ec) return Error::make(ErrorCode::kIo, dir + ": cannot list (" + ec.message() + ")");
  char name[16];
  std::snprintf(name, sizeof name, "gen-%06d", highest + 1);
  return std::make_pair(std::string(name), highest + 1);
}

Status publish_generation(const std::string& dir, const std::string& generation_name) {
  std::string previous;
  if (auto current = current_generation(dir); current.ok()) {
    previous = fs::path(*current).filename().string();
  }
  if (Status status =
          write_file_atomically((fs::path(dir) / "CURRENT").string(), generation_name + "\n");
      !status) {
    return status;
  }
  // Keep the new and the previous generation (a reader may still be loading it).
  std::error_code ec;
  for (const auto& item : fs::directory_iterator(dir, ec)) {
    const std::string name = item.path().filename().string();
    if (name.starts_with(kGenerationPrefix) && name != generation_name && name != previous) {
      fs::remove_all(item.path(), ec);
    }
  }
  return {};
}

Status write_entries(const std::string& path, const std::vector<Entry>& entries) {
  std::string content;
  for (const Entry& entry : entries) {
    json::array tags;
    for (const auto& tag : entry.tags)
      tags.push_back(json::string(tag));
    json::array questions;
    for (const auto& question : entry.questions) {
      questions.push_back({{"text", question.text}, {"source", location_string(question.source)}});
    }
    json::object object{{"id", entry.id},         {"kind", entry_kind_name(entry.kind)},
                        {"title", entry.title},   {"answer", entry.answer},
                        {"label", entry.label},   {"tags", tags},
                        {"locale", entry.locale}, {"source", location_string(entry.source)},
                        {"questions", questions}};
    content += json::serialize(object);
    content += '\n';
  }
  return write_file_atomically(path, content);
}

Result<std::vector<Entry>> read_entries(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::make(ErrorCode::kIo, path + ": cannot open");
  std::vector<Entry> entries;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    const std::string where = path + ":" + std::to_string(number);
    boost::system::error_code ec;
    json::value value = json::parse(line, ec);
    if (ec || !value.is_object()) {
      return Error::make(ErrorCode::kCorrupt, where + ": not a JSON object");
    }
    JsonReader reader(value.as_object(), where);
    Entry entry;
    std::string text;
    KB_READ(entry.id, reader.string("id"));
    KB_READ(text, reader.string("kind"));
    KB_READ(entry.kind, kind_from(text, where));
    KB_READ(entry.title, reader.string("title"));
    KB_READ(entry.answer, reader.string("answer"));
    KB_READ(entry.label, reader.string("label"));
    KB_READ(entry.locale, reader.string("locale"));
    KB_READ(text, reader.string("source"));
    KB_READ(entry.source, location_from(text, where));
    const json::array* tags = nullptr;
    KB_READ(tags, reader.array("tags"));
    for (const json::value& tag : *tags) {
      if (!tag.is_string())
        return Error::make(ErrorCode::kCorrupt, where + ": a tag is not a string");
      entry.tags.emplace_back(tag.as_string());
    }
    const json::array* questions = nullptr;
    KB_READ(questions, reader.array("questions"));
    for (const json::value& item : *questions) {
      if (!item.is_object()) return Error::make(ErrorCode::kCorrupt, where + ": bad question");
      JsonReader q(item.as_object(), where);
      Question question;
      KB_READ(question.text, q.string("text"));
      KB_READ(text, q.string("source"));
      KB_READ(question.source, location_from(text, where));
      entry.questions.push_back(std::move(question));
    }
    if (entry.id.empty()) return Error::make(ErrorCode::kCorrupt, where + ": empty id");
    if (entry.questions.empty() && entry.answer.empty()) {
      return Error::make(ErrorCode::kCorrupt, where + ": entry has neither questions nor answer");
    }
    entries.push_back(std::move(entry));
  }
  if (entries.empty()) return Error::make(ErrorCode::kCorrupt, path + ": no entries");
  return entries;
}

Status write_vectors(const std::string& path, const StoredVectors& vectors) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  const std::uint32_t header[3] = {static_cast<std::uint32_t>(vectors.dimensions),
                                   static_cast<std::uint32_t>(vectors.document_of_row.size()),
                                   static_cast<std::uint32_t>(vectors.documents)};
  out.write(kVectorMagic, sizeof kVectorMagic);
  out.write(reinterpret_cast<const char*>(header), sizeof header);
  for (int document : vectors.document_of_row) {
    const auto value = static_cast<std::uint32_t>(document);
    out.write(reinterpret_cast<const char*>(&value), sizeof value);
  }
  out.write(reinterpret_cast<const char*>(vectors.values.data()),
            static_cast<std::streamsize>(vectors.values.size() * sizeof(float)));
  if (!out) return Error::make(ErrorCode::kIo, path + ": cannot write vectors");
  return {};
}

Result<StoredVectors> read_vectors(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::make(ErrorCode::kIo, path + ": cannot open");
  char magic[sizeof kVectorMagic] = {};
  std::uint32_t header[3] = {};
  in.read(magic, sizeof magic);
  in.read(reinterpret_cast<char*>(header), sizeof header);
  if (!in || std::memcmp(magic, kVectorMagic, sizeof magic) != 0 || header[0] == 0 ||
      header[0] > 65536 || header[1] > header[2] || header[2] > (1u << 28)) {
    return Error::make(ErrorCode::kCorrupt, path + ": not a vector file");
  }
  // The header's sizes must match the file's before anything is allocated from them.
  const std::uintmax_t expected =
      sizeof kVectorMagic + sizeof header +
      std::uintmax_t{header[1]} *
          (sizeof(std::uint32_t) + std::uintmax_t{header[0]} * sizeof(float));
  std::error_code ec;
  if (const std::uintmax_t size = fs::file_size(path, ec); ec || size != expected) {
    return Error::make(ErrorCode::kCorrupt,
                       path + ": " + std::to_string(size) + " bytes, its header implies " +
                           std::to_string(expected) + " (truncated or damaged)");
  }
  StoredVectors vectors;
  vectors.dimensions = static_cast<int>(header[0]);
  vectors.documents = static_cast<int>(header[2]);
  vectors.document_of_row.resize(header[1]);
  for (int& document : vectors.document_of_row) {
    std::uint32_t value = 0;
    in.read(reinterpret_cast<char*>(&value), sizeof value);
    if (value >= header[2]) return Error::make(ErrorCode::kCorrupt, path + ": bad document index");
    document = static_cast<int>(value);
  }
  vectors.values.resize(static_cast<std::size_t>(header[0]) * header[1]);
  in.read(reinterpret_cast<char*>(vectors.values.data()),
          static_cast<std::streamsize>(vectors.values.size() * sizeof(float)));
  if (!in || in.peek() != std::char_traits<char>::eof()) {
    return Error::make(ErrorCode::kCorrupt, path + ": truncated or oversized vector file");
  }
  for (float value : vectors.values) {
    if (!std::isfinite(value))
      return Error::make(ErrorCode::kCorrupt, path + ": a vector has a value that is not finite");
  }
  return vectors;
}

std::string classifier_file(std::size_t index) {
  return "classifier-" + std::to_string(index + 1) + ".bin";
}

Result<std::string> file_hash(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::make(ErrorCode::kIo, path + ": cannot open");
  std::uint64_t hash = 1469598103934665603ull;
  char buffer[65536];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    for (std::streamsize i = 0; i < in.gcount(); ++i) {
      hash ^= static_cast<unsigned char>(buffer[i]);
      hash *= 1099511628211ull;
    }
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return std::string(text);
}

}  // namespace supportd::kb
