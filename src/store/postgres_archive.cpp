// The PostgreSQL archive (postgres_archive.h): one connection with a watchdog, prepared
// statements, sessions and messages read and written in batches, behind a circuit breaker.
#include "store/postgres_archive.h"

#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <pqxx/pqxx>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <unordered_map>

#include "store/db_span.h"
#include "store/postgres_schema.h"
#include "store/session_id.h"

namespace supportd::store {
namespace {

using Clock = std::chrono::steady_clock;

std::string connection_string(const PostgresArchive::Options& options) {
  const long long connect_seconds =
      std::max<long long>(2, (options.connect_timeout.count() + 999) / 1000);
  const std::string timeout = std::to_string(options.statement_timeout.count());
  const bool uri =
      options.uri.rfind("postgresql://", 0) == 0 || options.uri.rfind("postgres://", 0) == 0;
  if (uri) {
    return options.uri + (options.uri.find('?') == std::string::npos ? "?" : "&") +
           "connect_timeout=" + std::to_string(connect_seconds) + "&tcp_user_timeout=" + timeout +
           "&keepalives=1&keepalives_idle=5&keepalives_interval=2&keepalives_count=2"
           "&application_name=supportd&options=-c%20statement_timeout%3D" +
           timeout;
  }
  return options.uri + " connect_timeout=" + std::to_string(connect_seconds) +
         " tcp_user_timeout=" + timeout +
         " keepalives=1 keepalives_idle=5 keepalives_interval=2 keepalives_count=2"
         " application_name=supportd options='-c statement_timeout=" +
         timeout + "'";
}

// A PostgreSQL array literal of strings: {"a","b\"c"}.
std::string text_array(const std::vector<std::string>& values) {
  std::string out = "{";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) out += ',';
    out += '"';
    for (char c : values[i]) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  return out + "}";
}

std::string int_array(const std::vector<std::int64_t>& values) {
  std::string out = "{";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(values[i]);
  }
  return out + "}";
}

constexpr const char* kSessionColumns =
    "token, tenant, user_id, created_ms, last_seq, handoff, agent, handoff_ms, state_version, "
    "coalesce(csat, 0)";

SessionView read_session(const pqxx::row& row) {
  SessionView view;
  Conversation& c = view.conversation;
  c.session = row[0].as<std::string>();
  c.tenant = row[1].as<std::string>();
  c.user = row[2].as<std::string>();
  c.created_ms = row[3].as<std::int64_t>();
  c.last_seq = row[4].as<std::int64_t>();
  c.handoff = static_cast<Handoff>(std::clamp(row[5].as<int>(), 0, 3));
  c.agent = row[6].as<std::string>();
  c.handoff_ms = row[7].as<std::int64_t>();
  view.state_version = row[8].as<std::int64_t>();
  const int csat = row[9].as<int>();
  if (csat >= 1 && csat <= 5) c.csat = csat;
  return view;
}

std::vector<Message> read_messages(const pqxx::result& result) {
  std::vector<Message> messages;
  messages.reserve(result.size());
  for (const pqxx::row& row : result) {
    messages.push_back(
        {row[0].as<std::int64_t>(), static_cast<Role>(std::clamp(row[1].as<int>(), 0, 3)),
         row[2].as<std::string>(), row[3].as<std::int64_t>(), row[4].as<std::string>()});
  }
  return messages;
}

