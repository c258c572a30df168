// The web pages built into the binary (see static_handlers.h): path to embedded file, content
// type, ETag and conditional GET.
#include "api/static_handlers.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/embedded.h"

SUPPORTD_EMBEDDED_DIRECTORY(web_files)

namespace supportd::api {
namespace {

struct Page {
  const EmbeddedFile* file = nullptr;
  std::string content_type;
  std::string etag;  // quoted, strong: a hash of the content
};

// The Content-Security-Policy of every page (tests/e2e/web_csp.test.mjs runs them under it).
constexpr const char* kPagePolicy =
    "default-src 'self'; img-src 'self' data:; style-src 'self'; object-src 'none'; "
    "base-uri 'self'; form-action 'self'; frame-ancestors 'none'";

std::string_view extension(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  const std::size_t dot = path.rfind('.');
  if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash)) return {};
  return path.substr(dot + 1);
}

std::string content_type_for(std::string_view path) {
  const std::string_view ext = extension(path);
  if (ext == "html") return "text/html; charset=utf-8";
  if (ext == "js" || ext == "mjs") return "text/javascript; charset=utf-8";
  if (ext == "css") return "text/css; charset=utf-8";
  if (ext == "json") return "application/json";
  if (ext == "svg") return "image/svg+xml";
  if (ext == "png") return "image/png";
  if (ext == "ico") return "image/x-icon";
  if (ext == "woff2") return "font/woff2";
  if (ext == "txt" || ext == "md") return "text/plain; charset=utf-8";
  return "application/octet-stream";
}

// 64-bit FNV-1a: enough to tell two versions of a file apart.
std::string etag_for(std::span<const unsigned char> data) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : data) {
    h ^= c;
    h *= 1099511628211ull;
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string tag = "\"";
  for (int shift = 60; shift >= 0; shift -= 4)
    tag += kHex[(h >> shift) & 0xf];
  tag += '"';
  return tag;
}

// Built once from the embedded table, then read-only.
const std::unordered_map<std::string_view, Page>& pages() {
  static const auto table = [] {
    std::unordered_map<std::string_view, Page> t;
    for (const EmbeddedFile& f : web_files()) {
      t[f.path] = Page{&f, content_type_for(f.path), etag_for(f.data)};
    }
    return t;
  }();
  return table;
}

// The embedded file a URL path names: the pages by their short names, the rest under static/.
std::string_view file_for(std::string_view path) {
  if (path == "/" || path == "/index.html") return "index.html";
  if (path == "/widget.js") return "widget.js";
  if (path == "/agent" || path == "/agent/") return "agent.html";
  if (path == "/dashboard" || path == "/dashboard/") return "dashboard.html";
  if (path.starts_with("/static/") && path.find("..") == std::string_view::npos) {
    return path.substr(1);
  }
  return {};
}

// True when an If-None-Match header value lists `etag` (or is "*").
bool etag_matches(std::string_view header, std::string_view etag) {
  while (!header.empty()) {
    const std::size_t comma = header.find(',');
    std::string_view item = header.substr(0, comma);
    header = comma == std::string_view::npos ? std::string_view() : header.substr(comma + 1);
    while (!item.empty() && item.front() == ' ')
      item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ')
      item.remove_suffix(1);
    if (item.starts_with("W/")) item.remove_prefix(2);
    if (item == etag || item == "*") return true;
  }
  return false;
}

}  // namespace

http::Response serve_static(http::Request& request) {
  const std::string_view name = file_for(request.path);
  const auto& table = pages();
  const auto it = name.empty() ? table.end() : table.find(name);
  if (it == table.end()) {
    return http::error_response(404, "no such page: " + request.path, "invalid_request_error",
                                "not_found");
  }
  const Page& page = it->second;
  http::Response response;
  response.content_type = page.content_type;
  // Revalidate every time (cheap with the ETag): a new build of supportd serves new pages at once.
  response.headers.emplace_back("Cache-Control", "no-cache");
  response.headers.emplace_back("ETag", page.etag);
  response.headers.emplace_back("X-Content-Type-Options", "nosniff");
  if (name == "widget.js") {
    // Loaded by other sites' pages with a script tag.
    response.headers.emplace_back("Cross-Origin-Resource-Policy", "cross-origin");
  } else if (name.ends_with(".html")) {
    // The demo page (with the widget), the agent console and the dashboard load only their own
    // files, talk only to us, run no inline script or style, and are framed by nobody.
    response.headers.emplace_back("Referrer-Policy", "same-origin");
    response.headers.emplace_back("Content-Security-Policy", kPagePolicy);
  }
  if (etag_matches(request.header("if-none-match"), page.etag)) {
    response.status = 304;
    return response;
  }
  response.status = 200;
  response.body = std::string(page.file->text());
  return response;
}

}  // namespace supportd::api
