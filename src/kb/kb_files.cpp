#include "kb/kb_files.h"

#include <boost/json.hpp>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>

#include "kb/csv.h"
#include "kb/sources.h"

namespace supportd::kb {
namespace json = boost::json;
namespace fs = std::filesystem;
namespace {

constexpr char kVectorMagic[8] = {'S', 'K', 'B', 'V', 'E', 'C', '1', '\0'};
constexpr std::string_view kGenerationPrefix = "gen-";

Status write_file_atomically(const std::string& path, const std::string& content) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << content;
    out.flush();
    if (!out) return Error::make(ErrorCode::kIo, temporary + ": cannot write");
  }
  std::error_code ec;
  fs::rename(temporary, path, ec);
  if (ec) return Error::make(ErrorCode::kIo, path + ": cannot replace (" + ec.message() + ")");
  return {};
}

// Field access that names the file and key in its errors.
class Reader {
 public:
  Reader(const json::object& object, std::string where)
      : object_(&object), where_(std::move(where)) {}

  const json::value* find(std::string_view key) const { return object_->if_contains(key); }

  Result<double> number(std::string_view key) const {
    const json::value* value = find(key);
    if (value == nullptr || !value->is_number()) return missing(key, "a number");
    return value->to_number<double>();
  }
  Result<int> integer(std::string_view key) const {
    const json::value* value = find(key);
    if (value == nullptr || !(value->is_int64() || value->is_uint64())) {
      return missing(key, "an integer");
    }
    return static_cast<int>(value->to_number<std::int64_t>());
  }
  Result<bool> boolean(std::string_view key) const {
    const json::value* value = find(key);
    if (value == nullptr || !value->is_bool()) return missing(key, "true or false");
    return value->as_bool();
  }
  Result<std::string> string(std::string_view key) const {
    const json::value* value = find(key);
    if (value == nullptr || !value->is_string()) return missing(key, "a string");
    return std::string(value->as_string());
  }
  Result<Reader> object(std::string_view key) const {
    const json::value* value = find(key);
    if (value == nullptr || !value->is_object()) return missing(key, "an object");
    return Reader(value->as_object(), where_ + "." + std::string(key));
  }
  Result<const json::array*> array(std::string_view key) const {
    const json::value* value = find(key);
    if (value == nullptr || !value->is_array()) return missing(key, "an array");
    return &value->as_array();
  }
  const std::string& where() const { return where_; }

 private:
  Error missing(std::string_view key, const char* what) const {
    return Error::make(ErrorCode::kCorrupt,
                       where_ + ": '" + std::string(key) + "' is missing or not " + what);
  }

  const json::object* object_;
  std::string where_;
};

// Unwraps a Result into `target` or returns its error from the enclosing function.
#define KB_READ(target, expression)                 \
  do {                                              \
    auto read_result_ = (expression);               \
    if (!read_result_) return read_result_.error(); \
    target = std::move(*read_result_);              \
  } while (false)

json::object analyzer_json(const AnalyzerOptions& options) {
  return {{"cjk", cjk_segmentation_name(options.cjk)}, {"stem", options.stem}};
}

Result<AnalyzerOptions> analyzer_from(const Reader& reader) {
  AnalyzerOptions options;
  std::string cjk;
  KB_READ(cjk, reader.string("cjk"));
  auto mode = parse_cjk_segmentation(cjk);
  if (!mode) return Error::make(ErrorCode::kCorrupt, reader.where() + ": " + mode.error().message);
  options.cjk = *mode;
  KB_READ(options.stem, reader.boolean("stem"));
  return options;
}

json::object weights_json(const Features& weights) {
  json::object object;
  for (Component component : kComponents) {
    object[component_name(component)] = weights[static_cast<std::size_t>(component)];
  }
  return object;
}

json::object fusion_json(const FusionModel& model) {
  const Calibration& c = model.calibration;
  return {{"weights", weights_json(model.weights)},
          {"calibration",
           {{"fitted", c.fitted},
            {"bias", c.bias},
            {"score_weight", c.score_weight},
            {"margin_weight", c.margin_weight},
            {"threshold", c.threshold},
            {"target_precision", c.target_precision},
            {"dev_precision", c.dev_precision},
            {"dev_coverage", c.dev_coverage}}}};
}

Result<FusionModel> fusion_from(const Reader& reader) {
  FusionModel model;
  Reader weights = reader;
  KB_READ(weights, reader.object("weights"));
  for (Component component : kComponents) {
    double value = 0;
    KB_READ(value, weights.number(component_name(component)));
    model.weights[static_cast<std::size_t>(component)] = static_cast<float>(value);
  }
  Reader c = reader;
  KB_READ(c, reader.object("calibration"));
  Calibration& out = model.calibration;
  KB_READ(out.fitted, c.boolean("fitted"));
  KB_READ(out.bias, c.number("bias"));
  KB_READ(out.score_weight, c.number("score_weight"));
  KB_READ(out.margin_weight, c.number("margin_weight"));
  KB_READ(out.threshold, c.number("threshold"));
  KB_READ(out.target_precision, c.number("target_precision"));
  KB_READ(out.dev_precision, c.number("dev_precision"));
  KB_READ(out.dev_coverage, c.number("dev_coverage"));
  return model;
}