void prepare_statements(pqxx::connection& db) {
  db.prepare("upsert_session",
             "INSERT INTO supportd.sessions AS s (key, token, tenant, user_id, created_ms, "
             "last_seq, handoff, agent, handoff_ms, state_version, csat) "
             "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, NULLIF($11::int, 0)) "
             "ON CONFLICT (key) DO UPDATE SET "
             "last_seq = GREATEST(s.last_seq, EXCLUDED.last_seq), "
             "handoff = CASE WHEN EXCLUDED.state_version > s.state_version "
             "THEN EXCLUDED.handoff ELSE s.handoff END, "
             "agent = CASE WHEN EXCLUDED.state_version > s.state_version "
             "THEN EXCLUDED.agent ELSE s.agent END, "
             "handoff_ms = CASE WHEN EXCLUDED.state_version > s.state_version "
             "THEN EXCLUDED.handoff_ms ELSE s.handoff_ms END, "
             "csat = CASE WHEN EXCLUDED.state_version > s.state_version "
             "THEN EXCLUDED.csat ELSE s.csat END, "
             "state_version = GREATEST(s.state_version, EXCLUDED.state_version) "
             "RETURNING last_seq");
  db.prepare("insert_messages",
             "INSERT INTO supportd.messages (session_key, seq_id, role, body, created_ms, meta) "
             "SELECT $1, m.* FROM unnest($2::bigint[], $3::smallint[], $4::text[], "
             "$5::bigint[], $6::text[]) AS m ON CONFLICT (session_key, seq_id) DO NOTHING "
             "RETURNING seq_id");
  db.prepare("existing_messages",
             "SELECT seq_id, role, body, created_ms FROM supportd.messages "
             "WHERE session_key = $1 AND seq_id = ANY($2::bigint[])");
  db.prepare("upsert_rating",
             "INSERT INTO supportd.answer_ratings AS r (session_key, seq_id, thumb, rated_ms) "
             "VALUES ($1, $2, $3, $4) ON CONFLICT (session_key, seq_id) DO UPDATE SET "
             "thumb = EXCLUDED.thumb, rated_ms = EXCLUDED.rated_ms "
             "WHERE r.rated_ms <= EXCLUDED.rated_ms");
  db.prepare("load_session",
             std::string("SELECT ") + kSessionColumns + " FROM supportd.sessions WHERE key = $1");
  db.prepare("messages",
             "SELECT seq_id, role, body, created_ms, meta FROM supportd.messages "
             "WHERE session_key = $1 AND seq_id BETWEEN $2 AND $3 ORDER BY seq_id");
  db.prepare("ratings",
             "SELECT seq_id, thumb FROM supportd.answer_ratings WHERE session_key = $1 "
             "ORDER BY seq_id");
  db.prepare("waiting", std::string("SELECT ") + kSessionColumns +
                            " FROM supportd.sessions WHERE tenant = $1 AND handoff = 1 "
                            "ORDER BY handoff_ms, key LIMIT $2");
  db.prepare("sessions_page",
             "SELECT key, token FROM supportd.sessions WHERE key > $1 ORDER BY key LIMIT $2");
}

// Each call's span: its db.operation.name and db.query.summary (the tables it touches).
struct CallSpan {
  std::string_view what;  // run()'s `what`
  const char* operation;
  const char* summary;
};
constexpr CallSpan kCallSpans[] = {
    {"write", "INSERT", "INSERT supportd.sessions supportd.messages supportd.answer_ratings"},
    {"load", "SELECT", "SELECT supportd.sessions supportd.messages"},
    {"messages", "SELECT", "SELECT supportd.messages"},
    {"ratings", "SELECT", "SELECT supportd.answer_ratings"},
    {"waiting", "SELECT", "SELECT supportd.sessions"},
    {"list sessions", "SELECT", "SELECT supportd.sessions"},
};

// The span of call `what`; null for connect, which has none of its own.
const CallSpan* span_of(std::string_view what) {
  for (const CallSpan& call : kCallSpans)
    if (call.what == what) return &call;
  return nullptr;
}

}  // namespace

// One connection and the watchdog that cuts it when the server stops answering.
struct PostgresArchive::Connection {
  std::mutex mutex;                      // one call at a time
  std::unique_ptr<pqxx::connection> db;  // guarded by mutex
  // What spans say of the open connection (guarded by mutex): "{database}.supportd", the
  // server's host (or socket directory) and port.
  std::string db_namespace;
  std::string host;
  int port = 0;

  std::mutex watch_mutex;
  std::condition_variable watch_wake;
  int watched_fd = -1;         // guarded by watch_mutex: the socket of the call in progress
  Clock::time_point deadline;  // guarded by watch_mutex
  bool stopping = false;       // guarded by watch_mutex
  std::thread watchdog;

  Connection() {
    watchdog = std::thread([this] {
      std::unique_lock lock(watch_mutex);
      while (!stopping) {
        if (watched_fd < 0) {
          watch_wake.wait(lock);
        } else if (Clock::now() < deadline) {
          watch_wake.wait_until(lock, deadline);
        } else {
          // The server has not answered in time: make the blocked libpq call fail now.
          ::shutdown(watched_fd, SHUT_RDWR);
          watched_fd = -1;
        }
      }
    });
  }
  ~Connection() {
    {
      std::lock_guard lock(watch_mutex);
      stopping = true;
    }
    watch_wake.notify_all();
    watchdog.join();
  }
  void watch(int fd, Clock::duration limit) {
    {
      std::lock_guard lock(watch_mutex);
      watched_fd = fd;
      deadline = Clock::now() + limit;
    }
    watch_wake.notify_all();
  }
  void unwatch() {
    std::lock_guard lock(watch_mutex);
    watched_fd = -1;
  }
};

PostgresArchive::PostgresArchive(Options options)
    : options_(std::move(options)),
      breaker_(options_.min_backoff, options_.max_backoff),
      connection_(std::make_unique<Connection>()) {}

PostgresArchive::~PostgresArchive() = default;

