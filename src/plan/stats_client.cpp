// One bounded GET through the load tester's HTTP client, on an event loop of its own.
#include "plan/stats_client.h"

#include <fmt/format.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

#include <chrono>

#include "bench/http_client.h"
#include "bench/target.h"

namespace supportd::plan {

Result<std::string> http_get(const std::string& url, const std::string& path,
                             const std::string& api_key, double timeout_s) {
  auto target = bench::parse_target(url);
  if (!target) return target.error();
  boost::asio::io_context io;
  bench::HttpClient client(io, *target, url, api_key, timeout_s, timeout_s);
  const auto timeout = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(timeout_s));
  Result<std::string> result = Error::make(ErrorCode::kInternal, "GET did not run");
  auto fetch = [&]() -> boost::asio::awaitable<void> {
    if (Status resolved = co_await client.resolve(); !resolved) {
      result = resolved.error();
      co_return;
    }
    auto fetched = co_await client.get(target->path(path), timeout);
    client.close();
    if (!fetched) {
      result = fetched.error();
    } else if (fetched->status != 200) {
      result = Error::make(ErrorCode::kUnavailable,
                           fmt::format("GET {}{} answered HTTP {}", url, path, fetched->status));
    } else {
      result = std::move(fetched->body);
    }
  };
  boost::asio::co_spawn(io, fetch(), boost::asio::detached);
  io.run();
  return result;
}

}  // namespace supportd::plan
