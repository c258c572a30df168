// `supportd kb import|search|eval|split`: build a knowledge base from files, query it, measure
// it on held-out questions, and split labelled questions for an honest evaluation.
#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <boost/json.hpp>

#include <cstdio>

#include "app/commands.h"
#include "kb/eval/evaluation.h"
#include "kb/eval/split.h"
#include "kb/import/importer.h"
#include "kb/knowledge_base.h"

namespace supportd::app {
namespace {

struct EncoderFlags {
  std::string model;  // empty: the encoder's default path
  std::string gguf;   // an embedding model in GGUF instead of the sentence encoder
  bool disabled = false;
  const CLI::Option* model_option = nullptr;
  const CLI::Option* gguf_option = nullptr;

  void add(CLI::App* command) {
    model_option =
        command->add_option("--encoder-model", model,
                            "Sentence encoder model file (default: the encoder's default path)");
    gguf_option = command->add_option(
        "--embedding-model", gguf,
        "An embedding model in GGUF (llama.cpp) instead of the sentence encoder");
    command->add_flag("--no-encoder", disabled, "Lexical retrieval only (BM25 and fastText)");
  }

  // The encoder. When the default one cannot be loaded: null, with a warning on stderr saying
  // why the lexical path is used. When the file named by --encoder-model or --embedding-model
  // cannot be loaded: an error naming the flag (the user asked for that model).
  Result<std::shared_ptr<const kb::Embedder>> open() const {
    if (disabled) return std::shared_ptr<const kb::Embedder>();
    const bool named_gguf = gguf_option->count() > 0;
    const bool named_model = model_option->count() > 0;
    const char* flag = named_gguf ? "--embedding-model" : "--encoder-model";
    if ((named_gguf && gguf.empty()) || (named_model && model.empty()))
      return Error::invalid(std::string(flag) + ": the file name is empty");
    auto embedder = gguf.empty() ? kb::open_sentence_encoder(model) : kb::open_gguf_embedder(gguf);
    if (!embedder) {
      if (named_gguf || named_model)
        return Error::invalid(std::string(flag) + ": " + embedder.error().message);
      fmt::print(stderr, "warning: {}; using the lexical path only (BM25 and fastText)\n",
                 embedder.error().message);
      return std::shared_ptr<const kb::Embedder>();
    }
    return std::shared_ptr<const kb::Embedder>(std::move(*embedder));
  }
};

std::string percent(double value) {
  return fmt::format("{:.1f}%", 100 * value);
}

void print_import(const kb::ImportReport& report) {
  const kb::Manifest& m = report.manifest;
  for (const auto& source : m.sources) {
    fmt::print("{}: {} ({} records, {} entries)\n", source.file, source.format, source.records,
               source.entries);
  }
  std::fflush(stdout);
  for (const auto& note : m.notes)
    fmt::print(stderr, "note: {}\n", note);
  std::fflush(stderr);
  fmt::print("{} entries, {} documents; fastText classifier: {}; vectors: {}; softmax head: {}\n",
             m.entries, m.documents,
             m.classifiers.empty() ? std::string("no")
                                   : fmt::format("{} model(s) averaged", m.classifiers.size()),
             m.encoder.empty() ? "no" : m.encoder, m.head ? "yes" : "no");
  for (const auto& p : m.classifiers) {
    fmt::print("fastText: {} epochs, word {}-grams, char n-grams {}, {} dimensions\n", p.epochs,
               p.word_ngrams,
               p.max_char_ngram > 0 ? fmt::format("{}-{}", p.min_char_ngram, p.max_char_ngram)
                                    : std::string("off"),
               p.dimensions);
  }
  if (m.dev.questions > 0) {
    if (m.dev.folds > 0) {
      fmt::print(
          "held out: {} questions in {} folds, each scored by components trained on the "
          "other folds (top-1 / top-3)\n",
          m.dev.questions, m.dev.folds);
    } else {
      fmt::print("dev split: {} held-out questions (top-1 / top-3)\n", m.dev.questions);
    }
    for (const auto* list : {&m.dev.lexical, &m.dev.vectors}) {
      if (list->empty()) continue;
      std::string line = list == &m.dev.lexical ? "  lexical:" : "  with vectors:";
      for (const auto& a : *list) {
        line += fmt::format(" {} {}/{}", a.component, percent(a.top1), percent(a.top3));
      }
      fmt::print("{}\n", line);
    }
    const auto weights = [](const kb::Features& w) {
      std::string text;
      for (kb::Component c : kb::kComponents) {
        const float value = w[static_cast<std::size_t>(c)];
        if (value > 0) text += fmt::format(" {}={:.3f}", kb::component_name(c), value);
      }
      return text;
    };
    fmt::print("fusion weights (lexical):{}\n", weights(m.lexical.weights));
    if (!m.encoder.empty()) fmt::print("fusion weights (vectors):{}\n", weights(m.vectors.weights));
    // The policy as the business states it (--target-precision) and the coverage it implies.
    const auto policy = [&](const char* path, const kb::Calibration& c) {
      if (!c.fitted) return;
      fmt::print(
          "confidence threshold ({}) {:.3f}: answers {} of held-out questions, {} of them right "
          "(target {})\n",
          path, c.threshold, percent(c.dev_coverage), percent(c.dev_precision),
          percent(c.target_precision));
      if (c.offer_threshold < c.threshold) {
        fmt::print(
            "  offer threshold {:.3f}: answers with the first entry and offers the next two for "
            "{} of held-out questions, the right entry among those three at least {} of the "
            "time\n",
            c.offer_threshold, percent(c.dev_offer_coverage), percent(c.target_precision));
      }
    };
    policy("lexical", m.lexical.calibration);
    if (!m.encoder.empty()) policy("with vectors", m.vectors.calibration);
    if (m.semantic_cache) {
      fmt::print("semantic cache threshold: cosine {:.3f} ({} hits, {} wrong on the first fold)\n",
                 m.semantic_cache->threshold, percent(m.semantic_cache->hit_rate),
                 percent(m.semantic_cache->wrong_hit_rate));
    }
  }
  fmt::print("version {} written to {}\n", m.version, report.generation);
}

std::string search_json(const kb::SearchResult& result) {
  namespace json = boost::json;
  json::array hits;
  for (const auto& hit : result.hits) {
    json::array tags;
    for (const auto& tag : hit.tags)
      tags.push_back(json::string(tag));
    hits.push_back({{"id", hit.id},
                    {"title", hit.title},
                    {"snippet", hit.snippet},
                    {"answer", hit.answer},
                    {"label", hit.label},
                    {"kind", hit.kind},
                    {"locale", hit.locale},
                    {"tags", tags},
                    {"source", hit.source},
                    {"score", hit.score},
                    {"confidence", hit.confidence}});
  }
  return json::serialize(json::object{{"version", result.version},
                                      {"language", result.language},
                                      {"used_vectors", result.used_vectors},
                                      {"confidence", result.confidence},
                                      {"confident", result.confident},
                                      {"offer", result.offer},
                                      {"shares_words", result.shares_words},
                                      {"out_of_scope", result.out_of_scope},
                                      {"scope_probability", result.scope_probability},
                                      {"scope_reason", result.scope_reason},
                                      {"hits", hits}});
}

// The knowledge base of `directory`, searched with the encoder the flags ask for.
Result<std::shared_ptr<const kb::KnowledgeBase>> open_knowledge_base(const std::string& directory,
                                                                     const EncoderFlags& encoder) {
  auto embedder = encoder.open();
  if (!embedder) return embedder.error();
  return kb::KnowledgeBase::open(directory, {*embedder});
}

// kb import: parse the files, build and publish a new generation, report what was chosen.
struct ImportFlags {
  std::string directory;
  std::vector<std::string> files;
  std::string cjk = "words+bigrams";
  kb::ImportOptions options;
  EncoderFlags encoder;
};

int run_import(ImportFlags& f) {
  auto mode = kb::parse_cjk_segmentation(f.cjk);
  if (!mode) return report_failure(mode.error());
  f.options.cjk = *mode;
  auto embedder = f.encoder.open();
  if (!embedder) return report_failure(embedder.error());
  f.options.embedder = *embedder;
  auto report = kb::import_knowledge_base(f.directory, f.files, f.options);
  if (!report) return report_failure(report.error());
  print_import(*report);
  return 0;
}

void add_import_command(CLI::App* kb_app, int& exit_code) {
  static ImportFlags f;
  CLI::App* import = kb_app->add_subcommand(
      "import", "Build the knowledge base from Markdown, FAQ (CSV/JSON) and labelled-question CSV");
  import->add_option("--kb", f.directory, "Knowledge-base directory")->required();
  import->add_option("files", f.files, "Files to import (.md, .csv, .json, .jsonl)")->required();
  import->add_option("--text-col", f.options.source.text_column,
                     "Labelled CSV: the question column");
  import->add_option("--label-col", f.options.source.label_column,
                     "Labelled CSV: the label column (every label becomes an intent)");
  import
      ->add_option("--cjk", f.cjk,
                   "Chinese/Japanese segmentation: bigrams, icu-words, words+bigrams")
      ->capture_default_str();
  import->add_option("--seed", f.options.seed, "Seed of the folds and of training")
      ->capture_default_str();
  import
      ->add_option("--folds", f.options.folds,
                   "Folds the questions are held out in to tune on: settings on the first, fusion "
                   "weights and confidence on all (each scored by components trained on the rest)")
      ->check(CLI::Range(2, 20))
      ->capture_default_str();
  import
      ->add_option(
          "--target-precision", f.options.target_precision,
          "Precision the confidence threshold is chosen for (on the held-out questions), in (0, 1]")
      ->capture_default_str();
  f.encoder.add(import);
  import->callback([&exit_code] { exit_code = run_import(f);
});
}  // namespace

// kb search: one question, its ranked entries.
struct SearchFlags {
  std::string directory;
  std::string question;
  int k = 5;
  bool json = false;
  EncoderFlags encoder;
};

void print_search(const kb::SearchResult& result) {
  fmt::print("language {}, {}; confidence {:.3f} ({})\n", result.language,
             result.used_vectors ? "lexical + encoder" : "lexical", result.confidence,
             result.confident      ? "confident"
             : result.offer        ? "below the threshold: the first answered, the next offered"
             : result.shares_words ? "below the threshold"
                                   : "no word of the question is in the knowledge base");
  for (std::size_t i = 0; i < result.hits.size(); ++i) {
    const auto& hit = result.hits[i];
    fmt::print("{}. [{}] {} (score {:.3f}, confidence {:.3f})\n   {}\n   source: {}\n", i + 1,
               hit.id, hit.title, hit.score, hit.confidence, hit.snippet, hit.source);
  }
  if (result.hits.empty()) fmt::print("no entry matches\n");
}

int run_search(const SearchFlags& f) {
  auto kb = open_knowledge_base(f.directory, f.encoder);
  if (!kb) return report_failure(kb.error());
  for (const auto& warning : (*kb)->warnings())
    fmt::print(stderr, "warning: {}\n", warning);
  kb::SearchOptions options;
  options.k = f.k;
  auto result = (*kb)->search(f.question, options);
  if (!result) return report_failure(result.error());
  if (f.json) {
    fmt::print("{}\n", search_json(*result));
  } else {
    print_search(*result);
  }
  return 0;
}

void add_search_command(CLI::App* kb_app, int& exit_code) {
  static SearchFlags f;
  CLI::App* search = kb_app->add_subcommand("search", "Search the knowledge base");
  search->add_option("--kb", f.directory, "Knowledge-base directory")->required();
  search->add_option("question", f.question, "The question")->required();
  search->add_option("-k", f.k, "How many entries")->capture_default_str();
  search->add_flag("--json", f.json, "Print JSON");
  f.encoder.add(search);
  search->callback([&exit_code] { exit_code = run_search(f); });
}

// kb eval: accuracy, confusions and latency on labelled questions.
struct EvalFlags {
  std::string directory;
  std::string questions;
  std::string text_column = "text";
  std::string label_column = "label";
  bool json = false;
  EncoderFlags encoder;
};

int run_eval(const EvalFlags& f) {
  auto questions = kb::read_eval_questions(f.questions, f.text_column, f.label_column);
  if (!questions) return report_failure(questions.error());
  auto kb = open_knowledge_base(f.directory, f.encoder);
  if (!kb) return report_failure(kb.error());
  auto report = kb::evaluate(**kb, *questions);
  if (!report) return report_failure(report.error());
  fmt::print("{}", f.json ? kb::report_json(*report) + "\n" : kb::format_report(*report));
  return 0;
}

void add_eval_command(CLI::App* kb_app, int& exit_code) {
  static EvalFlags f;
  CLI::App* eval = kb_app->add_subcommand(
      "eval",
      "Top-1/top-3 accuracy per component and fused, confusions and latency on labelled "
      "questions");
  eval->add_option("--kb", f.directory, "Knowledge-base directory")->required();
  eval->add_option("questions", f.questions, "Labelled questions (CSV)")->required();
  eval->add_option("--text-col", f.text_column, "The question column")->capture_default_str();
  eval->add_option("--label-col", f.label_column, "The label column")->capture_default_str();
  eval->add_flag("--json", f.json, "Print one JSON object");
  f.encoder.add(eval);
  eval->callback([&exit_code] { exit_code = run_eval(f); });
}

// kb split: labelled questions into a file to import and a held-out file to evaluate on.
struct SplitFlags {
  std::string input;
  std::string train_out;
  std::string test_out;
  kb::SplitOptions options;
};

int run_split(const SplitFlags& f) {
  auto counts = kb::split_labelled_csv(f.input, f.train_out, f.test_out, f.options);
  if (!counts) return report_failure(counts.error());
  fmt::print("{} labels: {} rows to {}, {} held out to {}\n", counts->labels, counts->train,
             f.train_out, counts->test, f.test_out);
  return 0;
}

void add_split_command(CLI::App* kb_app, int& exit_code) {
  static SplitFlags f;
  CLI::App* split = kb_app->add_subcommand(
      "split", "Split labelled questions per label into a training and a held-out file (seeded)");
  split->add_option("file", f.input, "Labelled questions (CSV)")->required();
  split->add_option("--holdout", f.options.holdout, "Share held out")->capture_default_str();
  split->add_option("--seed", f.options.seed, "Random seed")->capture_default_str();
  split->add_option("--label-col", f.options.label_column,
                    "The label column (default: label, category or intent)");
  split->add_option("--out-train", f.train_out, "Training rows (CSV)")->required();
  split->add_option("--out-test", f.test_out, "Held-out rows (CSV)")->required();
  split->callback([&exit_code] { exit_code = run_split(f); });
}

}  // namespace supportd::app

void add_kb_command(CLI::App& app, int& exit_code) {
  CLI::App* kb_app = app.add_subcommand("kb", "Import, search and evaluate the knowledge base");
  kb_app->require_subcommand(1);
  add_import_command(kb_app, exit_code);
  add_search_command(kb_app, exit_code);
  add_eval_command(kb_app, exit_code);
  add_split_command(kb_app, exit_code);
}

}  // namespace supportd::app