Status PostgresArchive::run(const char* what, const std::function<void(Connection&)>& body) {
  const CallSpan* call = span_of(what);
  if (call == nullptr) return attempt(what, body, nullptr);
  DbSpan span(DbSystem::kPostgresql, call->operation, call->summary);
  return span.outcome(attempt(what, body, &span));
}

Status PostgresArchive::attempt(const char* what, const std::function<void(Connection&)>& body,
                                DbSpan* span) {
  if (!breaker_.allow()) {
    return Error::make(ErrorCode::kUnavailable, "PostgreSQL is down (retrying in the background)");
  }
  Connection& c = *connection_;
  std::lock_guard lock(c.mutex);
  const auto unavailable = [&](const std::string& why) {
    c.unwatch();
    c.db.reset();
    breaker_.failure();
    return Error::make(ErrorCode::kUnavailable, std::string("PostgreSQL ") + what + ": " + why);
  };
  try {
    if (!c.db || !c.db->is_open()) {
      c.db.reset();
      auto db = std::make_unique<pqxx::connection>(connection_string(options_));
      c.watch(db->sock(), options_.statement_timeout * 4);
      migrate_schema(*db);
      prepare_statements(*db);
      c.unwatch();
      const char* host = db->hostname();
      const char* port = db->port();
      c.db_namespace = std::string(db->dbname()) + ".supportd";
      c.host = host != nullptr ? host : "";
      c.port = port != nullptr ? std::atoi(port) : 0;
      c.db = std::move(db);
    }
    if (span != nullptr) span->target(c.db_namespace, c.host, c.port);
    c.watch(c.db->sock(), options_.statement_timeout + std::chrono::seconds(1));
    body(c);
    c.unwatch();
    breaker_.success();
    return {};
  } catch (const pqxx::broken_connection& e) {
    return unavailable(e.what());
  } catch (const pqxx::in_doubt_error& e) {
    return unavailable(e.what());
  } catch (const pqxx::sql_error& e) {
    const std::string state = e.sqlstate();
    if (span != nullptr && !state.empty()) span->set("db.response.status_code", state);
    // 08: connection exceptions; 57: cancelled, shut down, starting up; 53: out of resources.
    if (state.rfind("08", 0) == 0 || state.rfind("57", 0) == 0 || state.rfind("53", 0) == 0)
      return unavailable(e.what());
    c.unwatch();
    c.db.reset();
    return Error::make(ErrorCode::kInternal, std::string("PostgreSQL ") + what + ": " + e.what());
  } catch (const SchemaTooNew& e) {
    c.unwatch();
    c.db.reset();
    return Error::make(ErrorCode::kUnsupported, e.what());
  } catch (const std::exception& e) {
    c.unwatch();
    c.db.reset();
    return Error::make(ErrorCode::kInternal, std::string("PostgreSQL ") + what + ": " + e.what());
  }
}

Status PostgresArchive::connect() {
  return run("connect", [](Connection&) {});
}

Result<std::vector<PostgresArchive::Conflict>> PostgresArchive::write(
    const std::vector<PendingSession>& batch) {
  std::vector<Conflict> conflicts;
  Status status = run("write", [&](Connection& c) {
    conflicts.clear();
    pqxx::work work(*c.db);
    // The journal forgets what this commit writes: it must be durable when it returns, even
    // on a server configured with synchronous_commit = off.
    work.exec("SET LOCAL synchronous_commit TO on");
    for (std::size_t s = 0; s < batch.size(); ++s) {
      const PendingSession& p = batch[s];
      const Conversation& session = p.view.conversation;
      const std::string key = session_key(session.session);
      const std::int64_t last = p.view.recent.empty() ? 0 : p.view.recent.back().seq_id;
      const pqxx::result upserted = work.exec_prepared(
          "upsert_session", key, session.session, session.tenant, session.user, session.created_ms,
          last, static_cast<int>(session.handoff), session.agent, session.handoff_ms,
          p.view.state_version, session.csat.value_or(0));
      const std::int64_t archived_last =
          upserted.empty() ? last : upserted[0][0].as<std::int64_t>();
      if (!p.view.recent.empty()) {
        std::vector<std::int64_t> seqs, roles, created;
        std::vector<std::string> bodies, metas;
        std::unordered_map<std::int64_t, std::size_t> index;
        for (std::size_t i = 0; i < p.view.recent.size(); ++i) {
          const Message& m = p.view.recent[i];
          seqs.push_back(m.seq_id);
          roles.push_back(static_cast<int>(m.role));
          bodies.push_back(m.text);
          created.push_back(m.created_ms);
          metas.push_back(m.meta);
          index[m.seq_id] = i;
        }
        const pqxx::result inserted =
            work.exec_prepared("insert_messages", key, int_array(seqs), int_array(roles),
                               text_array(bodies), int_array(created), text_array(metas));
        if (inserted.size() != seqs.size()) {
          // Already there: a replay of this batch (the same message), or another writer's.
          for (const pqxx::row& row : inserted)
            index.erase(row[0].as<std::int64_t>());
          std::vector<std::int64_t> existing;
          for (const auto& [seq, i] : index)
            existing.push_back(seq);
          const pqxx::result rows =
              work.exec_prepared("existing_messages", key, int_array(existing));
          for (const pqxx::row& row : rows) {
            const std::size_t i = index.at(row[0].as<std::int64_t>());
            const Message& mine = p.view.recent[i];
            if (row[1].as<int>() != static_cast<int>(mine.role) ||
                row[2].as<std::string>() != mine.text ||
                row[3].as<std::int64_t>() != mine.created_ms) {
              conflicts.push_back({s, i, archived_last});
            }
          }
        }
      }
      for (std::size_t i = 0; i < p.ratings.size(); ++i) {
        work.exec_prepared("upsert_rating", key, p.ratings[i].seq_id,
                           static_cast<int>(p.ratings[i].thumb), p.rating_ms[i]);
      }
    }
    work.commit();
  });
  if (!status) return status.error();
  if (!conflicts.empty()) {
    spdlog::error(
        "store: {} messages found another message archived at their seq_id (two "
        "processes wrote one session while Redis was out of reach); they move to new "
        "seq_ids",
        conflicts.size());
  }
  return conflicts;
}

