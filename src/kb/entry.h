// The knowledge base's content: entries (what search returns), the documents derived from
// them (what the indexes see) and the documents' vectors. Plain data; copying is safe.
#pragma once

#include <string>
#include <vector>

namespace supportd::kb {

// Where a piece of content came from, for error messages and citations ("faq.csv:12").
struct SourceLocation {
  std::string file;
  int line = 0;

  std::string to_string() const { return file + ":" + std::to_string(line); }
};

enum class EntryKind {
  kArticle,  // a Markdown section: title and body text
  kFaq,      // question variants and an answer
  kIntent,   // a label from labelled questions: its examples are the questions
};

const char* entry_kind_name(EntryKind kind);

// A question that should retrieve its entry (a FAQ variant or a labelled example).
struct Question {
  std::string text;
  SourceLocation source;
};

struct Entry {
  std::string id;  // unique in the knowledge base, stable across imports
  EntryKind kind = EntryKind::kArticle;
  std::string title;   // heading, FAQ title or first question, or the label
  std::string answer;  // article body or FAQ answer; empty for a bare intent
  std::string label;   // what evaluation compares against: the intent, else the id
  std::vector<std::string> tags;
  std::string locale;  // BCP 47 language ("en", "zh"), given or detected
  SourceLocation source;
  std::vector<Question> questions;
};

enum class DocumentKind {
  kQuestion,  // a question variant: the only kind held out to tune and calibrate on
  kTitle,     // a title that is not one of the questions (short, so it matches sharply)
  kBody,      // title and answer text
};

// One indexed text. Documents are derived from entries in a fixed order (see derive_documents),
// so stored vectors line up with them.
struct Document {
  int entry = 0;  // index into the entries
  DocumentKind kind = DocumentKind::kBody;
  std::string text;
};

// Every entry's documents: its questions, its title when it is not one of them, then (when it
// has an answer) title and answer together.
std::vector<Document> derive_documents(const std::vector<Entry>& entries);

// Sentence vectors of some documents (those the embedder takes): rows of `dimensions` floats
// and the document each row belongs to. Made at import, stored as vectors.bin.
struct StoredVectors {
  int dimensions = 0;
  int documents = 0;  // how many documents the knowledge base had
  std::vector<int> document_of_row;
  std::vector<float> values;
};

}  // namespace supportd::kb
