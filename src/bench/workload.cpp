// The workload (workload.h): presets, priority mixes and tenant weights parsed from flags, and
// request i drawn from independent seeded streams so it is the same in every run.
#include "bench/workload.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "bench/prompt_text.h"
#include "core/text.h"

namespace supportd::bench {
namespace {

// Independent streams, so changing one knob does not reshuffle the others.
constexpr std::uint64_t kLengthStream = 0x9e3779b97f4a7c15ULL;
constexpr std::uint64_t kOutputStream = 0xbf58476d1ce4e5b9ULL;
constexpr std::uint64_t kClassStream = 0x94d049bb133111ebULL;
constexpr std::uint64_t kTenantStream = 0x2545f4914f6cdd1dULL;
constexpr std::uint64_t kRepeatStream = 0x6a09e667f3bcc909ULL;
constexpr std::uint64_t kSystemPromptQuestion = ~0ULL;

std::uint64_t mix(std::uint64_t x) {  // splitmix64's finalizer
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::optional<double> weight(std::string_view text) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value) || value < 0)
    return std::nullopt;
  return value;
}

}  // namespace

Status apply_preset(const std::string& name, WorkloadOptions& options) {
  if (name == "256-128") {
    options.prompt_tokens = Distribution::fixed(256);
    options.output_tokens = Distribution::fixed(128);
    options.system_prompt_tokens = 0;
    return {};
  }
  if (name == "chat") {
    options.prompt_tokens = *Distribution::parse("uniform:30-80", "--preset", 1);
    options.output_tokens = *Distribution::parse("uniform:64-256", "--preset", 1);
    options.system_prompt_tokens = 128;
    return {};
  }
  return Error::invalid("--preset '" + name + "' is unknown; use 256-128 or chat", "preset");
}

Result<std::array<double, kClassCount>> parse_priority_mix(const std::string& text) {
  std::array<double, kClassCount> mix{0, 0, 0};
  auto bad = [&](const std::string& why) {
    return Error::invalid(
        fmt::format("--priority-mix '{}': {}; use e.g. high=1,normal=8,low=1", text, why),
        "priority-mix");
  };
  for (std::string_view part : split(text, ',')) {
    const std::size_t equals = part.find('=');
    if (equals == std::string_view::npos) return bad(fmt::format("'{}' has no '='", part));
    const auto priority = sched::parse_priority(part.substr(0, equals));
    if (!priority)
      return bad(fmt::format("unknown class '{}' (high, normal, low)", part.substr(0, equals)));
    const auto value = weight(part.substr(equals + 1));
    if (!value)
      return bad(
          fmt::format("the weight of {} must be a non-negative number", part.substr(0, equals)));
    mix[static_cast<int>(*priority)] = *value;
  }
  if (mix[0] + mix[1] + mix[2] <= 0) return bad("the weights add up to zero");
  return mix;
}

Result<std::vector<Tenant>> parse_tenants(const std::string& text) {
  std::vector<Tenant> tenants;
  auto bad = [&](const std::string& why) {
    return Error::invalid(
        fmt::format("--tenants '{}': {}; use NAME=KEY[:WEIGHT],... e.g. acme=sk-1:3,globex=sk-2",
                    text, why),
        "tenants");
  };
  for (std::string_view part : split(text, ',')) {
    const std::size_t equals = part.find('=');
    if (equals == std::string_view::npos || equals == 0)
      return bad(fmt::format("'{}' needs NAME=KEY", part));
    Tenant tenant;
    tenant.name = std::string(part.substr(0, equals));
    std::string_view key = part.substr(equals + 1);
    if (const std::size_t colon = key.rfind(':'); colon != std::string_view::npos) {
      const auto value = weight(key.substr(colon + 1));
      if (!value || *value <= 0)
        return bad(fmt::format("the weight of {} must be positive", tenant.name));
      tenant.weight = *value;
      key = key.substr(0, colon);
    }
    tenant.key = std::string(key);
    for (const Tenant& other : tenants)
      if (other.name == tenant.name)
        return bad(fmt::format("tenant {} is listed twice", tenant.name));
    tenants.push_back(std::move(tenant));
  }
  return tenants;
}

Workload::Workload(WorkloadOptions options)
    : options_(std::move(options)),
      lengths_(options_.seed ^ kLengthStream),
      outputs_(options_.seed ^ kOutputStream),
      classes_(options_.seed ^ kClassStream),
      tenants_(options_.seed ^ kTenantStream),
      repeats_(options_.seed ^ kRepeatStream),
      class_pick_(options_.priority_mix.begin(), options_.priority_mix.end()) {
  std::vector<double> weights;
  for (const Tenant& t : options_.tenants)
    weights.push_back(t.weight);
  if (!weights.empty())
    tenant_pick_ = std::discrete_distribution<int>(weights.begin(), weights.end());
  system_prompt_ = prompt_text(question_seed(kSystemPromptQuestion), options_.system_prompt_tokens);
}

RequestSpec Workload::next(const RequestOverride& override_values) {
  RequestSpec spec;
  spec.index = next_index_++;
  // Every stream advances once per request whatever the overrides, so request i stays the same.
  const auto drawn_class = static_cast<sched::Priority>(class_pick_(classes_));
  spec.priority = override_values.priority.value_or(drawn_class);
  spec.tenant = options_.tenants.empty() ? -1 : tenant_pick_(tenants_);
  const int drawn_words = options_.prompt_tokens.sample_int(lengths_);
  const int drawn_output = options_.output_tokens.sample_int(outputs_);
  spec.max_tokens = std::max(1, override_values.output_tokens.value_or(drawn_output));
  const double repeat_draw = std::uniform_real_distribution<double>(0, 1)(repeats_);
  const std::size_t repeat_pick = repeats_();
  if (!override_values.prompt_tokens && !questions_.empty() &&
      repeat_draw < options_.repeat_ratio) {
    const auto& [question, words] = questions_[repeat_pick % questions_.size()];
    spec.question = question;
    spec.question_words = words;
    spec.repeated = true;
    return spec;
  }
  spec.question = static_cast<std::uint64_t>(spec.index);
  spec.question_words = std::max(1, override_values.prompt_tokens.value_or(drawn_words));
  questions_.emplace_back(spec.question, spec.question_words);
  return spec;
}

std::uint64_t Workload::question_seed(std::uint64_t question) const {
  return mix(options_.seed * 0x9e3779b97f4a7c15ULL + mix(question));
}

std::string Workload::question_text(const RequestSpec& spec) const {
  return prompt_text(question_seed(spec.question), spec.question_words);
}

}  // namespace supportd::bench
