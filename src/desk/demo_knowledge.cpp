// Importing the built-in demo knowledge base (see demo_knowledge.h): the embedded files written out
// and imported under a file lock, and the test that tells an outdated demo from a user's own
// knowledge base.
#include "desk/demo_knowledge.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <spdlog/spdlog.h>

#include "core/embedded.h"
#include "kb/import/importer.h"
#include "kb/knowledge_base.h"

SUPPORTD_EMBEDDED_DIRECTORY(demo_knowledge_files)

namespace supportd::desk {

namespace {

// Holds an exclusive flock on a file for its lifetime: two servers starting on one data
// directory must not import into the same knowledge base at once.
class FileLock {
 public:
  explicit FileLock(const std::string& path)
      : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    if (fd_ >= 0) ::flock(fd_, LOCK_EX);
  }
  ~FileLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the lock
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  bool held() const { return fd_ >= 0; }

 private:
  int fd_;
};

// The demo's files are written to a directory of this name before import; the manifest keeps
// their paths, which is how an imported demo is recognised later.
constexpr std::string_view kStagingPrefix = "supportd-demo-kb-";

// Whether `dir` holds a knowledge base that should stay as it is (true), or none at all or an
// outdated demo (false). One that is there but does not open is an error: it is reported,
// never imported over.
Result<bool> holds_knowledge(const std::string& dir,
                             const std::shared_ptr<const kb::Embedder>& embedder) {
  auto opened = kb::KnowledgeBase::open(dir, {embedder});
  if (opened) return !is_outdated_demo(opened.value()->manifest(), embedder.get());
  std::error_code ec;
  if (std::filesystem::exists(std::filesystem::path(dir) / "CURRENT", ec)) return opened.error();
  return false;
}

}  // namespace

bool is_outdated_demo(const kb::Manifest& manifest, const kb::Embedder* embedder) {
  if (!embedder || manifest.encoder == embedder->fingerprint() || manifest.sources.empty())
    return false;
  for (const auto& source : manifest.sources) {
    const std::string folder = std::filesystem::path(source.file).parent_path().filename();
    if (!folder.starts_with(kStagingPrefix)) return false;
  }
  return true;
}

Result<bool> ensure_demo_knowledge(const std::string& dir,
                                   std::shared_ptr<const kb::Embedder> embedder) {
  auto held = holds_knowledge(dir, embedder);
  if (!held) return held.error();
  if (*held) return false;
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(fs::path(dir).parent_path(), ec);
  const FileLock lock(dir + ".lock");
  if (!lock.held())
    return Error::make(ErrorCode::kIo, "cannot lock " + dir + ".lock: " + std::strerror(errno));
  held = holds_knowledge(dir, embedder);  // another process may have imported it meanwhile
  if (!held) return held.error();
  if (*held) return false;
  // The files' paths go into the entries, and so into the knowledge base's version, which
  // keys the answer cache: every process stages them at the same path (one at a time), so
  // gateways sharing a Redis import the same version and share answers. When that path is not
  // usable (another user's /tmp file), a path of this process's own.
  const fs::path shared = fs::temp_directory_path() / (std::string(kStagingPrefix) + "staging");
  const FileLock staging_lock(shared.string() + ".lock");
  const fs::path staging =
      staging_lock.held()
          ? shared
          : fs::temp_directory_path() / (std::string(kStagingPrefix) + std::to_string(getpid()));
  fs::remove_all(staging, ec);
  fs::create_directories(staging, ec);
  if (ec)
    return Error::make(ErrorCode::kIo, "cannot create " + staging.string() + ": " + ec.message());
  std::vector<std::string> files;
  for (const auto& file : demo_knowledge_files()) {
    const bool source = file.path.ends_with(".md") || file.path.ends_with(".json");
    if (!source) continue;
    const fs::path path = staging / file.path;
    std::ofstream(path, std::ios::binary)
        .write(file.text().data(), static_cast<std::streamsize>(file.data.size()));
    files.push_back(path.string());
  }
  kb::ImportOptions options;
  options.embedder = std::move(embedder);
  spdlog::info(
      "desk: importing the built-in demo knowledge base (an online store's help centre) into {}",
      dir);
  auto report = kb::import_knowledge_base(dir, files, options);
  fs::remove_all(staging, ec);
  if (!report) return report.error();
  return true;
}

}  // namespace supportd::desk
