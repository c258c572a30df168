// Check digits and structure of the numbers PII masking recognizes; they are what keeps order
// numbers, prices and dates from being masked. Thread-safe (pure functions).
#pragma once

#include <string_view>

namespace supportd::filter {

// Luhn (mod 10) check over ASCII digits. False for empty or non-digit input.
bool luhn_valid(std::string_view digits);

// True when ASCII `digits` (13-19 of them) start with a prefix a card network issues at that
// length: Visa 4; Mastercard 51-55, 2221-2720; American Express 34, 37; UnionPay 62, 81;
// Discover 6011, 644-649, 65; JCB 3528-3589; Diners 300-305, 36, 38, 39; Maestro 50, 56-69.
bool card_issuer_known(std::string_view digits);

// A Chinese resident identity number (GB 11643-1999): 18 characters, 17 digits and a check
// character (digit or X/x) by ISO 7064 MOD 11-2, a known province code (11-82) and a real
// date of birth between 1900-01-01 and today.
bool chinese_id_valid(std::string_view id);

}  // namespace supportd::filter
