// Loopback ports for the real servers tests start (Redis, PostgreSQL, NATS): one the kernel
// has just handed out, and whether something accepts connections on one.
#pragma once

namespace supportd::testing {

// A port on 127.0.0.1 that was free a moment ago (bound to port 0, read back, closed).
int free_port();

// Whether a TCP connect to 127.0.0.1:`port` succeeds now.
bool port_open(int port);

}  // namespace supportd::testing
