// The spdlog formatter that masks PII in log messages (not in the timestamp), and its clones.
#include "filter/pii_log_formatter.h"

#include <memory>
#include <sstream>

#include <gtest/gtest.h>
#include <spdlog/logger.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/ostream_sink.h>

namespace supportd::filter {
namespace {

TEST(PiiMaskingFormatterTest, MasksTheMessageNotTheTimestamp) {
  std::ostringstream lines;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(lines);
  spdlog::logger logger("desk", sink);
  logger.set_formatter(std::make_unique<PiiMaskingFormatter>(
      std::make_unique<spdlog::pattern_formatter>("%Y-%m-%d %H:%M:%S [%n] %v")));
  logger.info("customer {} wrote from {} about card {}", "13812345678", "a@example.com",
              "4111 1111 1111 1111");
  logger.info("order 2024031512345672 at 2024-03-15 13:45");

  const std::string text = lines.str();
  const std::string first = text.substr(0, text.find('\n'));
  EXPECT_EQ(first.substr(19),
            " [desk] customer [phone] wrote from [email] about card [card ****1111]");
  EXPECT_EQ(first[4], '-');  // the timestamp survived: "YYYY-MM-DD HH:MM:SS"
  EXPECT_EQ(first[13], ':');
  EXPECT_NE(text.find("[desk] order 2024031512345672 at 2024-03-15 13:45\n"), std::string::npos);
}

TEST(PiiMaskingFormatterTest, ClonesKeepMasking) {
  const PiiMaskingFormatter formatter(std::make_unique<spdlog::pattern_formatter>("%v"));
  std::unique_ptr<spdlog::formatter> clone = formatter.clone();
  const spdlog::details::log_msg message("desk", spdlog::level::info, "mail zs@example.com");
  spdlog::memory_buf_t out;
  clone->format(message, out);
  EXPECT_EQ(std::string(out.data(), out.size()), "mail [email]\n");
}

}  // namespace
}  // namespace supportd::filter
