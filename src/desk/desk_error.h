// Why the desk could not take a customer's turn, in the desk's own words. The desk never decides
// an HTTP status: api/errors.h maps each kind to a status and a code, once, at the edge.
// Plain data and pure functions.
#pragma once

#include <string>

#include "core/status.h"

namespace supportd::desk {

// What went wrong, and what the caller must do next.
enum class DeskErrorKind {
  kInvalidSession,    // not a session id at all (malformed): start a new session
  kUnknownSession,    // a well-formed id this tenant does not have (forged, expired, another
                      // tenant's): start a new session
  kInvalidMessage,    // not UTF-8, empty, or holding a NUL; or the store refused the text as
                      // invalid: send another text
  kMessageTooLong,    // more characters than DeskOptions::max_question_characters: shorten it
  kMessageTooLarge,   // the conversation store refused the text as over its size limit
  kStoreUnavailable,  // the conversation store could not keep the message: retry later
  kBusy,              // the desk's queue of turns is full: retry in a moment
  kTooManyWaiting,    // this conversation already has DeskOptions::max_waiting_per_conversation
                      // messages waiting: send the next one once they are answered
  kInjectedFault,     // a drill's fault (POST /admin/faults) ended the turn on purpose:
                      // DeskError::injected_status is the answer the operator asked for
};

struct DeskError {
  DeskErrorKind kind = DeskErrorKind::kBusy;
  std::string message;      // for the person who sent the message
  int injected_status = 0;  // kInjectedFault only: the status the fault was armed with (400..599)
};

// The desk's error for a session id that Sessions::verify (or the tenant check) refused:
// kInvalidSession for invalid_argument (malformed), kUnknownSession otherwise.
DeskError session_error(const Error& error);
// The desk's error for a customer message the conversation store did not append: the store's
// invalid_argument and too_large blame the message; anything else is kStoreUnavailable.
DeskError append_error(const Error& error);

}  // namespace supportd::desk
