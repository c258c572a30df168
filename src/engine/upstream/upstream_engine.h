// An Engine that forwards generation to an OpenAI-compatible server over HTTP with streaming
// (vLLM, llama-server, another supportd, a hosted API on plain HTTP), so supportd can front a
// GPU cluster. One I/O thread of its own; cancel() aborts the upstream request.
// Thread-safety: every public method may be called from any thread.
#pragma once

#include <memory>
#include <string>

#include "engine/engine.h"

namespace supportd::engine::upstream {

struct UpstreamOptions {
  std::string url;      // http://host:port[/prefix]; requests go to <url>/v1/...
  std::string model;    // model to request; default: the upstream's first model
  std::string api_key;  // bearer token, optional
  int timeout_s = 600;  // per request
};

class UpstreamEngine final : public Engine {
 public:
  // Checks the URL and asks the upstream for its models (retrying for a few seconds).
  static Result<std::unique_ptr<UpstreamEngine>> create(const UpstreamOptions& options);
  ~UpstreamEngine() override;

  const ModelCard& model() const override;
  Result<RequestId> submit(GenerationRequest request,
                           std::shared_ptr<GenerationSink> sink) override;
  void cancel(RequestId id) override;
  bool ready() const override;
  EngineStats stats() const override;
  void shutdown() override;

  struct Impl;

 private:
  explicit UpstreamEngine(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace supportd::engine::upstream
