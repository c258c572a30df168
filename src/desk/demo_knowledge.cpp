// Importing the built-in demo knowledge base (see demo_knowledge.h): the embedded files written out
// (under a lock shared by every process) and imported under the data directory's lock, and the test
// that tells an outdated demo from a user's own knowledge base.
#include "desk/demo_knowledge.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>

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

// Makes `path` hold `text`: left alone when it does already, else written to a temporary name
// and renamed over it, so that a reader never sees a partly written file.
Status write_if_different(const std::filesystem::path& path, std::string_view text) {
  {
    std::ifstream in(path, std::ios::binary);
    const std::string current((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
    if (in && current == text) return Status();  // read whole (a missing file fails)
  }
  const std::filesystem::path temporary = path.string() + ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!out) {
      return Error::make(ErrorCode::kIo,
                         "cannot write " + temporary.string() + ": " + std::strerror(errno));
    }
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec)
    return Error::make(ErrorCode::kIo, "cannot rename to " + path.string() + ": " + ec.message());
  return Status();
}

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
  // keys the answer cache: every process stages them at the same path, so gateways sharing a
  // Redis import the same version and share answers. The shared lock is held only while the
  // files are written (each to a temporary name, then renamed over the old one only when it
  // differs, so a process reading them meanwhile reads whole files), not during the import:
  // held for the import, one server's start waited for every other's (minutes, beside tests
  // under a sanitizer). When that path is not usable (another user's /tmp file), a path of
  // this process's own, removed after the import.
  const fs::path shared = fs::temp_directory_path() / (std::string(kStagingPrefix) + "staging");
  std::optional<FileLock> staging_lock(std::in_place, shared.string() + ".lock");
  const bool own = !staging_lock->held();
  const fs::path staging =
      own ? fs::temp_directory_path() / (std::string(kStagingPrefix) + std::to_string(getpid()))
          : shared;
  if (own) fs::remove_all(staging, ec);
  fs::create_directories(staging, ec);
  if (ec)
    return Error::make(ErrorCode::kIo, "cannot create " + staging.string() + ": " + ec.message());
  std::vector<std::string> files;
  for (const auto& file : demo_knowledge_files()) {
    const bool source = file.path.ends_with(".md") || file.path.ends_with(".json");
    if (!source) continue;
    const fs::path path = staging / file.path;
    if (Status written = write_if_different(path, file.text()); !written) return written.error();
    files.push_back(path.string());
  }
  staging_lock.reset();
  kb::ImportOptions options;
  options.embedder = std::move(embedder);
  spdlog::info(
      "desk: importing the built-in demo knowledge base (an online store's help centre) into {}",
      dir);
  auto report = kb::import_knowledge_base(dir, files, options);
  if (own) fs::remove_all(staging, ec);
  if (!report) return report.error();
  return true;
}

}  // namespace supportd::desk
