// manifest.json (manifest.h): written through a temporary file, read with every field checked
// (file and key named), and each data file's size and checksum recorded and verified.
#include "kb/files/manifest.h"

#include <boost/json.hpp>

#include <algorithm>
#include <filesystem>

#include "core/read_file.h"
#include "core/temp_file.h"
#include "kb/files/json_reader.h"
#include "kb/files/kb_files.h"

namespace supportd::kb {
namespace json = boost::json;
namespace {

json::object analyzer_json(const AnalyzerOptions& options) {
  return {{"cjk", cjk_segmentation_name(options.cjk)}, {"stem", options.stem}};
}

Result<AnalyzerOptions> analyzer_from(const JsonReader& reader) {
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

json::object scope_json(const ScopeGate& gate) {
  json::object weights{{"bias", gate.weights[0]}};
  for (std::size_t f = 0; f < kScopeFeatureCount; ++f)
    weights[scope_feature_name(f)] = gate.weights[f + 1];
  return {{"enabled", gate.enabled},
          {"weights", weights},
          {"floor", gate.floor},
          {"pass_rate", gate.pass_rate},
          {"dev_pass_rate", gate.dev_pass_rate},
          {"dev_decline_rate", gate.dev_decline_rate}};
}

// The gate of `reader`; off for a gate written before its logistic model (without "weights").
Result<ScopeGate> scope_from(const JsonReader& reader) {
  ScopeGate gate;
  if (reader.find("weights") == nullptr) return gate;
  JsonReader weights = reader;
  KB_READ(weights, reader.object("weights"));
  KB_READ(gate.weights[0], weights.number("bias"));
  for (std::size_t f = 0; f < kScopeFeatureCount; ++f)
    KB_READ(gate.weights[f + 1], weights.number(scope_feature_name(f)));
  KB_READ(gate.enabled, reader.boolean("enabled"));
  KB_READ(gate.floor, reader.number("floor"));
  KB_READ(gate.pass_rate, reader.number("pass_rate"));
  KB_READ(gate.dev_pass_rate, reader.number("dev_pass_rate"));
  KB_READ(gate.dev_decline_rate, reader.number("dev_decline_rate"));
  return gate;
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
            {"dev_coverage", c.dev_coverage},
            {"offer_threshold", c.offer_threshold},
            {"dev_offer_coverage", c.dev_offer_coverage}}},
          {"scope_gate", scope_json(model.scope)}};
}

Result<FusionModel> fusion_from(const JsonReader& reader) {
  FusionModel model;
  JsonReader weights = reader;
  KB_READ(weights, reader.object("weights"));
  for (Component component : kComponents) {
    double value = 0;
    KB_READ(value, weights.number(component_name(component)));
    model.weights[static_cast<std::size_t>(component)] = static_cast<float>(value);
  }
  JsonReader c = reader;
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
  // Knowledge bases imported before the middle way have none: it is the threshold there.
  out.offer_threshold = out.threshold;
  out.dev_offer_coverage = out.dev_coverage;
  if (c.find("offer_threshold") != nullptr) {
    KB_READ(out.offer_threshold, c.number("offer_threshold"));
    KB_READ(out.dev_offer_coverage, c.number("dev_offer_coverage"));
  }
  // Knowledge bases imported before the out-of-scope gate (or its logistic model) have none:
  // it stays off.
  if (reader.find("scope_gate") != nullptr) {
    JsonReader gate = reader;
    KB_READ(gate, reader.object("scope_gate"));
    KB_READ(model.scope, scope_from(gate));
  }
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
    JsonReader reader(value.as_object(), where);
    ComponentAccuracy a;
    KB_READ(a.component, reader.string("component"));
    KB_READ(a.top1, reader.number("top1"));
    KB_READ(a.top3, reader.number("top3"));
    list.push_back(std::move(a));
  }
  return list;
}

}  // namespace

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
  json::array files;
  for (const auto& f : m.files)
    files.push_back({{"name", f.name}, {"bytes", f.bytes}, {"fnv1a64", f.fnv1a64}});
  root["files"] = files;
  return write_file_atomically(path, json::serialize(root) + "\n");
}

