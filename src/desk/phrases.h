// What the desk says to customers in its own words (handoff, waiting, fallback), one table per
// language, looked up by a named field. A language without a table gets English.
// Thread-safety: constant data and pure functions, safe from any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "desk/answer.h"

namespace supportd::desk {

// One language's phrases. Every field is set in every table (tests/desk/phrases_test.cpp).
struct Phrases {
  std::string_view language;        // the code detect_language gives ("en", "zh")
  std::string_view connecting;      // the customer asked for a person: one is being called
  std::string_view waiting;         // a person was already called: the message waits for them
  std::string_view no_answer;       // fallback without any article to offer
  std::string_view articles_intro;  // fallback: the articles listed after this may help
  std::string_view offer_intro;     // after the best entry's answer: the next ones listed
  std::string_view person_called;   // fallback: low confidence called a person
  std::string_view person_offered;  // fallback: the customer may ask for a person
};

// The phrases for `language` (a detect_language code); English for any language without a
// table.
const Phrases& phrases_for(std::string_view language);

// Every table, for tests and for a page listing what the desk says.
const std::vector<const Phrases*>& phrase_tables();

// The fallback answer: no_answer, or articles_intro and the citations' titles numbered from 1,
// then person_called (when `person_called`) or person_offered, one per line.
std::string fallback_message(const Phrases& phrases, const std::vector<Citation>& citations,
                             bool person_called);

// The middle way (kb::SearchResult::offer): `answer` (the first citation's), then offer_intro
// and the other citations' titles numbered from 1, one per line.
std::string offer_message(const Phrases& phrases, const std::string& answer,
                          const std::vector<Citation>& citations);

}  // namespace supportd::desk
