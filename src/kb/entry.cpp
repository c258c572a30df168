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
    for (const Question& question : entry.questions) {
      documents.push_back({index, DocumentKind::kQuestion, question.text});
    }
    if (!entry.answer.empty()) {
      documents.push_back({index, DocumentKind::kBody, entry.title + "\n" + entry.answer});
    }
  }
  return documents;
}

}  // namespace supportd::kb
