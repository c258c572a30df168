// Redis and PostgreSQL servers the fault tests start, kill, pause and restart themselves (on free
// loopback ports, PostgreSQL's data directory copied from an initdb template made once).
#include "test_servers.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

#include "loopback_ports.h"
#include "test_paths.h"

namespace supportd::store::testing {
namespace {

using supportd::testing::port_open;

namespace fs = std::filesystem;

fs::path postgres_bin() {
  fs::path best;
  for (const auto& entry : fs::directory_iterator("/usr/lib/postgresql")) {
    if (fs::exists(entry.path() / "bin" / "postgres") && entry.path() > best) best = entry.path();
  }
  return best / "bin";
}

// The uid to run PostgreSQL as: it refuses to run as root.
std::optional<std::pair<uid_t, gid_t>> postgres_user() {
  if (::geteuid() != 0) return std::nullopt;
  const passwd* user = ::getpwnam("postgres");
  if (user == nullptr) return std::nullopt;
  return std::make_pair(user->pw_uid, user->pw_gid);
}

void chown_tree(const fs::path& root) {
  const auto user = postgres_user();
  if (!user) return;
  ::chown(root.c_str(), user->first, user->second);
  for (const auto& entry : fs::recursive_directory_iterator(root))
    ::lchown(entry.path().c_str(), user->first, user->second);
}

// Starts `argv` (as the postgres user when `as_postgres` and running as root), with its output
// in `log`. The child gets SIGKILL/SIGQUIT when this process dies.
pid_t spawn(const std::vector<std::string>& argv, const fs::path& log, bool as_postgres,
            int death_signal) {
  const auto user = as_postgres ? postgres_user() : std::nullopt;
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  ::setpgid(0, 0);
  const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (out >= 0) {
    ::dup2(out, 1);
    ::dup2(out, 2);
  }
  if (user) {
    if (::setgid(user->second) != 0 || ::setuid(user->first) != 0) ::_exit(126);
  }
  ::prctl(PR_SET_PDEATHSIG, death_signal);  // after setuid, which clears it
  std::vector<char*> args;
  for (const std::string& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  ::execv(args[0], args.data());
  ::_exit(127);
}

int run(const std::vector<std::string>& argv, const fs::path& log, bool as_postgres) {
  const pid_t pid = spawn(argv, log, as_postgres, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void reap(pid_t& pid, int signal) {
  if (pid <= 0) return;
  ::kill(pid, SIGCONT);
  ::kill(pid, signal);
  int status = 0;
  ::waitpid(pid, &status, 0);
  pid = -1;
}

// initdb once into the build's test data; later calls reuse it.
fs::path postgres_template() {
  const fs::path root = supportd::testing::test_data_dir();
  const fs::path done = root / "postgres-template";
  if (fs::exists(done / "PG_VERSION")) return done;
  fs::create_directories(root);
  const fs::path staging =
      fs::temp_directory_path() / ("supportd-initdb-" + std::to_string(::getpid()));
  fs::remove_all(staging);
  fs::create_directories(staging);
  chown_tree(staging);
  const int rc = run({(postgres_bin() / "initdb").string(), "-D", (staging / "data").string(), "-U",
                      "supportd", "--auth=trust", "--no-sync"},
                     staging / "initdb.log", true);
  EXPECT_EQ(rc, 0) << "initdb failed; see " << (staging / "initdb.log");
  const fs::path partial = root / ("postgres-template.partial." + std::to_string(::getpid()));
  fs::remove_all(partial);
  fs::copy(staging / "data", partial, fs::copy_options::recursive);
  fs::remove_all(staging);
  std::error_code ec;
  fs::rename(partial, done, ec);  // another test process may have won: use its copy
  if (ec) fs::remove_all(partial);
  return done;
}

}  // namespace

std::string required_env(const char* variable) {
  const char* value = std::getenv(variable);
  if (value == nullptr || *value == '\0') {
    ADD_FAILURE() << variable << " is not set: run the tests through scripts/test.sh (or "
                  << "`source scripts/services.sh; services_start DIR`), which starts Redis and "
                     "PostgreSQL for them";
    return {};
  }
  return value;
}

RedisServer::RedisServer(fs::path dir) : dir_(std::move(dir)), port_(free_port()) {
  fs::create_directories(dir_);
}

RedisServer::~RedisServer() {
  kill();
}

bool RedisServer::start() {
  kill();
  pid_ = spawn({"/usr/bin/redis-server", "--bind", "127.0.0.1", "--port", std::to_string(port_),
                "--save", "", "--appendonly", "no", "--dir", dir_.string()},
               dir_ / "redis.log", false, SIGKILL);
  for (int i = 0; i < 200; ++i) {
    if (port_open(port_)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  return false;
}

void RedisServer::kill() {
  reap(pid_, SIGKILL);
}

void RedisServer::pause() {
  if (pid_ > 0) ::kill(pid_, SIGSTOP);
}

void RedisServer::resume() {
  if (pid_ > 0) ::kill(pid_, SIGCONT);
}

PostgresServer::PostgresServer(fs::path dir) : dir_(std::move(dir)), port_(free_port()) {
  fs::create_directories(dir_);
  const fs::path data = dir_ / "data";
  fs::copy(postgres_template(), data, fs::copy_options::recursive);
  fs::permissions(data, fs::perms::owner_all, fs::perm_options::replace);
  fs::create_directories(dir_ / "socket");
  chown_tree(dir_);
}

PostgresServer::~PostgresServer() {
  kill();
}

bool PostgresServer::start() {
  kill();
  pid_ = spawn({(postgres_bin() / "postgres").string(), "-D", (dir_ / "data").string(), "-h",
                "127.0.0.1", "-p", std::to_string(port_), "-k", (dir_ / "socket").string(), "-c",
                "fsync=off", "-c", "synchronous_commit=off", "-c", "max_connections=40"},
               dir_ / "postgres.log", true, SIGQUIT);
  const std::string isready = (postgres_bin() / "pg_isready").string();
  for (int i = 0; i < 400; ++i) {
    if (port_open(port_) &&
        run({isready, "-q", "-h", "127.0.0.1", "-p", std::to_string(port_), "-U", "supportd"},
            "/dev/null", false) == 0) {
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  return false;
}

void PostgresServer::signal_all(int signal) {
  if (pid_ <= 0) return;
  // The postmaster and its children (each backend is its own process group leader).
  ::kill(pid_, signal);
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    std::getline(stat, line);
    const std::size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(line.substr(close + 2));
    std::string state;
    pid_t parent = 0;
    fields >> state >> parent;
    if (parent == pid_) ::kill(static_cast<pid_t>(std::stoi(name)), signal);
  }
}

void PostgresServer::kill() {
  if (pid_ <= 0) return;
  signal_all(SIGCONT);
  ::kill(pid_, SIGQUIT);  // immediate shutdown: backends are killed, no checkpoint
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
}

void PostgresServer::pause() {
  signal_all(SIGSTOP);
}

void PostgresServer::resume() {
  signal_all(SIGCONT);
}

}  // namespace supportd::store::testing
