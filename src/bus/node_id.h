// A name for this process in the cluster (a gateway or an engine node), usable as one subject
// token: the host name, the process id and a random suffix.
#pragma once

#include <string>

namespace supportd::bus {

std::string unique_node_id();

}  // namespace supportd::bus
