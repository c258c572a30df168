// HTTP requests and responses as plain data: what handlers above http/ see. No Beast types.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "http/websocket.h"

namespace supportd::http {

class ReplyStream;

using Headers = std::vector<std::pair<std::string, std::string>>;

struct Request {
  std::string method;  // "GET", "POST", ...
  std::string target;  // as sent: path and query
  std::string path;    // decoded path without the query
  std::string query;   // raw query string, without '?'
  Headers headers;     // names in lower case
  std::string body;
  std::string remote;  // peer address
  Headers params;      // path parameters bound by the router ("{id}" -> value)
  bool websocket_upgrade =
      false;  // a valid WebSocket upgrade request (answer with Response::websocket)

  // The first header with this (lower-case) name, or empty.
  std::string_view header(std::string_view name) const;
  // A path parameter bound by the router, or empty.
  std::string_view param(std::string_view name) const;
  // A query parameter, percent-decoded; nullopt when absent.
  std::optional<std::string> query_param(std::string_view name) const;
};

struct Response {
  int status = 200;
  std::string content_type = "application/json";
  Headers headers;
  std::string body;
  // When set, the answer comes later, from another thread, through this stream (a deferred
  // whole response, or a streamed body such as server-sent events); `headers` set here are
  // sent with it.
  std::shared_ptr<ReplyStream> stream;
  // When set on a WebSocket upgrade request, the connection becomes this socket's.
  std::shared_ptr<WebSocketHandler> websocket;

  static Response json(int status, std::string body);
  static Response text(int status, std::string body,
                       std::string content_type = "text/plain; charset=utf-8");
  static Response deferred(std::shared_ptr<ReplyStream> stream);
  static Response upgrade(std::shared_ptr<WebSocketHandler> handler);
};

// {"error":{"message":...,"type":...,"code":...}} in OpenAI's shape.
std::string error_body(std::string_view message, std::string_view type, std::string_view code = {},
                       std::string_view param = {});
Response error_response(int status, std::string_view message, std::string_view type,
                        std::string_view code = {}, std::string_view param = {});

// Decodes %XX escapes; `plus_as_space` for query strings (form encoding).
std::string percent_decode(std::string_view text, bool plus_as_space);

// ASCII lower case: header names, URL schemes and hosts (case-insensitive in HTTP).
std::string lower_case(std::string_view text);

}  // namespace supportd::http
