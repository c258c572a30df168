// Entry kinds by name, and the documents derived from entries (each question, the title when it
// is not a question, title + answer): what the indexes see.
#include "kb/entry.h"

namespace supportd::kb {

const char* entry_kind_name(EntryKind kind) {
  switch (kind) {
    case EntryKind::kArticle: return "article";
    case EntryKind::kFaq: return "faq";
    case EntryKind::kIntent: return "intent";
  }
  return "article";
}

std::vector<Document> derive_documents(const std::vector<Entry>& entries) {
  std::vector<Document> documents;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const Entry& entry = entries[i];
    const int index = static_cast<int>(i);
    bool title_is_question = false;
    for (const Question& question : entry.questions) {
      documents.push_back({index, DocumentKind::kQuestion, question.text});
      title_is_question = title_is_question || question.text == entry.title;
    }
    if (!title_is_question && !entry.title.empty() && entry.kind != EntryKind::kIntent) {
      documents.push_back({index, DocumentKind::kTitle, entry.title});
    }
    if (!entry.answer.empty()) {
      documents.push_back({index, DocumentKind::kBody, entry.title + "\n" + entry.answer});
    }
  }
  return documents;
}

}  // namespace supportd::kb
