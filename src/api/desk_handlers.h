// The desk's HTTP endpoints (docs/api.md, "The customer-service desk"): sessions, messages,
// history, feedback, handoff, one-shot answers, the agent API, and the admin reload.
#pragma once

#include "api/routes.h"
#include "http/message.h"

namespace supportd::api {

http::Response start_session(Services& services, http::Request& request);
http::Response post_message(Services& services, http::Request& request);
http::Response get_messages(Services& services, http::Request& request);
http::Response post_feedback(Services& services, http::Request& request);
http::Response post_handoff(Services& services, http::Request& request);
http::Response post_answer(Services& services, http::Request& request);

http::Response agent_list(Services& services, http::Request& request);
http::Response agent_conversation(Services& services, http::Request& request);
// `action`: "take", "reply", "close" or "release".
http::Response agent_action(Services& services, http::Request& request, const std::string& action);

http::Response reload_knowledge(Services& services, http::Request& request);

}  // namespace supportd::api
