// The reference token ids and vectors of the original JavaScript encoder (written at set-up by
// generate_reference.mjs), loaded once for the encoder's tests.
#include "reference.h"

#include <boost/json.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace supportd::testing {
namespace {

std::vector<ReferenceCase> cases(const boost::json::array& items) {
  std::vector<ReferenceCase> out;
  for (const auto& item : items) {
    const auto& object = item.as_object();
    ReferenceCase c;
    c.text = std::string(object.at("text").as_string());
    for (const auto& id : object.at("ids").as_array())
      c.ids.push_back(static_cast<int>(id.to_number<std::int64_t>()));
    if (const auto* vector = object.if_contains("vector"))
      for (const auto& value : vector->as_array())
        c.vector.push_back(static_cast<float>(value.to_number<double>()));
    out.push_back(std::move(c));
  }
  return out;
}

Reference load() {
  const std::string path = reference_path();
  std::ifstream in(path);
  if (!in)
    throw std::runtime_error("no encoder reference at " + path +
                             ": run scripts/setup.sh (scripts/fetch-encoder.sh makes it)");
  std::stringstream text;
  text << in.rdbuf();
  boost::system::error_code error;
  const boost::json::value root = boost::json::parse(text.str(), error);
  if (error) throw std::runtime_error("cannot parse " + path + ": " + error.message());
  Reference reference;
  reference.source = std::string(root.at("source").as_string());
  reference.tokens = cases(root.at("tokens").as_array());
  reference.vectors = cases(root.at("vectors").as_array());
  return reference;
}

}  // namespace

std::string reference_path() {
  std::string cache;
  if (const char* dir = std::getenv("SUPPORTD_CACHE"); dir && *dir) {
    cache = dir;
  } else {
    const char* home = std::getenv("HOME");
    cache = std::string(home ? home : "") + "/.cache/supportd";
  }
  return cache + "/encoder/reference-0.2.0.json";
}

const Reference& reference() {
  static const Reference loaded = load();
  return loaded;
}

}  // namespace supportd::testing