json::array classifiers_json(const std::vector<ClassifierParams>& list) {
  json::array array;
  for (const ClassifierParams& p : list) {
    array.push_back({{"epochs", p.epochs},
                     {"word_ngrams", p.word_ngrams},
                     {"min_char_ngram", p.min_char_ngram},
                     {"max_char_ngram", p.max_char_ngram},
                     {"dimensions", p.dimensions},
                     {"learning_rate", p.learning_rate},
                     {"buckets", p.buckets},
                     {"seed", p.seed}});
  }
  return array;
}

json::array accuracy_json(const std::vector<ComponentAccuracy>& list) {
  json::array array;
  for (const auto& a : list) {
    array.push_back({{"component", a.component}, {"top1", a.top1}, {"top3", a.top3}});
  }
  return array;
}

Result<std::vector<ComponentAccuracy>> accuracy_from(const json::array& array,
                                                     const std::string& where) {
  std::vector<ComponentAccuracy> list;
  for (const json::value& value : array) {
    if (!value.is_object()) return Error::make(ErrorCode::kCorrupt, where + ": not an object");
    Reader reader(value.as_object(), where);
    ComponentAccuracy a;
    KB_READ(a.component, reader.string("component"));
    KB_READ(a.top1, reader.number("top1"));
    KB_READ(a.top3, reader.number("top3"));
    list.push_back(std::move(a));
  }
  return list;
}

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
  std::string name = trim(*text);
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

Status write_manifest(const std::string& path, const Manifest& m) {
  json::array sources;
  for (const auto& s : m.sources) {
    sources.push_back(
        {{"file", s.file}, {"format", s.format}, {"records", s.records}, {"entries", s.entries}});
  }
  json::object root{
      {"format", "supportd-kb"},
      {"format_version", m.format_version},
      {"generation", m.generation},
      {"version", m.version},
      {"created", m.created},
      {"sources", sources},
      {"entries", m.entries},
      {"documents", m.documents},
      {"bm25",
       {{"analyzer", analyzer_json(m.bm25_analyzer)},
        {"k1", m.bm25_k1},
        {"b", m.bm25_b},
        {"function_word_weight", m.bm25_function_word_weight}}},
      {"classifier",
       {{"analyzer", analyzer_json(m.classifier_analyzer)},
        {"models", classifiers_json(m.classifiers)}}},
      {"vectors",
       {{"encoder", m.encoder},
        {"dimensions", m.dimensions},
        {"exact_limit", m.exact_limit},
        {"graph", m.graph}}},
      {"head",
       {{"present", m.head},
        {"epochs", m.head_params.epochs},
        {"learning_rate", m.head_params.learning_rate},
        {"l2", m.head_params.l2},
        {"batch", m.head_params.batch},
        {"seed", m.head_params.seed}}},
      {"fusion", {{"lexical", fusion_json(m.lexical)}, {"vectors", fusion_json(m.vectors)}}},
      {"dev",
       {{"questions", m.dev.questions},
        {"folds", m.dev.folds},
        {"lexical", accuracy_json(m.dev.lexical)},
        {"vectors", accuracy_json(m.dev.vectors)}}},
  };
  if (m.semantic_cache) {
    const auto& c = *m.semantic_cache;
    root["semantic_cache"] = {
        {"threshold", c.threshold}, {"wrong_hit_rate", c.wrong_hit_rate},
        {"hit_rate", c.hit_rate},   {"target_wrong_rate", c.target_wrong_rate},
        {"questions", c.questions}, {"cached", c.cached}};
  } else {
    root["semantic_cache"] = nullptr;
  }
  json::array notes;
  for (const auto& note : m.notes)
    notes.push_back(json::string(note));
  root["notes"] = notes;
  return write_file_atomically(path, json::serialize(root) + "\n");
}

