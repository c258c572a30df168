// unique_node_id(): host, pid and a random suffix, with the characters subjects reserve replaced.
#include "bus/node_id.h"

#include <unistd.h>

#include <array>
#include <random>

#include <fmt/format.h>

namespace supportd::bus {

std::string unique_node_id() {
  std::array<char, 64> host{};
  ::gethostname(host.data(), host.size() - 1);
  std::string id =
      fmt::format("{}-{}-{:04x}", host.data(), ::getpid(), std::random_device{}() & 0xffff);
  for (char& c : id) {
    if (c == '.' || c == '*' || c == '>' || c == ' ') c = '-';
  }
  return id;
}

}  // namespace supportd::bus
