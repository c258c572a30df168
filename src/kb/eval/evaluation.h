// `supportd kb eval`: how well a knowledge base finds the labels of held-out questions, per
// component and fused, which labels it confuses, how fast it answers, and how its calibrated
// confidence behaves. Thread-safe (pure functions; evaluate() runs searches one at a time).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "kb/eval/open_set.h"
#include "kb/knowledge_base.h"

namespace supportd::kb {

// The label of a question no entry should answer (the knowledge base should decline it).
// A question with any other label no entry has is out of scope too, with a warning (a typo?).
inline constexpr const char* kOutOfScopeLabel = "oos";

struct EvalQuestion {
  std::string text;
  std::string label;
  SourceLocation source;
};

// Reads labelled questions from a CSV file; empty cells are errors naming file and line.
Result<std::vector<EvalQuestion>> read_eval_questions(const std::string& path,
                                                      const std::string& text_column,
                                                      const std::string& label_column);

struct ComponentScore {
  std::string component;  // component_name() or "fused"
  std::string title;      // readable
  int questions = 0;      // questions it took part in
  double top1 = 0;
  double top3 = 0;
};

struct Confusion {
  std::string expected;
  std::string retrieved;
  int count = 0;
};

struct EvalReport {
  std::string version;
  int questions = 0;
  int in_scope = 0;  // questions whose label an entry has; top-1, top-3, components are on them
  double top1 = 0;   // fused
  double top3 = 0;
  std::vector<ComponentScore> components;  // each component, then "fused"
  std::vector<Confusion> confusions;       // most frequent first, at most 10
  double p50_ms = 0;  // whole search: the question's vector (when used) and retrieval
  double p99_ms = 0;
  double mean_ms = 0;
  double retrieval_p50_ms = 0;  // retrieval given the vector
  double retrieval_p99_ms = 0;
  double embed_p50_ms = 0;  // the sentence encoder alone (questions it took part in)
  double embed_p99_ms = 0;
  int unknown_labels = 0;  // questions whose label no entry has, other than `oos`
  std::vector<std::string> unknown_examples;
  std::map<std::string, int> languages;   // detected language -> questions
  int with_vectors = 0;                   // questions the encoder took part in
  bool vectors = false;                   // the knowledge base had usable vectors
  bool english_only_vectors = false;      // ... from an English-only model
  double threshold = 0;                   // confidence threshold in use
  double answered = 0;                    // share of questions at or above it
  double answered_top1 = 0;               // top-1 accuracy among those
  std::optional<OpenSetScores> open_set;  // when some questions are out of scope
  std::vector<CoveragePoint> coverage;    // answered share and accuracy per threshold
  std::vector<std::string> warnings;      // from the knowledge base (encoder missing, ...)
};

Result<EvalReport> evaluate(const KnowledgeBase& kb, const std::vector<EvalQuestion>& questions);

std::string format_report(const EvalReport& report);
// One JSON object: n, in_scope, top1, top3, p50_ms, p99_ms, components, confusions, answered,
// coverage (threshold, answered, accuracy[, in_scope_accuracy, oos_recall]) and, with questions
// out of scope, out_of_scope, in_scope_accuracy, oos_recall, oos_precision.
std::string report_json(const EvalReport& report);

}  // namespace supportd::kb
