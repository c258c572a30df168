// Finding and masking personal data in free text (see pii_masker.h): e-mail addresses, then
// number tokens classified as phone, card or ID numbers by their grouping and check digits.
#include "filter/pii_masker.h"

#include <algorithm>
#include <optional>

#include "core/utf8.h"
#include "filter/pii_checksums.h"
#include "filter/text_normalizer.h"

namespace supportd::filter {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_letter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool is_alnum(char c) {
  return is_digit(c) || is_letter(c);
}
bool is_local_char(char c) {
  return is_alnum(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-';
}
bool is_label_char(char c) {
  return is_alnum(c) || c == '-';
}

struct Detection {
  PiiKind kind;
  std::size_t begin;
  std::size_t end;
  std::string last_digits;  // kCard: the last four digits
};

// --- e-mail addresses ------------------------------------------------------------------------

void find_emails(std::string_view s, std::vector<Detection>& found) {
  std::size_t at = s.find('@');
  while (at != std::string_view::npos) {
    std::size_t local = at;
    while (local > 0 && is_local_char(s[local - 1]))
      --local;
    while (local < at && s[local] == '.')
      ++local;
    // Domain: two or more labels, the last one two or more letters.
    std::size_t position = at + 1, end = at + 1, labels = 0;
    bool top_level_ok = false;
    while (true) {
      const std::size_t label = position;
      while (position < s.size() && is_label_char(s[position]))
        ++position;
      if (position == label) break;
      ++labels;
      end = position;
      const std::string_view name = s.substr(label, position - label);
      top_level_ok = name.size() >= 2 && std::all_of(name.begin(), name.end(), is_letter);
      if (position + 1 < s.size() && s[position] == '.' && is_label_char(s[position + 1])) {
        ++position;
        continue;
      }
      break;
    }
    if (local < at && labels >= 2 && top_level_ok) {
      found.push_back({PiiKind::kEmail, local, end, {}});
      at = s.find('@', end);
    } else {
      at = s.find('@', at + 1);
    }
  }
}

// --- numbers: phones, cards, ID numbers ------------------------------------------------------

// A run of digit groups joined by single separators, e.g. "+86 (138) 1234-5678".
struct NumberToken {
  std::size_t begin = 0;  // includes a leading '+' or '('
  std::size_t end = 0;    // after the last digit (or a closing parenthesis)
  bool plus = false;
  bool check_x = false;  // an 'x'/'X' follows the last digit (an ID number's check character)
  std::vector<std::pair<std::size_t, std::size_t>> groups;  // [begin, end) of each digit run
  std::vector<char> separators;  // between groups: ' ', '-', '.', or '(' around a group
};

NumberToken parse_number(std::string_view s, std::size_t start) {
  NumberToken token;
  token.begin = start;
  std::size_t position = start;
  bool open = false;
  if (s[position] == '(') {
    open = true;
    ++position;
  }
  if (position < s.size() && s[position] == '+') {
    token.plus = true;
    ++position;
  }
  if (open && position < s.size() && !is_digit(s[position])) return token;
  if (open && !token.plus) token.begin = start;  // "(010) 1234 5678"
  while (position < s.size() && is_digit(s[position])) {
    std::size_t end = position;
    while (end < s.size() && is_digit(s[end]))
      ++end;
    token.groups.emplace_back(position, end);
    token.end = end;
    // One separator, then digits, or the token ends here.
    std::size_t next = end;
    char separator = 0;
    bool next_open = open;
    if (open && next < s.size() && s[next] == ')') {
      ++next;
      next_open = false;
      separator = '(';
      if (next < s.size() && (s[next] == ' ' || s[next] == '-')) ++next;
    } else if (next < s.size() && (s[next] == ' ' || s[next] == '-' || s[next] == '.')) {
      separator = s[next++];
      if (!open && separator == ' ' && next < s.size() && s[next] == '(') {
        ++next;
        next_open = true;
        separator = '(';
      }
    } else if (!open && next < s.size() && s[next] == '(') {
      ++next;
      next_open = true;
      separator = '(';
    }
    if (separator == 0 || next >= s.size() || !is_digit(s[next])) {
      if (open && end < s.size() && s[end] == ')')
        token.end = end + 1;
      else if (open && token.groups.size() == 1)
        token.begin = token.groups[0].first - token.plus;
      break;
    }
    token.separators.push_back(separator);
    open = next_open;
    position = next;
  }
  token.check_x = token.end < s.size() && (s[token.end] == 'x' || s[token.end] == 'X');
  return token;
}

bool sizes_are(const std::vector<std::size_t>& sizes, std::initializer_list<std::size_t> expected) {
  return std::equal(sizes.begin(), sizes.end(), expected.begin(), expected.end());
}

bool same_separators(const std::vector<char>& separators, std::string_view allowed) {
  if (separators.empty()) return true;
  return allowed.find(separators[0]) != std::string_view::npos &&
         std::all_of(separators.begin(), separators.end(),
                     [&](char c) { return c == separators[0]; });
}

bool chinese_mobile(std::string_view digits) {
  return digits.size() == 11 && digits[0] == '1' && digits[1] >= '3' && digits[1] <= '9';
}

bool phone_like(std::string_view digits, const std::vector<std::size_t>& sizes, bool plus) {
  const std::size_t n = digits.size();
  const std::size_t groups = sizes.size();
  if (n < 8) return false;   // no form below has fewer digits
  if (plus) return n <= 15;  // E.164: country code and number
  if (digits.starts_with("0086") && chinese_mobile(digits.substr(4)) &&
      (groups == 1 || sizes[0] == 4))
    return true;
  if (digits.starts_with("86") && chinese_mobile(digits.substr(2)) && groups >= 2 && sizes[0] == 2)
    return true;
  if (chinese_mobile(digits) && (groups == 1 || sizes_are(sizes, {3, 4, 4}) ||
                                 sizes_are(sizes, {3, 8}) || sizes_are(sizes, {7, 4})))
    return true;
  // International access code 00 and a country code, written apart from the number.
  if (digits.starts_with("00") && digits[2] != '0' && n >= 10 && n <= 17 && groups >= 2 &&
      sizes[0] >= 3 && sizes[0] <= 5)
    return true;
  // North American numbering plan: (NXX) NXX-XXXX, optionally with the country code 1.
  if (n == 10 && sizes_are(sizes, {3, 3, 4}) && digits[0] >= '2') return true;
  if (n == 11 && sizes_are(sizes, {1, 3, 3, 4}) && digits[0] == '1') return true;
  // National numbers with a trunk 0 and an area code written apart: 010-12345678, 020 7946 0958.
  if (digits[0] == '0' && digits[1] != '0' && n >= 9 && n <= 12 && groups >= 2 && sizes[0] >= 2 &&
      sizes[0] <= 5 && std::all_of(sizes.begin() + 1, sizes.end(), [](auto k) { return k >= 3; }))
    return true;
  return false;
}

bool id_grouping(const std::vector<std::size_t>& sizes, const std::vector<char>& separators) {
  return sizes_are(sizes, {18}) ||
         (sizes_are(sizes, {6, 8, 4}) && same_separators(separators, " -"));
}

// Classifies the groups [first, last] of a token.
std::optional<Detection> classify(std::string_view s, const NumberToken& token, std::size_t first,
                                  std::size_t last) {
  std::string digits;
  std::vector<std::size_t> sizes;
  for (std::size_t g = first; g <= last; ++g) {
    const auto [begin, end] = token.groups[g];
    digits.append(s.substr(begin, end - begin));
    sizes.push_back(end - begin);
  }
  const std::vector<char> separators(token.separators.begin() + static_cast<long>(first),
                                     token.separators.begin() + static_cast<long>(last));
  const bool whole_tail = last + 1 == token.groups.size();
  const std::size_t begin = first == 0 ? token.begin : token.groups[first].first;
  const std::size_t end = whole_tail ? token.end : token.groups[last].second;
  const bool plus = first == 0 && token.plus;

  if (whole_tail && token.check_x) {  // digits glued to an 'x': only an ID number ends so
    std::vector<std::size_t> id_sizes = sizes;
    ++id_sizes.back();
    const std::size_t after = end + 1;
    if (digits.size() == 17 && id_grouping(id_sizes, separators) &&
        (after >= s.size() || !is_alnum(s[after])) && chinese_id_valid(digits + 'X'))
      return Detection{PiiKind::kChineseId, begin, after, {}};
    return std::nullopt;
  }
  if (end < s.size() && (is_alnum(s[end]) || s[end] == '_')) return std::nullopt;
  if (digits.size() == 18 && !plus && id_grouping(sizes, separators) && chinese_id_valid(digits))
    return Detection{PiiKind::kChineseId, begin, end, {}};
  const bool card_grouping =
      sizes.size() == 1 || (same_separators(separators, " -") &&
                            std::all_of(sizes.begin(), sizes.end(), [](auto k) { return k >= 3; }));
  if (!plus && card_grouping && card_issuer_known(digits) && luhn_valid(digits))
    return Detection{PiiKind::kCard, begin, end, digits.substr(digits.size() - 4)};
  if (phone_like(digits, sizes, plus)) return Detection{PiiKind::kPhone, begin, end, {}};
  return std::nullopt;
}

// Whether a number may start at `i`: not glued to an identifier ("ORD-2024", "v1.2", "a/123").
bool starts_apart(std::string_view s, std::size_t i) {
  if (i == 0) return true;
  const char before = s[i - 1];
  if (is_alnum(before) || before == '_') return false;
  if ((before == '.' || before == '-' || before == '/') && i >= 2 && is_alnum(s[i - 2]))
    return false;
  return true;
}

void find_numbers(std::string_view s, const std::vector<Detection>& emails,
                  std::vector<Detection>& found) {
  auto email = emails.begin();
  std::size_t i = 0;
  while (i < s.size()) {
    while (email != emails.end() && email->end <= i)
      ++email;
    if (email != emails.end() && email->begin <= i) {
      i = email->end;
      continue;
    }
    const char c = s[i];
    const bool opens = (c == '+' || c == '(') && i + 1 < s.size() &&
                       (is_digit(s[i + 1]) || (c == '(' && s[i + 1] == '+'));
    if (!is_digit(c) && !opens) {
      if (is_letter(c) || c == '_') {  // an identifier: its digits are not a number
        while (i < s.size() && (is_alnum(s[i]) || s[i] == '_'))
          ++i;
      } else {
        ++i;
      }
      continue;
    }
    if (c != '(' && !starts_apart(s, i)) {  // skip the glued run, a '+' included
      ++i;
      while (i < s.size() && (is_alnum(s[i]) || s[i] == '_'))
        ++i;
      continue;
    }
    const NumberToken token = parse_number(s, i);
    if (token.groups.empty()) {
      ++i;
      continue;
    }
    // Longest classifiable run of groups first; runs split only where a blank separates.
    const std::size_t count = token.groups.size();
    std::size_t first = 0;
    while (first < count) {
      bool matched = false;
      for (std::size_t last = count; last-- > first;) {
        if (last + 1 < count && token.separators[last] != ' ') continue;
        if (std::optional<Detection> hit = classify(s, token, first, last)) {
          found.push_back(std::move(*hit));
          first = last + 1;
          matched = true;
          break;
        }
      }
      if (matched) continue;
      do {
        ++first;
      } while (first < count && token.separators[first - 1] != ' ');
    }
    i = std::max(token.end + (token.check_x ? 1 : 0), i + 1);
    if (!found.empty() && found.back().end > i) i = found.back().end;
  }
}

// True when `text` cannot hold anything find_pii looks for: no digit, no '@', and no
// full-width forms (U+FF00-U+FFEF, encoded EF BC xx / EF BD xx).
bool obviously_clean(std::string_view text) {
  return std::none_of(text.begin(), text.end(), [](char c) {
    return is_digit(c) || c == '@' || static_cast<unsigned char>(c) == 0xEF;
  });
}

bool is_ascii(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

// Detections in valid UTF-8 `text`, with offsets into it.
std::vector<Detection> detect(std::string_view text) {
  std::vector<Detection> found;
  if (obviously_clean(text)) return found;
  const bool ascii = is_ascii(text);
  NormalizedText normalized;
  if (!ascii) normalized.append(text, true);
  const std::string_view s = ascii ? text : std::string_view(normalized.text());

  std::vector<Detection> emails;
  find_emails(s, emails);
  find_numbers(s, emails, found);
  found.insert(found.end(), emails.begin(), emails.end());
  std::sort(found.begin(), found.end(),
            [](const Detection& a, const Detection& b) { return a.begin < b.begin; });
  if (!ascii) {
    for (Detection& d : found) {
      d.begin = normalized.original_begin(d.begin);
      d.end = normalized.original_end(d.end);
    }
  }
  return found;
}

}  // namespace

const char* pii_kind_name(PiiKind kind) {
  switch (kind) {
    case PiiKind::kPhone: return "phone";
    case PiiKind::kEmail: return "email";
    case PiiKind::kCard: return "card";
    case PiiKind::kChineseId: return "id";
  }
  return "phone";
}

std::vector<PiiMatch> find_pii(std::string_view text) {
  std::vector<PiiMatch> matches;
  for (const Detection& d : detect(text))
    matches.push_back({d.kind, d.begin, d.end});
  return matches;
}

std::string mask_pii(std::string_view text) {
  std::string sanitized;
  if (!is_valid_utf8(text)) {
    sanitized = sanitize_utf8(text);
    text = sanitized;
  }
  const std::vector<Detection> found = detect(text);
  if (found.empty()) return std::string(text);
  std::string out;
  out.reserve(text.size());
  std::size_t copied = 0;
  for (const Detection& d : found) {
    out.append(text.substr(copied, d.begin - copied));
    if (d.kind == PiiKind::kCard) {
      out.append("[card ****").append(d.last_digits).append("]");
    } else {
      out.append("[").append(pii_kind_name(d.kind)).append("]");
    }
    copied = d.end;
  }
  out.append(text.substr(copied));
  return out;
}

}  // namespace supportd::filter
