// Check digits and structure of card, ID and phone numbers for PII masking (see
// pii_checksums.h).
#include "filter/pii_checksums.h"

#include <algorithm>
#include <array>
#include <chrono>

namespace supportd::filter {
namespace {

bool all_digits(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The number formed by the first `n` digits.
int prefix(std::string_view digits, std::size_t n) {
  int value = 0;
  for (std::size_t i = 0; i < n && i < digits.size(); ++i)
    value = value * 10 + (digits[i] - '0');
  return value;
}

int number(std::string_view digits) {
  return prefix(digits, digits.size());
}

bool in(int value, int low, int high) {
  return value >= low && value <= high;
}

}  // namespace

bool luhn_valid(std::string_view digits) {
  if (!all_digits(digits)) return false;
  int sum = 0;
  bool twice = false;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    int d = *it - '0';
    if (twice) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    twice = !twice;
  }
  return sum % 10 == 0;
}

bool card_issuer_known(std::string_view digits) {
  const std::size_t n = digits.size();
  if (!all_digits(digits) || n < 13 || n > 19) return false;
  const int p1 = prefix(digits, 1), p2 = prefix(digits, 2), p3 = prefix(digits, 3),
            p4 = prefix(digits, 4);
  if (p1 == 4) return n == 13 || n == 16 || n == 19;                         // Visa
  if (in(p2, 51, 55) || in(p4, 2221, 2720)) return n == 16;                  // Mastercard
  if (p2 == 34 || p2 == 37) return n == 15;                                  // Amex
  if (p2 == 62 || p2 == 81) return n >= 16;                                  // UnionPay
  if (p4 == 6011 || in(p3, 644, 649) || p2 == 65) return n >= 16;            // Discover
  if (in(p4, 3528, 3589)) return n >= 16;                                    // JCB
  if (in(p3, 300, 305) || p2 == 36 || p2 == 38 || p2 == 39) return n >= 14;  // Diners
  if (p2 == 50 || in(p2, 56, 69)) return n >= 13;                            // Maestro
  return false;
}

bool chinese_id_valid(std::string_view id) {
  if (id.size() != 18 || !all_digits(id.substr(0, 17))) return false;
  const char check = id[17];
  if (!((check >= '0' && check <= '9') || check == 'X' || check == 'x')) return false;

  const int province = prefix(id, 2);
  static constexpr std::array<int, 34> kProvinces = {11, 12, 13, 14, 15, 21, 22, 23, 31, 32, 33, 34,
                                                     35, 36, 37, 41, 42, 43, 44, 45, 46, 50, 51, 52,
                                                     53, 54, 61, 62, 63, 64, 65, 71, 81, 82};
  if (std::find(kProvinces.begin(), kProvinces.end(), province) == kProvinces.end()) return false;

  using namespace std::chrono;
  const year_month_day birth{year{number(id.substr(6, 4))},
                             month{static_cast<unsigned>(number(id.substr(10, 2)))},
                             day{static_cast<unsigned>(number(id.substr(12, 2)))}};
  const year_month_day today{floor<days>(system_clock::now())};
  if (!birth.ok() || birth.year() < year{1900} || sys_days{birth} > sys_days{today}) return false;

  static constexpr std::array<int, 17> kWeights = {7, 9, 10, 5,  8, 4, 2, 1, 6,
                                                   3, 7, 9,  10, 5, 8, 4, 2};
  int sum = 0;
  for (std::size_t i = 0; i < 17; ++i)
    sum += (id[i] - '0') * kWeights[i];
  constexpr std::string_view kCheck = "10X98765432";
  const char expected = kCheck[static_cast<std::size_t>(sum % 11)];
  return expected == (check == 'x' ? 'X' : check);
}

}  // namespace supportd::filter
