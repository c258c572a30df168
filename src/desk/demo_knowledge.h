// The built-in demo knowledge base (data/demo-kb: an online store's help centre in English
// and Chinese), imported into a directory on first start so `supportd serve` works with no
// configuration at all.
#pragma once

#include <memory>
#include <string>

#include "core/status.h"
#include "kb/embedder.h"

namespace supportd::desk {

// Imports the embedded demo files into `dir` unless it already holds a knowledge base.
// Returns true when it imported.
Result<bool> ensure_demo_knowledge(const std::string& dir,
                                   std::shared_ptr<const kb::Embedder> embedder);

}  // namespace supportd::desk
