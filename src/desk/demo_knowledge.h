// The built-in demo knowledge base (data/demo-kb: an online store's help centre in English
// and Chinese), imported into a directory on first start so `supportd serve` works with no
// configuration at all.
#pragma once

#include <memory>
#include <string>

#include "core/status.h"
#include "kb/analyze/embedder.h"
#include "kb/files/manifest.h"

namespace supportd::desk {

// Whether `manifest` is the demo's, imported without vectors of `embedder` (before the
// encoder was fetched, or by another encoder), so importing it again would add them. False
// for any knowledge base imported from other files, and without an embedder.
bool is_outdated_demo(const kb::Manifest& manifest, const kb::Embedder* embedder);

// Imports the embedded demo files into `dir` unless it already holds a knowledge base other
// than an outdated demo (which gets a new generation with vectors). Returns true when it
// imported; the open error when `dir` holds a knowledge base that does not open (damaged files
// are reported, never imported over).
Result<bool> ensure_demo_knowledge(const std::string& dir,
                                   std::shared_ptr<const kb::Embedder> embedder);

}  // namespace supportd::desk
