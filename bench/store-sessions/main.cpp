// Append and history throughput and latency of the session stores, through store::Sessions
// (id verification included), as the desk uses them. bench/store-sessions/run drives it.
//   store_sessions_bench --dir D [--redis H:P --postgres URI] [--sync] [--threads N]
//                        [--sessions S] [--appends A] [--reads R] [--history H]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <spdlog/spdlog.h>

#include "store/open_stores.h"

namespace {

using Clock = std::chrono::steady_clock;
using supportd::store::NewMessage;
using supportd::store::Role;

struct Args {
  std::string dir;
  std::string redis;
  std::string postgres;
  bool sync = false;
  int threads = 1;
  int sessions = 200;
  int appends = 4000;
  int reads = 4000;
  int history = 20;
};

Args parse(int argc, char** argv) {
  Args args;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto next = [&] {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return std::string(argv[++i]);
    };
    if (a == "--dir") {
      args.dir = next();
    } else if (a == "--redis") {
      args.redis = next();
    } else if (a == "--postgres") {
      args.postgres = next();
    } else if (a == "--sync") {
      args.sync = true;
    } else if (a == "--threads") {
      args.threads = std::stoi(next());
    } else if (a == "--sessions") {
      args.sessions = std::stoi(next());
    } else if (a == "--appends") {
      args.appends = std::stoi(next());
    } else if (a == "--reads") {
      args.reads = std::stoi(next());
    } else if (a == "--history") {
      args.history = std::stoi(next());
    } else {
      std::fprintf(stderr, "unknown argument %s\n", a.c_str());
      std::exit(2);
    }
  }
  if (args.dir.empty() || args.threads < 1 || args.sessions < 1) {
    std::fprintf(stderr, "usage: store_sessions_bench --dir D [--redis H:P --postgres URI] ...\n");
    std::exit(2);
  }
  return args;
}

struct Phase {
  double seconds = 0;
  std::vector<double> latencies_us;
  int failures = 0;
};

// Runs `count` operations over `threads` threads; op(thread, i) returns success.
template <typename Op>
Phase run(int threads, int count, Op op) {
  std::vector<std::vector<double>> latencies(static_cast<std::size_t>(threads));
  std::atomic<int> failures{0};
  std::atomic<int> next{0};
  const Clock::time_point start = Clock::now();
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      for (int i; (i = next.fetch_add(1)) < count;) {
        const Clock::time_point before = Clock::now();
        if (!op(t, i)) failures.fetch_add(1);
        latencies[static_cast<std::size_t>(t)].push_back(
            std::chrono::duration<double, std::micro>(Clock::now() - before).count());
      }
    });
  }
  for (auto& worker : workers)
    worker.join();
  Phase phase;
  phase.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  for (auto& l : latencies)
    phase.latencies_us.insert(phase.latencies_us.end(), l.begin(), l.end());
  std::sort(phase.latencies_us.begin(), phase.latencies_us.end());
  phase.failures = failures.load();
  return phase;
}

double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  return sorted[std::min(sorted.size() - 1,
                         static_cast<std::size_t>(p * static_cast<double>(sorted.size())))];
}

void report(const char* what, const Phase& phase) {
  std::printf("%-8s %9.0f ops/s  p50 %8.1f us  p99 %8.1f us  max %9.1f us  failures %d\n", what,
              static_cast<double>(phase.latencies_us.size()) / phase.seconds,
              percentile(phase.latencies_us, 0.50), percentile(phase.latencies_us, 0.99),
              phase.latencies_us.empty() ? 0 : phase.latencies_us.back(), phase.failures);
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = parse(argc, argv);
  spdlog::set_level(spdlog::level::warn);
  supportd::store::StoreConfig config;
  config.data_dir = args.dir;
  config.redis = args.redis;
  config.postgres = args.postgres;
  config.sync_every_commit = args.sync;
  supportd::Result<supportd::store::Stores> stores = supportd::store::open_stores(config);
  if (!stores) {
    std::fprintf(stderr, "cannot open the stores: %s\n", stores.error().message.c_str());
    return 1;
  }
  supportd::store::Sessions& sessions = *stores->sessions;
  std::vector<std::string> ids;
  for (int s = 0; s < args.sessions; ++s) {
    auto created = sessions.create("bench", "user" + std::to_string(s));
    if (!created) {
      std::fprintf(stderr, "create: %s\n", created.error().message.c_str());
      return 1;
    }
    ids.push_back(created->session);
  }
  // A customer-service sized message: about 200 bytes.
  const std::string text =
      "Hello, I ordered a blue jacket last Tuesday (order 55-1234) and the tracking page has not "
      "changed since Thursday. Could you tell me where the parcel is and when it will arrive?";
  const Phase appends = run(args.threads, args.appends, [&](int, int i) {
    const std::string& id = ids[static_cast<std::size_t>(i % args.sessions)];
    return sessions.append(id, NewMessage{i % 2 ? Role::kAssistant : Role::kUser, text}).ok();
  });
  const Clock::time_point flush_start = Clock::now();
  const bool flushed = sessions.flush(std::chrono::seconds(120)).ok();
  const double flush_seconds = std::chrono::duration<double>(Clock::now() - flush_start).count();
  const Phase reads = run(args.threads, args.reads, [&](int, int i) {
    const std::string& id = ids[static_cast<std::size_t>((i * 7919) % args.sessions)];
    auto history = sessions.history(id, static_cast<std::size_t>(args.history));
    return history.ok() && !history->empty();
  });
  std::printf("backend %s%s, %d threads, %d sessions, %d appends, %d reads of the last %d\n",
              sessions.stats().store.backend, args.sync ? " (fsync every commit)" : "",
              args.threads, args.sessions, args.appends, args.reads, args.history);
  report("append", appends);
  report("history", reads);
  if (std::string(sessions.stats().store.backend) == "tiered") {
    std::printf("write-behind caught up %.2f s after the last append (%s)\n", flush_seconds,
                flushed ? "all in PostgreSQL" : "NOT all in PostgreSQL");
  }
  return appends.failures + reads.failures > 0 || !flushed ? 1 : 0;
}
