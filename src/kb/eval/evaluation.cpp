// `kb eval` (evaluation.h): reads labelled questions, searches each, tallies top-1/top-3 per
// component and fused, confusions, latency percentiles, confident answers and, with questions
// out of scope, the open-set measures (open_set.h); text and JSON.
#include "kb/eval/evaluation.h"

#include <fmt/format.h>
#include <boost/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>

#include "core/progress.h"
#include "core/text.h"
#include "kb/import/csv.h"
#include "kb/import/sources.h"
#include "kb/search/retriever.h"

namespace supportd::kb {
namespace {

double percentile(std::vector<double> values, double fraction) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const auto index =
      static_cast<std::size_t>(fraction * static_cast<double>(values.size() - 1) + 0.5);
  return values[std::min(index, values.size() - 1)];
}

double share(int part, int whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

struct Tally {
  int questions = 0;
  int top1 = 0;
  int top3 = 0;
};

void count(Tally& tally, const std::vector<std::string>& labels, const std::string& expected) {
  ++tally.questions;
  for (std::size_t i = 0; i < labels.size() && i < 3; ++i) {
    if (labels[i] == expected) {
      if (i == 0) ++tally.top1;
      ++tally.top3;
      break;
    }
  }
}

const char* title_of(const std::string& component) {
  for (Component c : kComponents) {
    if (component == component_name(c)) return component_title(c);
  }
  return "fused ranking";
}

// The open-set scores (when some questions are out of scope) and the coverage–accuracy table.
std::string format_open_set(const EvalReport& r) {
  std::string out;
  if (r.open_set) {
    out += fmt::format(
        "out of scope: {} questions; at the threshold: in-scope accuracy {:.1f}% (answered and "
        "right), OOS recall {:.1f}% (declined), OOS precision {:.1f}% (declined that were out of "
        "scope)\n",
        r.open_set->out_of_scope, 100 * r.open_set->in_scope_accuracy, 100 * r.open_set->oos_recall,
        100 * r.open_set->oos_precision);
  }
  out += fmt::format("\n{:>9} {:>9} {:>7}", "threshold", "answered", "right");
  if (r.open_set) out += fmt::format(" {:>17} {:>10}", "in-scope accuracy", "OOS recall");
  out += "\n";
  for (const CoveragePoint& point : r.coverage) {
    out += fmt::format("{:>9.3f} {:>8.1f}% {:>6.1f}%", point.threshold, 100 * point.answered,
                       100 * point.accuracy);
    if (r.open_set) {
      out += fmt::format(" {:>16.1f}% {:>9.1f}%", 100 * point.in_scope_accuracy,
                         100 * point.oos_recall);
    }
    out += std::abs(point.threshold - r.threshold) < 1e-9 ? "  <- the knowledge base's\n" : "\n";
  }
  return out + "\n";
}

}  // namespace

Result<std::vector<EvalQuestion>> read_eval_questions(const std::string& path,
                                                      const std::string& text_column,
                                                      const std::string& label_column) {
  auto table = read_csv_file(path);
  if (!table) return table.error();
  const int text = table->column(text_column);
  const int label = table->column(label_column);
  if (text < 0 || label < 0) {
    return Error::invalid(path + ":1: no column named '" + (text < 0 ? text_column : label_column) +
                          "' (use --text-col and --label-col)");
  }
  std::vector<EvalQuestion> questions;
  for (const CsvRow& row : table->rows) {
    EvalQuestion question{std::string(trim(row.fields[static_cast<std::size_t>(text)])),
                          std::string(trim(row.fields[static_cast<std::size_t>(label)])),
                          {path, row.line}};
    if (question.text.empty() || question.label.empty()) {
      return Error::invalid(question.source.to_string() + ": the question or its label is empty");
    }
    questions.push_back(std::move(question));
  }
  if (questions.empty()) return Error::invalid(path + ": no questions");
  return questions;
}

Result<EvalReport> evaluate(const KnowledgeBase& kb, const std::vector<EvalQuestion>& questions) {
  EvalReport report;
  report.version = kb.version();
  report.warnings = kb.warnings();
  std::set<std::string> labels;
  for (const Entry& entry : kb.entries())
    labels.insert(entry.label);
  if (questions.empty()) return Error::invalid("no questions to evaluate");
  // One search first, so per-thread setup is not counted as latency.
  if (auto warm = kb.search(questions.front().text); !warm) return warm.error();

  std::map<std::string, Tally> components;
  Tally fused;
  std::map<std::pair<std::string, std::string>, int> confusions;
  std::vector<double> latencies, embed_latencies, retrieval_latencies;
  const bool vectors = kb.info().vectors;
  int answered = 0, answered_right = 0;
  std::vector<ScoredQuestion> scored;
  ProgressBar bar("evaluating", static_cast<std::int64_t>(questions.size()));
  for (const EvalQuestion& question : questions) {
    SearchOptions options;
    options.k = 3;
    options.explain = true;
    // The question's vector first (as the desk does, to share it with the semantic cache),
    // then retrieval with it; their sum is the search latency.
    const auto start = std::chrono::steady_clock::now();
    Result<std::vector<float>> vector = Error::make(ErrorCode::kUnavailable, "no vectors");
    if (vectors) vector = kb.embed(question.text);
    const auto embedded = std::chrono::steady_clock::now();
    if (vector.ok()) options.vector = *vector;
    auto result = kb.search(question.text, options);
    const auto end = std::chrono::steady_clock::now();
    if (!result) {
      return Error::invalid(question.source.to_string() + ": " + result.error().message);
    }
    const auto ms = [](auto from, auto to) {
      return std::chrono::duration<double, std::milli>(to - from).count();
    };
    latencies.push_back(ms(start, end));
    retrieval_latencies.push_back(ms(embedded, end));
    if (vector.ok()) embed_latencies.push_back(ms(start, embedded));
    ++report.languages[result->language];
    if (result->used_vectors) ++report.with_vectors;
    std::vector<std::string> fused_labels;
    for (const SearchHit& hit : result->hits)
      fused_labels.push_back(hit.label);
    const bool in_scope = labels.count(question.label) > 0;
    const bool right = !fused_labels.empty() && fused_labels[0] == question.label;
    scored.push_back({in_scope, in_scope && right, result->confident, result->confidence});
    if (result->confident) {
      ++answered;
      if (right) ++answered_right;
    }
    bar.advance();
    if (!in_scope) {
      if (question.label != kOutOfScopeLabel) {
        ++report.unknown_labels;
        if (report.unknown_examples.size() < 5) {
          report.unknown_examples.push_back(question.source.to_string() + ": " + question.label);
        }
      }
      continue;  // no entry is right: only the open-set measures count it
    }
    count(fused, fused_labels, question.label);
    if (!fused_labels.empty() && fused_labels[0] != question.label) {
      ++confusions[{question.label, fused_labels[0]}];
    } else if (fused_labels.empty()) {
      ++confusions[{question.label, "(nothing)"}];
    }
    for (const ComponentRanking& ranking : result->components) {
      count(components[ranking.component], ranking.labels, question.label);
    }
  }
  bar.finish();

  // Components in their fixed order, then the fusion.
  for (Component c : kComponents) {
    auto it = components.find(component_name(c));
    if (it == components.end()) continue;
    const Tally& t = it->second;
    report.components.push_back({it->first, component_title(c), t.questions,
                                 share(t.top1, t.questions), share(t.top3, t.questions)});
  }
  report.questions = static_cast<int>(questions.size());
  report.in_scope = fused.questions;
  report.top1 = share(fused.top1, fused.questions);
  report.top3 = share(fused.top3, fused.questions);
  report.components.push_back(
      {"fused", title_of("fused"), fused.questions, report.top1, report.top3});
  std::vector<Confusion> list;
  for (const auto& [pair, n] : confusions)
    list.push_back({pair.first, pair.second, n});
  std::stable_sort(list.begin(), list.end(), [](auto& a, auto& b) { return a.count > b.count; });
  if (list.size() > 10) list.resize(10);
  report.confusions = std::move(list);
  report.p50_ms = percentile(latencies, 0.50);
  report.p99_ms = percentile(latencies, 0.99);
  report.retrieval_p50_ms = percentile(retrieval_latencies, 0.50);
  report.retrieval_p99_ms = percentile(retrieval_latencies, 0.99);
  report.embed_p50_ms = percentile(embed_latencies, 0.50);
  report.embed_p99_ms = percentile(embed_latencies, 0.99);
  double total = 0;
  for (double value : latencies)
    total += value;
  report.mean_ms = total / static_cast<double>(latencies.size());
  report.threshold = kb.info().threshold;
  report.vectors = kb.info().vectors;
  report.english_only_vectors = kb.info().english_only_vectors;
  report.answered = share(answered, report.questions);
  report.answered_top1 = share(answered_right, answered);
  report.open_set = open_set_scores(scored);
  report.coverage = coverage_table(scored, report.threshold);
  return report;
}

std::string format_report(const EvalReport& r) {
  std::string out;
  out += fmt::format("knowledge base {}: {} questions", r.version, r.questions);
  if (r.in_scope != r.questions) {
    out += fmt::format(" ({} in scope, {} out of scope: top-1 and top-3 are on those in scope)",
                       r.in_scope, r.questions - r.in_scope);
  }
  out += "\n";
  for (const std::string& warning : r.warnings)
    out += fmt::format("warning: {}\n", warning);
  out += fmt::format("\n{:<28} {:>9} {:>7} {:>7}\n", "component", "questions", "top-1", "top-3");
  for (const ComponentScore& c : r.components) {
    out += fmt::format("{:<28} {:>9} {:>6.1f}% {:>6.1f}%\n", c.title, c.questions, 100 * c.top1,
                       100 * c.top3);
  }
  std::string languages;
  for (const auto& [code, n] : r.languages) {
    languages += fmt::format("{}{} {}", languages.empty() ? "" : ", ", code, n);
  }
  out += fmt::format("\nlanguages: {}; the encoder took part in {} of {} questions", languages,
                     r.with_vectors, r.questions);
  const int other = r.questions - (r.languages.count("en") ? r.languages.at("en") : 0);
  if (!r.vectors) {
    out += " (no usable vectors: lexical and fastText only)";
  } else if (r.english_only_vectors && other > 0) {
    out += fmt::format(
        " ({} not English: lexical and fastText only, the sentence encoder is English-only)",
        other);
  }
  out += "\n";
  if (r.unknown_labels > 0) {
    out += fmt::format(
        "{} questions have a label no entry has (treated as out of scope, like `{}`), e.g. {}\n",
        r.unknown_labels, kOutOfScopeLabel, r.unknown_examples.front());
  }
  out += fmt::format(
      "confidence threshold {:.3f}: {:.1f}% of questions answered with confidence, {:.1f}% of "
      "those right\n",
      r.threshold, 100 * r.answered, 100 * r.answered_top1);
  out += format_open_set(r);
  out += fmt::format("search latency: p50 {:.3f} ms, p99 {:.3f} ms, mean {:.3f} ms\n", r.p50_ms,
                     r.p99_ms, r.mean_ms);
  if (r.with_vectors > 0) {
    out += fmt::format(
        "  of which the question's vector: p50 {:.3f} ms, p99 {:.3f} ms; retrieval with it: p50 "
        "{:.3f} ms, p99 {:.3f} ms\n",
        r.embed_p50_ms, r.embed_p99_ms, r.retrieval_p50_ms, r.retrieval_p99_ms);
  }
  if (!r.confusions.empty()) {
    out += "\nmost confused (expected -> retrieved first):\n";
    for (const Confusion& c : r.confusions) {
      out += fmt::format("  {:>4}  {} -> {}\n", c.count, c.expected, c.retrieved);
    }
  }
  return out;
}

std::string report_json(const EvalReport& r) {
  namespace json = boost::json;
  json::array components;
  for (const ComponentScore& c : r.components) {
    components.push_back({{"component", c.component},
                          {"title", c.title},
                          {"n", c.questions},
                          {"top1", c.top1},
                          {"top3", c.top3}});
  }
  json::array confusions;
  for (const Confusion& c : r.confusions) {
    confusions.push_back(
        {{"expected", c.expected}, {"retrieved", c.retrieved}, {"count", c.count}});
  }
  json::object languages;
  for (const auto& [code, n] : r.languages)
    languages[code] = n;
  json::array warnings;
  for (const auto& w : r.warnings)
    warnings.push_back(json::string(w));
  json::array coverage;
  for (const CoveragePoint& point : r.coverage) {
    json::object row{
        {"threshold", point.threshold}, {"answered", point.answered}, {"accuracy", point.accuracy}};
    if (r.open_set) {
      row["in_scope_accuracy"] = point.in_scope_accuracy;
      row["oos_recall"] = point.oos_recall;
    }
    coverage.push_back(std::move(row));
  }
  json::object root{{"version", r.version},
                    {"n", r.questions},
                    {"in_scope", r.in_scope},
                    {"top1", r.top1},
                    {"top3", r.top3},
                    {"p50_ms", r.p50_ms},
                    {"p99_ms", r.p99_ms},
                    {"mean_ms", r.mean_ms},
                    {"retrieval_p50_ms", r.retrieval_p50_ms},
                    {"retrieval_p99_ms", r.retrieval_p99_ms},
                    {"embed_p50_ms", r.embed_p50_ms},
                    {"embed_p99_ms", r.embed_p99_ms},
                    {"components", components},
                    {"confusions", confusions},
                    {"languages", languages},
                    {"with_vectors", r.with_vectors},
                    {"unknown_labels", r.unknown_labels},
                    {"threshold", r.threshold},
                    {"answered", r.answered},
                    {"answered_top1", r.answered_top1},
                    {"coverage", coverage},
                    {"warnings", warnings}};
  if (r.open_set) {
    root["out_of_scope"] = r.open_set->out_of_scope;
    root["in_scope_accuracy"] = r.open_set->in_scope_accuracy;
    root["oos_recall"] = r.open_set->oos_recall;
    root["oos_precision"] = r.open_set->oos_precision;
  }
  return json::serialize(root);
}

}  // namespace supportd::kb