Result<std::optional<SessionView>> PostgresArchive::load(std::string_view key, std::size_t recent) {
  std::optional<SessionView> view;
  Status status = run("load", [&](Connection& c) {
    view.reset();
    pqxx::read_transaction work(*c.db);
    const pqxx::result session = work.exec_prepared("load_session", std::string(key));
    if (session.empty()) return;
    view = read_session(session[0]);
    const std::int64_t last = view->conversation.last_seq;
    if (recent > 0 && last > 0) {
      const std::int64_t from =
          std::max<std::int64_t>(1, last - static_cast<std::int64_t>(recent) + 1);
      view->recent = read_messages(work.exec_prepared("messages", std::string(key), from, last));
    }
  });
  if (!status) return status.error();
  return view;
}

Result<std::vector<Message>> PostgresArchive::messages(std::string_view key, std::int64_t from_seq,
                                                       std::int64_t to_seq) {
  std::vector<Message> messages;
  Status status = run("messages", [&](Connection& c) {
    pqxx::read_transaction work(*c.db);
    messages = read_messages(work.exec_prepared("messages", std::string(key), from_seq, to_seq));
  });
  if (!status) return status.error();
  return messages;
}

Result<std::vector<Feedback::Rating>> PostgresArchive::ratings(std::string_view key) {
  std::vector<Feedback::Rating> ratings;
  Status status = run("ratings", [&](Connection& c) {
    ratings.clear();
    pqxx::read_transaction work(*c.db);
    for (const pqxx::row& row : work.exec_prepared("ratings", std::string(key))) {
      ratings.push_back(
          {row[0].as<std::int64_t>(), row[1].as<int>() != 0 ? Thumb::kUp : Thumb::kDown});
    }
  });
  if (!status) return status.error();
  return ratings;
}

Result<std::vector<Conversation>> PostgresArchive::waiting(std::string_view tenant,
                                                           std::size_t limit) {
  std::vector<Conversation> conversations;
  Status status = run("waiting", [&](Connection& c) {
    conversations.clear();
    pqxx::read_transaction work(*c.db);
    for (const pqxx::row& row :
         work.exec_prepared("waiting", std::string(tenant), static_cast<std::int64_t>(limit))) {
      conversations.push_back(read_session(row).conversation);
    }
  });
  if (!status) return status.error();
  return conversations;
}

Status PostgresArchive::for_each_session(const std::function<void(const std::string&)>& visit) {
  std::string after;
  constexpr std::int64_t kPage = 10000;
  for (;;) {
    std::vector<std::pair<std::string, std::string>> page;
    Status status = run("list sessions", [&](Connection& c) {
      page.clear();
      pqxx::read_transaction work(*c.db);
      for (const pqxx::row& row : work.exec_prepared("sessions_page", after, kPage))
        page.emplace_back(row[0].as<std::string>(), row[1].as<std::string>());
    });
    if (!status) return status;
    for (const auto& [key, token] : page)
      visit(token);
    if (static_cast<std::int64_t>(page.size()) < kPage) return {};
    after = page.back().first;
  }
}

}  // namespace supportd::store