namespace {

// read_manifest's sections, in the file's order; each reads its keys of `root` into `m` and
// fails naming the file and the key.
using ManifestSection = Status (*)(const JsonReader& root, const std::string& path, Manifest& m);

Status read_identity(const JsonReader& root, const std::string& path, Manifest& m) {
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
  return {};
}

Status read_sources(const JsonReader& root, const std::string& path, Manifest& m) {
  const json::array* sources = nullptr;
  KB_READ(sources, root.array("sources"));
  for (const json::value& value : *sources) {
    if (!value.is_object()) return Error::make(ErrorCode::kCorrupt, path + ": bad source");
    JsonReader s(value.as_object(), path + ".sources");
    SourceSummary summary;
    KB_READ(summary.file, s.string("file"));
    KB_READ(summary.format, s.string("format"));
    KB_READ(summary.records, s.integer("records"));
    KB_READ(summary.entries, s.integer("entries"));
    m.sources.push_back(std::move(summary));
  }
  KB_READ(m.entries, root.integer("entries"));
  KB_READ(m.documents, root.integer("documents"));
  return {};
}

Status read_bm25(const JsonReader& root, const std::string& /*path*/, Manifest& m) {
  JsonReader bm25 = root;
  KB_READ(bm25, root.object("bm25"));
  JsonReader analyzer = root;
  KB_READ(analyzer, bm25.object("analyzer"));
  KB_READ(m.bm25_analyzer, analyzer_from(analyzer));
  double number = 0;
  KB_READ(number, bm25.number("k1"));
  m.bm25_k1 = static_cast<float>(number);
  KB_READ(number, bm25.number("b"));
  m.bm25_b = static_cast<float>(number);
  KB_READ(number, bm25.number("function_word_weight"));
  m.bm25_function_word_weight = static_cast<float>(number);
  return {};
}

Status read_classifier(const JsonReader& root, const std::string& path, Manifest& m) {
  JsonReader classifier = root;
  KB_READ(classifier, root.object("classifier"));
  JsonReader analyzer = root;
  KB_READ(analyzer, classifier.object("analyzer"));
  KB_READ(m.classifier_analyzer, analyzer_from(analyzer));
  const json::array* models = nullptr;
  KB_READ(models, classifier.array("models"));
  for (const json::value& value : *models) {
    if (!value.is_object()) return Error::make(ErrorCode::kCorrupt, path + ": bad classifier");
    JsonReader model(value.as_object(), path + ".classifier.models");
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
  return {};
}

Status read_vectors_and_head(const JsonReader& root, const std::string& /*path*/, Manifest& m) {
  JsonReader vectors = root;
  KB_READ(vectors, root.object("vectors"));
  KB_READ(m.encoder, vectors.string("encoder"));
  KB_READ(m.dimensions, vectors.integer("dimensions"));
  KB_READ(m.exact_limit, vectors.integer("exact_limit"));
  KB_READ(m.graph, vectors.boolean("graph"));
  JsonReader head = root;
  KB_READ(head, root.object("head"));
  KB_READ(m.head, head.boolean("present"));
  KB_READ(m.head_params.epochs, head.integer("epochs"));
  KB_READ(m.head_params.learning_rate, head.number("learning_rate"));
  KB_READ(m.head_params.l2, head.number("l2"));
  KB_READ(m.head_params.batch, head.integer("batch"));
  KB_READ(m.head_params.seed, head.integer("seed"));
  return {};
}

Status read_fusion_and_dev(const JsonReader& root, const std::string& path, Manifest& m) {
  JsonReader fusion = root;
  KB_READ(fusion, root.object("fusion"));
  JsonReader model = root;
  KB_READ(model, fusion.object("lexical"));
  KB_READ(m.lexical, fusion_from(model));
  KB_READ(model, fusion.object("vectors"));
  KB_READ(m.vectors, fusion_from(model));
  JsonReader dev = root;
  KB_READ(dev, root.object("dev"));
  KB_READ(m.dev.questions, dev.integer("questions"));
  if (dev.find("folds") != nullptr) KB_READ(m.dev.folds, dev.integer("folds"));
  const json::array* list = nullptr;
  KB_READ(list, dev.array("lexical"));
  KB_READ(m.dev.lexical, accuracy_from(*list, path + ".dev"));
  KB_READ(list, dev.array("vectors"));
  KB_READ(m.dev.vectors, accuracy_from(*list, path + ".dev"));
  return {};
}

// The semantic cache's calibration, when the import made one.
Status read_semantic_cache(const JsonReader& root, const std::string& path, Manifest& m) {
  const json::value* cache = root.find("semantic_cache");
  if (!cache || !cache->is_object()) return {};
  JsonReader c(cache->as_object(), path + ".semantic_cache");
  SemanticCacheCalibration calibration;
  KB_READ(calibration.threshold, c.number("threshold"));
  KB_READ(calibration.wrong_hit_rate, c.number("wrong_hit_rate"));
  KB_READ(calibration.hit_rate, c.number("hit_rate"));
  KB_READ(calibration.target_wrong_rate, c.number("target_wrong_rate"));
  KB_READ(calibration.questions, c.integer("questions"));
  KB_READ(calibration.cached, c.integer("cached"));
  m.semantic_cache = calibration;
  return {};
}

// The notes, and the data files' records (absent in generations written before they were added).
Status read_notes_and_files(const JsonReader& root, const std::string& path, Manifest& m) {
  const json::array* notes = nullptr;
  KB_READ(notes, root.array("notes"));
  for (const json::value& note : *notes) {
    if (note.is_string()) m.notes.emplace_back(note.as_string());
  }
  if (root.find("files") == nullptr) return {};
  const json::array* files = nullptr;
  KB_READ(files, root.array("files"));
  for (const json::value& value : *files) {
    if (!value.is_object()) return Error::make(ErrorCode::kCorrupt, path + ": bad file record");
    JsonReader f(value.as_object(), path + ".files");
    FileRecord record;
    KB_READ(record.name, f.string("name"));
    KB_READ(record.bytes, f.integer64("bytes"));
    KB_READ(record.fnv1a64, f.string("fnv1a64"));
    if (record.name.empty() || record.name.find('/') != std::string::npos || record.bytes < 0)
      return Error::make(ErrorCode::kCorrupt, path + ": bad file record '" + record.name + "'");
    m.files.push_back(std::move(record));
  }
  return {};
}

}  // namespace

Result<Manifest> read_manifest(const std::string& path) {
  auto text = read_text_file(path);
  if (!text) return text.error();
  boost::system::error_code ec;
  json::value document = json::parse(*text, ec);
  if (ec || !document.is_object()) {
    return Error::make(ErrorCode::kCorrupt, path + ": not a JSON object (" + ec.message() + ")");
  }
  const JsonReader root(document.as_object(), path);
  Manifest m;
  for (ManifestSection read :
       {read_identity, read_sources, read_bm25, read_classifier, read_vectors_and_head,
        read_fusion_and_dev, read_semantic_cache, read_notes_and_files}) {
    if (Status status = read(root, path, m); !status) return status.error();
  }
  return m;
}

Status record_files(const std::string& generation, Manifest& manifest) {
  std::vector<std::string> names = {"entries.jsonl"};
  for (std::size_t i = 0; i < manifest.classifiers.size(); ++i)
    names.push_back(classifier_file(i));
  for (const char* name : {"vectors.bin", "head.bin", "graph.bin"})
    names.emplace_back(name);
  manifest.files.clear();
  for (const std::string& name : names) {
    const std::string path = generation + "/" + name;
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) continue;
    const std::uintmax_t bytes = std::filesystem::file_size(path, ec);
    if (ec) return Error::make(ErrorCode::kIo, path + ": cannot read (" + ec.message() + ")");
    auto hash = file_hash(path);
    if (!hash) return hash.error();
    manifest.files.push_back({name, static_cast<std::int64_t>(bytes), *hash});
  }
  return {};
}

