// Finds and masks personal data in free text, for logs and stored transcripts: phone numbers
// (Chinese mobile 1[3-9]xxxxxxxxx with or without +86/0086, +country international numbers,
// North American (555) 123-4567 / 555-123-4567, national numbers with a leading 0 and
// separators such as 010-12345678 or 020 7946 0958), e-mail addresses, bank card numbers
// (13-19 digits, optionally grouped by spaces or hyphens, masked only when the Luhn check
// passes and a card network issues the prefix) and Chinese resident ID numbers (check
// character and date of birth verified). Full-width digits and symbols count as their ASCII
// forms. Built to leave order numbers, prices, dates and times alone: a digit run glued to
// letters ("SF1234567890123", "ORD-2024...") is an identifier, and a contiguous 10-digit run
// is not a phone number. Thread-safe (pure functions).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace supportd::filter {

enum class PiiKind {
  kPhone,      // replaced by [phone]
  kEmail,      // replaced by [email]
  kCard,       // replaced by [card ****1234] (the last four digits)
  kChineseId,  // replaced by [id]
};

const char* pii_kind_name(PiiKind kind);

// One occurrence; byte offsets in the text, on UTF-8 character boundaries.
struct PiiMatch {
  PiiKind kind = PiiKind::kPhone;
  std::size_t begin = 0;
  std::size_t end = 0;
};

// Every occurrence in `text`, in order, not overlapping.
std::vector<PiiMatch> find_pii(std::string_view text);

// `text` with every occurrence replaced by its placeholder. Ill-formed UTF-8 becomes U+FFFD.
std::string mask_pii(std::string_view text);

}  // namespace supportd::filter