Result<Manifest> read_manifest(const std::string& path) {
  auto text = read_text_file(path);
  if (!text) return text.error();
  boost::system::error_code ec;
  json::value document = json::parse(*text, ec);
  if (ec || !document.is_object()) {
    return Error::make(ErrorCode::kCorrupt, path + ": not a JSON object (" + ec.message() + ")");
  }
  Reader root(document.as_object(), path);
  Manifest m;
  std::string format;
  KB_READ(format, root.string("format"));
  if (format != "supportd-kb") {
    return Error::make(ErrorCode::kCorrupt, path + ": not a supportd knowledge-base manifest");
  }
  KB_READ(m.format_version, root.integer("format_version"));
  if (m.format_version != kFormatVersion) {
    return Error::make(ErrorCode::kUnsupported,
                       path + ": format version " + std::to_string(m.format_version) +
                           ", this supportd reads version " + std::to_string(kFormatVersion) +
                           " (re-import the knowledge base)");
  }
  KB_READ(m.generation, root.integer("generation"));
  KB_READ(m.version, root.string("version"));
  KB_READ(m.created, root.string("created"));
  const json::array* sources = nullptr;
  KB_READ(sources, root.array("sources"));
  for (const json::value& value : *sources) {
    if (!value.is_object()) return Error::make(ErrorCode::kCorrupt, path + ": bad source");
    Reader s(value.as_object(), path + ".sources");
    SourceSummary summary;
    KB_READ(summary.file, s.string("file"));
    KB_READ(summary.format, s.string("format"));
    KB_READ(summary.records, s.integer("records"));
    KB_READ(summary.entries, s.integer("entries"));
    m.sources.push_back(std::move(summary));
  }
  KB_READ(m.entries, root.integer("entries"));
  KB_READ(m.documents, root.integer("documents"));
  Reader bm25 = root;
  KB_READ(bm25, root.object("bm25"));
  Reader analyzer = root;
  KB_READ(analyzer, bm25.object("analyzer"));
  KB_READ(m.bm25_analyzer, analyzer_from(analyzer));
  double number = 0;
  KB_READ(number, bm25.number("k1"));
  m.bm25_k1 = static_cast<float>(number);
  KB_READ(number, bm25.number("b"));
  m.bm25_b = static_cast<float>(number);
  KB_READ(number, bm25.number("function_word_weight"));
  m.bm25_function_word_weight = static_cast<float>(number);
  Reader classifier = root;
  KB_READ(classifier, root.object("classifier"));
  KB_READ(analyzer, classifier.object("analyzer"));
  KB_READ(m.classifier_analyzer, analyzer_from(analyzer));
  const json::array* models = nullptr;
  KB_READ(models, classifier.array("models"));
  for (const json::value& value : *models) {
    if (!value.is_object()) return Error::make(ErrorCode::kCorrupt, path + ": bad classifier");
    Reader model(value.as_object(), path + ".classifier.models");
    ClassifierParams cp;
    KB_READ(cp.epochs, model.integer("epochs"));
    KB_READ(cp.word_ngrams, model.integer("word_ngrams"));
    KB_READ(cp.min_char_ngram, model.integer("min_char_ngram"));
    KB_READ(cp.max_char_ngram, model.integer("max_char_ngram"));
    KB_READ(cp.dimensions, model.integer("dimensions"));
    KB_READ(cp.learning_rate, model.number("learning_rate"));
    KB_READ(cp.buckets, model.integer("buckets"));
    KB_READ(cp.seed, model.integer("seed"));
    m.classifiers.push_back(cp);
  }
  Reader vectors = root;
  KB_READ(vectors, root.object("vectors"));
  KB_READ(m.encoder, vectors.string("encoder"));
  KB_READ(m.dimensions, vectors.integer("dimensions"));
  KB_READ(m.exact_limit, vectors.integer("exact_limit"));
  KB_READ(m.graph, vectors.boolean("graph"));
  Reader head = root;
  KB_READ(head, root.object("head"));
  KB_READ(m.head, head.boolean("present"));
  KB_READ(m.head_params.epochs, head.integer("epochs"));
  KB_READ(m.head_params.learning_rate, head.number("learning_rate"));
  KB_READ(m.head_params.l2, head.number("l2"));
  KB_READ(m.head_params.batch, head.integer("batch"));
  KB_READ(m.head_params.seed, head.integer("seed"));
  Reader fusion = root;
  KB_READ(fusion, root.object("fusion"));
  Reader model = root;
  KB_READ(model, fusion.object("lexical"));
  KB_READ(m.lexical, fusion_from(model));
  KB_READ(model, fusion.object("vectors"));
  KB_READ(m.vectors, fusion_from(model));
  Reader dev = root;
  KB_READ(dev, root.object("dev"));
  KB_READ(m.dev.questions, dev.integer("questions"));
  if (dev.find("folds") != nullptr) KB_READ(m.dev.folds, dev.integer("folds"));
  const json::array* list = nullptr;
  KB_READ(list, dev.array("lexical"));
  KB_READ(m.dev.lexical, accuracy_from(*list, path + ".dev"));
  KB_READ(list, dev.array("vectors"));
  KB_READ(m.dev.vectors, accuracy_from(*list, path + ".dev"));
  if (const json::value* cache = root.find("semantic_cache"); cache && cache->is_object()) {
    Reader c(cache->as_object(), path + ".semantic_cache");
    SemanticCacheCalibration calibration;
    KB_READ(calibration.threshold, c.number("threshold"));
    KB_READ(calibration.wrong_hit_rate, c.number("wrong_hit_rate"));
    KB_READ(calibration.hit_rate, c.number("hit_rate"));
    KB_READ(calibration.target_wrong_rate, c.number("target_wrong_rate"));
    KB_READ(calibration.questions, c.integer("questions"));
    KB_READ(calibration.cached, c.integer("cached"));
    m.semantic_cache = calibration;
  }
  const json::array* notes = nullptr;
  KB_READ(notes, root.array("notes"));
  for (const json::value& note : *notes) {
    if (note.is_string()) m.notes.emplace_back(note.as_string());
  }
  return m;
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
    Reader reader(value.as_object(), where);
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
      Reader q(item.as_object(), where);
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
