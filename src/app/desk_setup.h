// Building the desk for `supportd serve`: data directory, stores (embedded SQLite, or Redis +
// PostgreSQL), the knowledge base (the built-in demo on first start), the sentence encoder
// (optional: without it the desk stays lexical and says so), content rules per tenant.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "desk/desk.h"
#include "engine/engine.h"
#include "kb/live_knowledge_base.h"
#include "obs/metrics.h"
#include "store/open_stores.h"

namespace supportd::app {

struct DeskConfig {
  std::string data_dir;        // default: $SUPPORTD_DATA, else ~/.local/share/supportd
  std::string kb_dir;          // default: <data_dir>/kb, filled with the demo on first start
  std::string encoder;         // default: the encoder setup installed; "off" disables it
  std::string redis;           // host:port
  std::string postgres;        // libpq URI
  std::string session_secret;  // default: generated into the data directory
  std::string rules;           // default content rules (all tenants)
  std::string rules_dir;       // <tenant>.rules files
  std::string handoff_topics;  // comma-separated words or phrases that call a person
  int kb_watch_ms = 2000;  // poll the KB directory for a new import (0: only the admin endpoint)
  // The desk's tunables (desk/desk_options.h), bound option by option; handoff_topics and
  // generate are filled from the fields above and the model.
  desk::DeskOptions tunables;
  // Generate and show answers even when the model is synthesized (its text is meaningless):
  // for tests and benchmarks of the generation path and the answer cache, never for customers.
  bool show_synthesized_text = false;
};

// Everything the desk is made of, owned together, destroyed in reverse order.
struct DeskParts {
  store::Stores stores;
  std::unique_ptr<kb::LiveKnowledgeBase> knowledge;
  std::unique_ptr<kb::KnowledgeBaseWatcher> watcher;
  std::unique_ptr<desk::Desk> desk;
  std::vector<std::string> warnings;  // shown in the log and in /ready's details
  ~DeskParts();
};

// Where serve keeps its files: --data-dir, else $SUPPORTD_DATA, else
// ~/.local/share/supportd.
std::string data_dir_of(const DeskConfig& config);

Result<std::unique_ptr<DeskParts>> build_desk(const DeskConfig& config, engine::Engine& engine,
                                              obs::Registry& registry,
                                              obs::faults::FaultInjector* faults = nullptr);

}  // namespace supportd::app
