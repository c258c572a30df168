// PII masking for spdlog: wraps a formatter and masks the message text (mask_pii) before it
// is formatted, so phone numbers, e-mail addresses, card and ID numbers never reach a log
// sink; timestamps, levels and logger names are left alone. Install it on a logger or sink:
//   logger->set_formatter(std::make_unique<filter::PiiMaskingFormatter>());
// Thread-safe as spdlog requires (spdlog serializes calls per sink; masking is stateless).
#pragma once

#include <memory>
#include <string>

#include <spdlog/formatter.h>

namespace supportd::filter {

class PiiMaskingFormatter final : public spdlog::formatter {
 public:
  // Formats with spdlog's default pattern.
  PiiMaskingFormatter();
  // Formats with `inner` (e.g. a spdlog::pattern_formatter with the desk's own pattern).
  explicit PiiMaskingFormatter(std::unique_ptr<spdlog::formatter> inner);

  void format(const spdlog::details::log_msg& message, spdlog::memory_buf_t& out) override;
  std::unique_ptr<spdlog::formatter> clone() const override;

 private:
  std::unique_ptr<spdlog::formatter> inner_;
};

}  // namespace supportd::filter
