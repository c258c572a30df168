// The fastText intent classifier (intent_classifier.h): training from a temporary file of
// labelled lines, saving, loading after fasttext_file.h's check, and per-entry probabilities.
#include "kb/classify/intent_classifier.h"

#include <fasttext/fasttext.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kb/classify/fasttext_file.h"

namespace supportd::kb {

struct IntentClassifier::Model {
  fasttext::FastText fasttext;
};

namespace {

constexpr std::string_view kLabelPrefix = "__label__";

}  // namespace

IntentClassifier::IntentClassifier(std::unique_ptr<Model> model, int class_count)
    : model_(std::move(model)), class_count_(class_count) {}

IntentClassifier::~IntentClassifier() = default;

Result<std::unique_ptr<IntentClassifier>> IntentClassifier::wrap(std::unique_ptr<Model> model,
                                                                 int class_count,
                                                                 const std::string& where) {
  std::unique_ptr<IntentClassifier> classifier(new IntentClassifier(std::move(model), class_count));
  const auto dictionary = classifier->model_->fasttext.getDictionary();
  for (int32_t i = 0; i < dictionary->nlabels(); ++i) {
    const std::string label = dictionary->getLabel(i);
    int value = -1;
    if (label.starts_with(kLabelPrefix)) {
      try {
        value = std::stoi(label.substr(kLabelPrefix.size()));
      } catch (const std::exception&) {
        value = -1;
      }
    }
    if (value < 0 || value >= class_count) {
      return Error::make(ErrorCode::kCorrupt,
                         where + ": the classifier has label '" + label +
                             "', which is not an entry of this knowledge base");
    }
    classifier->class_of_label_.push_back(value);
  }
  return classifier;
}

Result<std::unique_ptr<IntentClassifier>> IntentClassifier::train(
    const std::vector<std::string>& texts, const std::vector<int>& classes, int class_count,
    const ClassifierParams& params, const std::string& work_dir,
    const std::function<void(double)>& progress) {
  if (texts.empty() || texts.size() != classes.size()) {
    return Error::invalid("the classifier needs at least one labelled question");
  }
  const std::string input = work_dir + "/classifier-train.txt";
  {
    std::ofstream out(input, std::ios::binary | std::ios::trunc);
    for (std::size_t i = 0; i < texts.size(); ++i) {
      out << kLabelPrefix << classes[i] << ' ' << texts[i] << '\n';
    }
    if (!out) return Error::make(ErrorCode::kIo, input + ": cannot write the training file");
  }
  fasttext::Args args;
  args.input = input;
  args.model = fasttext::model_name::sup;
  args.loss = fasttext::loss_name::softmax;
  args.minCount = 1;
  args.epoch = params.epochs;
  args.wordNgrams = params.word_ngrams;
  args.minn = params.min_char_ngram;
  args.maxn = params.max_char_ngram;
  args.dim = params.dimensions;
  args.lr = params.learning_rate;
  args.bucket = params.buckets;
  args.thread = params.threads;
  args.seed = params.seed;
  args.verbose = 0;
  auto model = std::make_unique<Model>();
  try {
    model->fasttext.train(args, [&](float done, float, double, double, int64_t) {
      if (progress) progress(static_cast<double>(done));
    });
  } catch (const std::exception& e) {
    std::filesystem::remove(input);
    return Error::make(ErrorCode::kInternal, std::string("fastText training failed: ") + e.what());
  }
  std::filesystem::remove(input);
  if (progress) progress(1.0);
  return wrap(std::move(model), class_count, "trained classifier");
}

Result<std::unique_ptr<IntentClassifier>> IntentClassifier::load(const std::string& path,
                                                                 int class_count, bool verified) {
  // fastText trusts every size in the file: a damaged one hangs or aborts inside it.
  if (!verified) {
    if (Status status = check_fasttext_file(path); !status) return status.error();
  }
  auto model = std::make_unique<Model>();
  try {
    model->fasttext.loadModel(path);
  } catch (const std::exception& e) {
    return Error::make(ErrorCode::kCorrupt, path + ": not a fastText model (" + e.what() + ")");
  }
  if (model->fasttext.getArgs().model != fasttext::model_name::sup) {
    return Error::make(ErrorCode::kCorrupt, path + ": not a supervised fastText model");
  }
  return wrap(std::move(model), class_count, path);
}

Status IntentClassifier::save(const std::string& path) const {
  try {
    model_->fasttext.saveModel(path);
  } catch (const std::exception& e) {
    return Error::make(ErrorCode::kIo, path + ": cannot save the classifier (" + e.what() + ")");
  }
  return {};
}

std::vector<float> IntentClassifier::predict(const std::string& text) const {
  std::vector<float> probabilities(static_cast<std::size_t>(class_count_), 0.0f);
  std::istringstream in(text + "\n");
  std::vector<std::pair<fasttext::real, std::string>> unused;
  fasttext::Predictions predictions;
  std::vector<int32_t> words, labels;
  model_->fasttext.getDictionary()->getLine(in, words, labels);
  model_->fasttext.predict(static_cast<int32_t>(class_of_label_.size()), words, predictions, 0.0f);
  for (const auto& [log_probability, label] : predictions) {
    probabilities[static_cast<std::size_t>(class_of_label_[static_cast<std::size_t>(label)])] =
        std::exp(log_probability);
  }
  return probabilities;
}

std::string join_terms(const std::vector<std::string>& terms) {
  std::string text;
  for (const std::string& term : terms) {
    if (!text.empty()) text += ' ';
    for (char c : term)
      text += (c == ' ' || c == '\t' || c == '\n' || c == '\r') ? '_' : c;
  }
  return text;
}

}  // namespace supportd::kb
