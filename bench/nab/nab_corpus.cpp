// Reads NAB's labelled windows, profiles and a detector's score files into what the scorer takes.
#include "nab/nab_corpus.h"

#include <fmt/format.h>
#include <boost/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "obs/anomaly/series_csv.h"

namespace supportd::bench::nab {
namespace {

namespace json = boost::json;

Result<json::value> read_json(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::make(ErrorCode::kIo, "cannot open " + path);
  std::stringstream text;
  text << in.rdbuf();
  boost::system::error_code error;
  json::value value = json::parse(text.str(), error);
  if (error) return Error::make(ErrorCode::kCorrupt, path + ": " + error.message());
  return value;
}

Result<double> json_number(const json::value& value, const std::string& what) {
  if (value.is_double()) return value.get_double();
  if (value.is_int64()) return static_cast<double>(value.get_int64());
  if (value.is_uint64()) return static_cast<double>(value.get_uint64());
  return Error::make(ErrorCode::kCorrupt, what + " is not a number");
}

// The first row whose timestamp is `text` (as NAB's list.index finds it: a file may repeat an
// hour where a local clock was set back).
Result<std::size_t> row_at(const std::vector<double>& seconds, const std::string& text,
                           const std::string& file) {
  const auto wanted = obs::anomaly::parse_timestamp(text);
  if (!wanted) return Error::make(ErrorCode::kCorrupt, file + ": bad window edge " + text);
  const auto found = std::find(seconds.begin(), seconds.end(), *wanted);
  if (found == seconds.end()) {
    return Error::make(ErrorCode::kCorrupt,
                       file + ": the window edge " + text + " is no row's timestamp");
  }
  return static_cast<std::size_t>(found - seconds.begin());
}

Result<ScoredFile> read_scored_file(const std::string& name, const json::value& windows,
                                    const ScoresLayout& layout) {
  const std::filesystem::path relative(name);
  const std::string path = (std::filesystem::path(layout.directory) / relative.parent_path() /
                            (layout.prefix + relative.filename().string()))
                               .string();
  auto reader = obs::anomaly::SeriesReader::open(path, layout.column);
  if (!reader) return reader.error();
  ScoredFile file;
  file.name = name;
  std::vector<double> seconds;
  while (true) {
    auto point = reader->next();
    if (!point) return point.error();
    if (!*point) break;
    file.anomaly_scores.push_back((*point)->value);
    seconds.push_back((*point)->seconds);
  }
  if (!windows.is_array()) return Error::make(ErrorCode::kCorrupt, name + ": windows not a list");
  for (const json::value& window : windows.as_array()) {
    if (!window.is_array() || window.as_array().size() != 2 || !window.at(0).is_string() ||
        !window.at(1).is_string()) {
      return Error::make(ErrorCode::kCorrupt, name + ": a window is not [start, end]");
    }
    auto first = row_at(seconds, std::string(window.at(0).as_string()), name);
    if (!first) return first.error();
    auto last = row_at(seconds, std::string(window.at(1).as_string()), name);
    if (!last) return last.error();
    if (*last < *first || (!file.windows.empty() && *first <= file.windows.back().last))
      return Error::make(ErrorCode::kCorrupt, name + ": windows out of order or overlapping");
    file.windows.push_back({*first, *last});
  }
  return file;
}

}  // namespace

Result<std::map<std::string, CostMatrix>> read_profiles(const std::string& path) {
  auto document = read_json(path);
  if (!document) return document.error();
  if (!document->is_object()) return Error::make(ErrorCode::kCorrupt, path + ": not an object");
  std::map<std::string, CostMatrix> profiles;
  for (const auto& [name, profile] : document->as_object()) {
    const std::string where = fmt::format("{}: profile {}", path, std::string(name));
    const json::object* matrix = nullptr;
    if (profile.is_object() && profile.as_object().contains("CostMatrix") &&
        profile.at("CostMatrix").is_object())
      matrix = &profile.at("CostMatrix").as_object();
    if (!matrix) return Error::make(ErrorCode::kCorrupt, where + " has no CostMatrix");
    CostMatrix cost;
    for (auto [key, field] :
         {std::pair{"tpWeight", &cost.true_positive}, std::pair{"fpWeight", &cost.false_positive},
          std::pair{"fnWeight", &cost.false_negative}}) {
      if (!matrix->contains(key)) return Error::make(ErrorCode::kCorrupt, where + " lacks " + key);
      auto number = json_number(matrix->at(key), where + " " + key);
      if (!number) return number.error();
      *field = *number;
    }
    profiles.emplace(std::string(name), cost);
  }
  return profiles;
}

Result<std::vector<ScoredFile>> read_corpus(const std::string& windows_path,
                                            const ScoresLayout& layout) {
  auto document = read_json(windows_path);
  if (!document) return document.error();
  if (!document->is_object())
    return Error::make(ErrorCode::kCorrupt, windows_path + ": not an object");
  std::vector<std::string> names;
  for (const auto& entry : document->as_object())
    names.emplace_back(entry.key());
  std::sort(names.begin(), names.end());
  std::vector<ScoredFile> files;
  for (const std::string& name : names) {
    auto file = read_scored_file(name, document->at(name), layout);
    if (!file) return file.error();
    files.push_back(std::move(*file));
  }
  return files;
}

std::string family_of(const std::string& file_name) {
  return file_name.substr(0, file_name.find('/'));
}

}  // namespace supportd::bench::nab