Status verify_file(const Manifest& manifest, const std::string& generation,
                   const std::string& name) {
  if (manifest.files.empty()) return {};
  const std::string path = generation + "/" + name;
  auto record = std::find_if(manifest.files.begin(), manifest.files.end(),
                             [&](const FileRecord& f) { return f.name == name; });
  if (record == manifest.files.end()) {
    return Error::make(ErrorCode::kCorrupt, path + ": not recorded in the manifest");
  }
  std::error_code ec;
  const std::uintmax_t bytes = std::filesystem::file_size(path, ec);
  if (ec) {
    return Error::make(ErrorCode::kCorrupt, path + ": missing or unreadable (" + ec.message() +
                                                "; re-import the knowledge base)");
  }
  if (bytes != static_cast<std::uintmax_t>(record->bytes)) {
    return Error::make(ErrorCode::kCorrupt,
                       path + ": " + std::to_string(bytes) + " bytes, the manifest records " +
                           std::to_string(record->bytes) +
                           " (truncated or replaced; re-import the knowledge base)");
  }
  auto hash = file_hash(path);
  if (!hash) return hash.error();
  if (*hash != record->fnv1a64) {
    return Error::make(ErrorCode::kCorrupt, path + ": checksum " + *hash +
                                                ", the manifest records " + record->fnv1a64 +
                                                " (damaged; re-import the knowledge base)");
  }
  return {};
}

}  // namespace supportd::kb
