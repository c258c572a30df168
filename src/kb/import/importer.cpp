// `kb import` (importer.h) as the steps it takes: read the sources, start a generation, embed,
// deal the folds, choose the components, tune fusion and the semantic cache's threshold, train
// on everything, write and publish.
#include "kb/import/importer.h"

#include <fmt/format.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <set>

#include "core/progress.h"
#include "kb/train/corpus.h"
#include "kb/train/scope_gate.h"
#include "kb/train/semantic_cache_threshold.h"
#include "kb/train/training.h"
#include "kb/train/tuning.h"

namespace supportd::kb {
namespace fs = std::filesystem;
namespace {

constexpr int kMinimumDevQuestions = 20;
constexpr std::size_t kEmbedChunk = 64;

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

// Removes a generation directory unless release() is called (import failed half-way).
class GenerationGuard {
 public:
  explicit GenerationGuard(std::string path) : path_(std::move(path)) {}
  ~GenerationGuard() {
    if (!path_.empty()) {
      std::error_code ec;
      fs::remove_all(path_, ec);
    }
  }
  void release() { path_.clear(); }

 private:
  std::string path_;
};

// The new generation's directory, created empty: its name under DIR ("gen-000004"), its path.
struct NewGeneration {
  std::string name;
  std::string path;
};

// The folds of one import: the first is the dev split the components' settings are chosen on;
// fusion and calibration use all of them (cross-fitting).
struct Folds {
  std::vector<int> fold_of;      // by document: its fold, or -1 (never held out)
  std::vector<bool> dev_mask;    // by document: in the first fold
  std::vector<bool> train_mask;  // by document: not in the first fold
  std::vector<bool> all;         // by document: every one
  std::vector<std::size_t> dev;  // the first fold's documents
  bool tune = false;             // enough held-out questions to tune anything
};

// The components chosen on the dev split, with those already trained on the rest of it.
struct Chosen {
  ComponentChoices choices;
  bool classifier = false;  // enough labelled questions for fastText at all
  std::vector<std::unique_ptr<IntentClassifier>> dev_classifiers;
  std::unique_ptr<SoftmaxHead> dev_head;
};

Status check_options(const std::vector<std::string>& files, const ImportOptions& options) {
  if (files.empty()) return Error::invalid("no files to import");
  // A precision outside (0, 1] (or NaN) would publish a threshold that means nothing.
  if (!(options.target_precision > 0 && options.target_precision <= 1)) {
    return Error::invalid(
        fmt::format("--target-precision must be within (0, 1], not {}", options.target_precision));
  }
  if (options.folds < 2) return Error::invalid("--folds must be at least 2");
  return {};
}

// Step 1: the files parsed, merged into entries and analyzed into documents.
Result<Corpus> read_sources(const std::vector<std::string>& files, const ImportOptions& options,
                            Manifest& manifest) {
  std::vector<ParsedSource> parsed;
  for (const std::string& file : files) {
    auto source = parse_source(file, options.source);
    if (!source) return source.error();
    manifest.sources.push_back({file, source_format_name(source->format), source->records,
                                static_cast<int>(source->entries.size())});
    parsed.push_back(std::move(*source));
  }
  auto entries = merge_sources(std::move(parsed), manifest.notes);
  if (!entries) return entries.error();
  manifest.bm25_analyzer = {options.cjk, true};
  manifest.classifier_analyzer = {options.cjk, false};
  auto corpus =
      analyze_corpus(std::move(*entries), manifest.bm25_analyzer, manifest.classifier_analyzer);
  if (!corpus) return corpus.error();
  manifest.entries = static_cast<int>(corpus->entries.size());
  manifest.documents = static_cast<int>(corpus->documents.size());
  return corpus;
}

// Step 2: the next generation's directory under `dir`, created empty.
Result<NewGeneration> start_generation(const std::string& dir, Manifest& manifest) {
  auto next = next_generation(dir);
  if (!next) return next.error();
  NewGeneration generation{next->first, (fs::path(dir) / next->first).string()};
  std::error_code ec;
  fs::create_directory(generation.path, ec);
  if (ec) {
    return Error::make(ErrorCode::kIo, generation.path + ": cannot create (" + ec.message() + ")");
  }
  manifest.generation = next->second;
  return generation;
}

Result<StoredVectors> embed_documents(const Corpus& corpus, const Embedder& embedder) {
  StoredVectors vectors;
  vectors.dimensions = embedder.dimensions();
  vectors.documents = static_cast<int>(corpus.documents.size());
  std::vector<std::string> texts;
  for (std::size_t d = 0; d < corpus.documents.size(); ++d) {
    if (!corpus.english[d] && !embedder.multilingual()) continue;
    vectors.document_of_row.push_back(static_cast<int>(d));
    texts.push_back(corpus.documents[d].text);
  }
  ProgressBar bar("embedding", static_cast<std::int64_t>(texts.size()));
  for (std::size_t start = 0; start < texts.size(); start += kEmbedChunk) {
    const std::size_t size = std::min(kEmbedChunk, texts.size() - start);
    auto chunk = embedder.embed_batch(std::span<const std::string>(texts).subspan(start, size));
    if (!chunk) return chunk.error();
    if (chunk->size() != size * static_cast<std::size_t>(vectors.dimensions)) {
      return Error::make(ErrorCode::kInternal, "the encoder returned the wrong number of floats");
    }
    vectors.values.insert(vectors.values.end(), chunk->begin(), chunk->end());
    bar.update(static_cast<std::int64_t>(start + size));
  }
  bar.finish();
  return vectors;
}

// Step 3: the documents' vectors, when there is an embedder. Returns whether the corpus has
// vectors now.
Result<bool> add_vectors(Corpus& corpus, const ImportOptions& options, Manifest& manifest) {
  if (options.embedder) {
    auto vectors = embed_documents(corpus, *options.embedder);
    if (!vectors) return vectors.error();
    if (Status status = attach_vectors(corpus, std::move(*vectors), "embedding"); !status) {
      return status.error();
    }
    manifest.encoder = options.embedder->fingerprint();
    manifest.dimensions = options.embedder->dimensions();
  }
  return corpus.vectors.dimensions > 0 && !corpus.vectors.document_of_row.empty();
}

std::vector<bool> complement(const std::vector<bool>& mask) {
  std::vector<bool> out(mask.size());
  for (std::size_t i = 0; i < mask.size(); ++i)
    out[i] = !mask[i];
  return out;
}

// Step 4: the questions dealt into folds.
Folds deal_folds(const Corpus& corpus, const ImportOptions& options, Manifest& manifest) {
  Folds folds;
  folds.fold_of = choose_folds(corpus.documents, options.folds, options.seed);
  folds.dev_mask.resize(folds.fold_of.size());
  for (std::size_t d = 0; d < folds.fold_of.size(); ++d)
    folds.dev_mask[d] = folds.fold_of[d] == 0;
  folds.train_mask = complement(folds.dev_mask);
  folds.all.assign(corpus.documents.size(), true);
  for (std::size_t d = 0; d < folds.dev_mask.size(); ++d) {
    if (folds.dev_mask[d]) folds.dev.push_back(d);
  }
  folds.tune = static_cast<int>(folds.dev.size()) >= kMinimumDevQuestions;
  std::set<int> asked;  // entries with questions: the only ones held out
  for (const Document& document : corpus.documents) {
    if (document.kind == DocumentKind::kQuestion) asked.insert(document.entry);
  }
  const std::size_t unasked = corpus.entries.size() - asked.size();
  if (folds.tune && unasked > 0) {
    manifest.notes.push_back(fmt::format(
        "{} of {} entries have no questions (articles): the fusion weights, the confidence "
        "and the out-of-scope gate are fitted on the other entries' held-out questions; a "
        "few customer questions for them (a CSV of questions labelled with their ids, "
        "--text-col and --label-col) let the calibration see them too",
        unasked, corpus.entries.size()));
  }
  if (!folds.tune) {
    manifest.notes.push_back(
        "only " + std::to_string(folds.dev.size()) +
        " questions could be held out for tuning (20 needed): fusion weights are defaults and "
        "confidence is the uncalibrated relative margin");
  }
  return folds;
}

// Step 5: BM25's function-word weight, the fastText models and the head's schedule, chosen
// on the dev split (the first of each grid when there is nothing to tune on).
Result<Chosen> choose_components(const Corpus& corpus, const Folds& folds, bool with_vectors,
                                 const ImportOptions& options, const NewGeneration& generation,
                                 Manifest& manifest) {
  Chosen chosen;
  ComponentChoices& choices = chosen.choices;
  choices.dense_exact_limit = options.exact_limit;
  manifest.exact_limit = options.exact_limit;
  choices.bm25.function_word_weight =
      folds.tune ? choose_function_word_weight(corpus, folds.train_mask, folds.dev, choices.bm25)
                 : kDefaultFunctionWordWeight;
  manifest.bm25_k1 = choices.bm25.k1;
  manifest.bm25_b = choices.bm25.b;
  manifest.bm25_function_word_weight = choices.bm25.function_word_weight;
  std::vector<ClassifierParams> classifier_grid =
      options.classifier_grid.empty() ? default_classifier_grid() : options.classifier_grid;
  for (ClassifierParams& params : classifier_grid)
    params.seed = static_cast<int>(options.seed);
  std::vector<HeadParams> head_grid =
      options.head_grid.empty() ? default_head_grid() : options.head_grid;
  for (HeadParams& params : head_grid)
    params.seed = static_cast<int>(options.seed);
  std::string why;
  chosen.classifier = classifier_worthwhile(corpus, folds.all, why);
  if (!chosen.classifier) manifest.notes.push_back("no fastText classifier: " + why);
  if (chosen.classifier) choices.classifiers = classifier_grid;
  choices.head = with_vectors && chosen.classifier;
  choices.head_params = head_grid.front();
  if (folds.tune && chosen.classifier && classifier_worthwhile(corpus, folds.train_mask, why)) {
    auto classifiers =
        choose_classifiers(corpus, folds.train_mask, folds.dev, classifier_grid, generation.path);
    if (!classifiers) return classifiers.error();
    choices.classifiers = classifiers->params;
    chosen.dev_classifiers = std::move(classifiers->models);
  }
  if (folds.tune && choices.head) {
    auto head = choose_head(corpus, folds.train_mask, folds.dev, head_grid);
    if (!head) return head.error();
    choices.head_params = head->params;
    chosen.dev_head = std::move(head->head);
  }
  return chosen;
}

std::vector<ComponentAccuracy> summarize(const std::vector<DevQuestion>& dev,
                                         const Availability& available, const Features& weights) {
  std::vector<ComponentAccuracy> list;
  for (Component component : kComponents) {
    if (!available[static_cast<std::size_t>(component)]) continue;
    const Accuracy accuracy = measure_component(dev, component);
    list.push_back({component_name(component), accuracy.top1, accuracy.top3});
  }
  const Accuracy fused = measure(dev, weights);
  list.push_back({"fused", fused.top1, fused.top3});
  return list;
}

// Weights when too few questions could be held out to tune them: mostly BM25's nearest
// document (and the encoder's); the classifiers, trained on every entry's documents, less.
Features untuned_weights(bool classifier, bool dense, bool head) {
  Features weights{};
  weights[static_cast<std::size_t>(Component::kBm25)] = dense ? 0.3f : 0.6f;
  weights[static_cast<std::size_t>(Component::kBm25Vote)] = 0.1f;
  weights[static_cast<std::size_t>(Component::kClassifier)] = classifier ? 0.3f : 0;
  weights[static_cast<std::size_t>(Component::kDense)] = dense ? 0.3f : 0;
  weights[static_cast<std::size_t>(Component::kDenseVote)] = dense ? 0.1f : 0;
  weights[static_cast<std::size_t>(Component::kHead)] = head ? 0.2f : 0;
  float total = 0;
  for (float w : weights)
    total += w;
  for (float& w : weights)
    w /= total;
  return weights;
}

// A note on what the out-of-scope gate of one path rests on: each piece of evidence's
// separation of held-out questions from the same questions without their entry, the gate's
// floor and what it does on them.
void note_scope_gate(const char* path, const std::vector<DevQuestion>& dev,
                     const FusionModel& model, Manifest& manifest) {
  if (!model.scope.enabled) return;
  manifest.notes.push_back(fmt::format(
      "out-of-scope gate ({}): lets {:.1f}% of the held-out questions answered right through "
      "and declines {:.1f}% of them scored without their entry; separation (ROC area): {}",
      path, 100 * model.scope.dev_pass_rate, 100 * model.scope.dev_decline_rate,
      scope_separation(dev, model.weights, model.scope)));
}

// Step 6: the fusion weights and the confidence calibration, for the lexical path and the path
// with vectors. Tuned on every fold's questions, each scored by components trained without its
// fold (cross-fitting): one fold's questions alone made the weights depend on which questions
// it happened to hold. Defaults when there is nothing to tune on.
Status tune_fusion(const Corpus& corpus, const Folds& folds, bool with_vectors,
                   const ImportOptions& options, const NewGeneration& generation, Chosen& chosen,
                   Manifest& manifest) {
  const ComponentChoices& choices = chosen.choices;
  manifest.lexical.calibration.target_precision = options.target_precision;
  manifest.vectors.calibration.target_precision = options.target_precision;
  if (!folds.tune) {
    manifest.lexical.weights = untuned_weights(chosen.classifier, false, false);
    manifest.vectors.weights = untuned_weights(chosen.classifier, with_vectors, choices.head);
    return {};
  }
  auto scored =
      score_folds(corpus, folds.fold_of, options.folds, choices, std::move(chosen.dev_classifiers),
                  std::move(chosen.dev_head), generation.path);
  if (!scored) return scored.error();
  const std::vector<DevQuestion>& lexical_dev = scored->lexical;
  const std::vector<DevQuestion>& vector_dev = scored->vectors;
  manifest.dev.questions = static_cast<int>(lexical_dev.size());
  manifest.dev.folds = options.folds;
  Availability lexical{};
  lexical[static_cast<std::size_t>(Component::kBm25)] = true;
  lexical[static_cast<std::size_t>(Component::kBm25Vote)] = true;
  lexical[static_cast<std::size_t>(Component::kClassifier)] = !choices.classifiers.empty();
  manifest.lexical.weights = choose_weights(lexical_dev, lexical).weights;
  manifest.lexical.calibration =
      fit_calibration(lexical_dev, manifest.lexical.weights, options.target_precision);
  manifest.lexical.scope =
      fit_scope_gate(lexical_dev, manifest.lexical.weights, options.scope_pass_rate);
  note_scope_gate("lexical", lexical_dev, manifest.lexical, manifest);
  manifest.dev.lexical = summarize(lexical_dev, lexical, manifest.lexical.weights);
  if (!vector_dev.empty()) {
    Availability full = lexical;
    full[static_cast<std::size_t>(Component::kDense)] = true;
    full[static_cast<std::size_t>(Component::kDenseVote)] = true;
    full[static_cast<std::size_t>(Component::kHead)] = choices.head;
    manifest.vectors.weights = choose_weights(vector_dev, full).weights;
    manifest.vectors.calibration =
        fit_calibration(vector_dev, manifest.vectors.weights, options.target_precision);
    manifest.vectors.scope =
        fit_scope_gate(vector_dev, manifest.vectors.weights, options.scope_pass_rate);
    note_scope_gate("with vectors", vector_dev, manifest.vectors, manifest);
    manifest.dev.vectors = summarize(vector_dev, full, manifest.vectors.weights);
  }
  return {};
}

// Step 7: the semantic cache's threshold: held-out questions against the training questions.
Status tune_semantic_cache(const Corpus& corpus, const Folds& folds, const ImportOptions& options,
                           Manifest& manifest) {
  const auto dimensions = static_cast<std::size_t>(corpus.vectors.dimensions);
  std::vector<float> cached, queries;
  std::vector<int> cached_labels, query_labels;
  for (std::size_t d = 0; d < corpus.documents.size(); ++d) {
    const int row = corpus.vector_row[d];
    if (row < 0 || corpus.documents[d].kind != DocumentKind::kQuestion) continue;
    const auto start = corpus.vectors.values.begin() +
                       static_cast<std::ptrdiff_t>(static_cast<std::size_t>(row) * dimensions);
    auto& values = folds.dev_mask[d] ? queries : cached;
    values.insert(values.end(), start, start + static_cast<std::ptrdiff_t>(dimensions));
    (folds.dev_mask[d] ? query_labels : cached_labels).push_back(corpus.documents[d].entry);
  }
  if (cached_labels.empty() || query_labels.empty()) return {};
  auto calibration = calibrate_semantic_cache(cached, cached_labels, queries, query_labels,
                                              corpus.vectors.dimensions, options.cache_wrong_rate);
  if (!calibration) return calibration.error();
  manifest.semantic_cache = *calibration;
  return {};
}

// Step 8: the final components, trained on every document and saved into the generation.
Status train_final(const Corpus& corpus, const Folds& folds, bool with_vectors,
                   const ComponentChoices& choices, const NewGeneration& generation,
                   Manifest& manifest) {
  const std::string& path = generation.path;
  for (std::size_t i = 0; i < choices.classifiers.size(); ++i) {
    const std::string label = "training fastText " + std::to_string(i + 1) + "/" +
                              std::to_string(choices.classifiers.size());
    auto trained = train_classifier(corpus, folds.all, choices.classifiers[i], path, label);
    if (!trained) return trained.error();
    if (Status status = (*trained)->save(path + "/" + classifier_file(i)); !status) {
      return status.error();
    }
  }
  manifest.classifiers = choices.classifiers;
  manifest.head_params = choices.head_params;
  if (!with_vectors) return {};
  if (choices.head) {
    auto head = train_head(corpus, folds.all, choices.head_params, "training softmax head");
    if (!head) return head.error();
    if (Status status = (*head)->save(path + "/head.bin"); !status) return status.error();
    manifest.head = true;
  }
  if (Status status = write_vectors(path + "/vectors.bin", corpus.vectors); !status) {
    return status.error();
  }
  if (static_cast<int>(corpus.vectors.document_of_row.size()) > choices.dense_exact_limit) {
    auto parts = build_parts(corpus, folds.all, choices, {}, nullptr);
    if (!parts) return parts.error();
    if (Status status = parts->dense->save_graph(path + "/graph.bin"); !status) {
      return status.error();
    }
    manifest.graph = true;
  }
  return {};
}

// Step 9: the entries and the manifest written, and the generation made the live one.
Status publish(const std::string& dir, const Corpus& corpus, const NewGeneration& generation,
               Manifest& manifest) {
  const std::string& path = generation.path;
  if (Status status = write_entries(path + "/entries.jsonl", corpus.entries); !status) {
    return status.error();
  }
  auto hash = file_hash(path + "/entries.jsonl");
  if (!hash) return hash.error();
  manifest.version = fmt::format("g{}-{}", manifest.generation, hash->substr(0, 12));
  manifest.created = utc_now();
  if (Status status = record_files(path, manifest); !status) return status.error();
  if (Status status = write_manifest(path + "/manifest.json", manifest); !status) {
    return status.error();
  }
  return publish_generation(dir, generation.name);
}

}  // namespace

std::vector<ClassifierParams> default_classifier_grid() {
  std::vector<ClassifierParams> grid;
  for (int max_char : {0, 5}) {
    ClassifierParams params;
    params.epochs = 50;
    params.word_ngrams = 2;
    params.min_char_ngram = max_char > 0 ? 3 : 0;
    params.max_char_ngram = max_char;
    grid.push_back(params);
  }
  return grid;
}

std::vector<HeadParams> default_head_grid() {
  // Measured on banking77's dev split: weight decay hurts this head (1e-4: 79% top-1, 0: 87%);
  // the two settings below differ by less than a point, so the dev split picks.
  std::vector<HeadParams> grid(2);
  grid[0].epochs = 40;
  grid[0].learning_rate = 0.005;
  grid[1].epochs = 100;
  grid[1].learning_rate = 0.003;
  for (HeadParams& params : grid)
    params.l2 = 0;
  return grid;
}

Result<ImportReport> import_knowledge_base(const std::string& dir,
                                           const std::vector<std::string>& files,
                                           const ImportOptions& options) {
  if (Status status = check_options(files, options); !status) return status.error();
  Manifest manifest;
  auto corpus = read_sources(files, options, manifest);
  if (!corpus) return corpus.error();
  auto generation = start_generation(dir, manifest);
  if (!generation) return generation.error();
  GenerationGuard guard(generation->path);  // removes the directory unless published
  auto with_vectors = add_vectors(*corpus, options, manifest);
  if (!with_vectors) return with_vectors.error();
  const Folds folds = deal_folds(*corpus, options, manifest);
  auto chosen = choose_components(*corpus, folds, *with_vectors, options, *generation, manifest);
  if (!chosen) return chosen.error();
  if (Status status =
          tune_fusion(*corpus, folds, *with_vectors, options, *generation, *chosen, manifest);
      !status) {
    return status.error();
  }
  if (*with_vectors && folds.tune) {
    if (Status status = tune_semantic_cache(*corpus, folds, options, manifest); !status) {
      return status.error();
    }
  }
  if (Status status =
          train_final(*corpus, folds, *with_vectors, chosen->choices, *generation, manifest);
      !status) {
    return status.error();
  }
  if (Status status = publish(dir, *corpus, *generation, manifest); !status) {
    return status.error();
  }
  guard.release();
  return ImportReport{std::move(manifest), generation->path};
}

}  // namespace supportd::kb
