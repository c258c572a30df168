// The spdlog formatter that masks personal data in log messages (see pii_log_formatter.h).
#include "filter/pii_log_formatter.h"

#include <spdlog/pattern_formatter.h>

#include "filter/pii_masker.h"

namespace supportd::filter {

PiiMaskingFormatter::PiiMaskingFormatter()
    : inner_(std::make_unique<spdlog::pattern_formatter>()) {}

PiiMaskingFormatter::PiiMaskingFormatter(std::unique_ptr<spdlog::formatter> inner)
    : inner_(std::move(inner)) {}

void PiiMaskingFormatter::format(const spdlog::details::log_msg& message,
                                 spdlog::memory_buf_t& out) {
  const std::string masked =
      mask_pii(std::string_view(message.payload.data(), message.payload.size()));
  spdlog::details::log_msg copy = message;
  copy.payload = spdlog::string_view_t(masked.data(), masked.size());
  inner_->format(copy, out);
  // Colour sinks read the range the pattern formatter marked on the message they passed.
  message.color_range_start = copy.color_range_start;
  message.color_range_end = copy.color_range_end;
}

std::unique_ptr<spdlog::formatter> PiiMaskingFormatter::clone() const {
  return std::make_unique<PiiMaskingFormatter>(inner_->clone());
}

}  // namespace supportd::filter
