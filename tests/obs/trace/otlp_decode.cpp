// protoc decoding and the loopback collector of the OTLP tests (see otlp_decode.h).
#include "otlp_decode.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "test_paths.h"

namespace supportd::testing {
namespace {

const std::filesystem::path kProtoRoot = shared_data_dir() + "/opentelemetry-proto";
constexpr const char* kServiceProto = "opentelemetry/proto/collector/trace/v1/trace_service.proto";

}  // namespace

std::string otlp_decoding_unavailable() {
  if (!std::filesystem::exists(kProtoRoot / kServiceProto))
    return "the OTLP definitions are missing: " + (kProtoRoot / kServiceProto).string();
  if (std::system("protoc --version > /dev/null 2>&1") != 0)
    return "protoc is missing (Debian's protobuf-compiler: scripts/setup.sh installs it)";
  return {};
}

std::optional<std::string> decode_export_request(const std::string& body, std::string* error) {
  char input[] = "/tmp/supportd-otlp-XXXXXX";
  const int fd = mkstemp(input);
  if (fd < 0) return std::nullopt;
  close(fd);
  std::ofstream(input, std::ios::binary) << body;
  const std::string errors = std::string(input) + ".err";
  const std::string command =
      "protoc --decode=opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest -I '" +
      kProtoRoot.string() + "' '" + (kProtoRoot / kServiceProto).string() + "' < '" + input +
      "' 2> '" + errors + "'";
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe != nullptr) {
    char buffer[4096];
    std::size_t n;
    while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0)
      out.append(buffer, n);
  }
  const int status = pipe != nullptr ? pclose(pipe) : -1;
  std::ifstream err_file(errors);
  const std::string err((std::istreambuf_iterator<char>(err_file)), {});
  std::filesystem::remove(input);
  std::filesystem::remove(errors);
  if (status != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    if (error != nullptr) *error = "protoc failed: " + err;
    return std::nullopt;
  }
  return out;
}

TestCollector::TestCollector() {
  http::ServerOptions options;
  options.port = 0;
  server_ = std::make_unique<http::Server>(options, [this](http::Request& request) {
    std::lock_guard lock(mutex_);
    posts_.push_back({request.path, std::string(request.header("content-type")), request.body});
    Answer answer;
    if (!answers_.empty()) {
      answer = answers_.front();
      answers_.pop_front();
    }
    http::Response response = http::Response::text(answer.status, "", "application/x-protobuf");
    if (!answer.retry_after.empty())
      response.headers.emplace_back("Retry-After", answer.retry_after);
    return response;
  });
  if (Status started = server_->start(); !started)
    throw std::runtime_error(started.error().message);
}

TestCollector::~TestCollector() {
  server_->stop();
}

std::string TestCollector::url() const {
  return "http://127.0.0.1:" + std::to_string(server_->port());
}

void TestCollector::answer_next(std::vector<Answer> answers) {
  std::lock_guard lock(mutex_);
  answers_.assign(answers.begin(), answers.end());
}

std::vector<TestCollector::Post> TestCollector::posts() const {
  std::lock_guard lock(mutex_);
  return posts_;
}

}  // namespace supportd::testing
