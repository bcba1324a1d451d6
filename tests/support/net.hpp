// SPDX-License-Identifier: MIT
#pragma once

// Ports on 127.0.0.1 for the servers tests start.

#include "opskit/handle.hpp"

namespace opskit::test {

// A port on 127.0.0.1 free a moment ago, for a server the test starts.
int free_port();

// A port on 127.0.0.1 held closed while this lives: bound and not listening, so a connection
// to it is refused, and no server another test starts (nor a connection's own source port)
// can take it, as it could a port free_port() returned.
class ClosedPort {
public:
  ClosedPort();
  int port() const noexcept { return port_; }

private:
  UniqueFd fd_;
  int port_ = 0;
};

// A connection to 127.0.0.1:`port`; an empty handle when nothing accepted it.
UniqueFd connect_loopback(int port);
// Whether something accepts connections on 127.0.0.1:`port`; waits up to 10 s for it.
bool wait_for_port(int port);

} // namespace opskit::test
