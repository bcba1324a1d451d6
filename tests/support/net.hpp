// SPDX-License-Identifier: MIT
#pragma once

// Ports on 127.0.0.1 for the servers tests start.

#include "opskit/handle.hpp"

namespace opskit::test {

// A port on 127.0.0.1 free a moment ago, for a server the test starts.
int free_port();
// A connection to 127.0.0.1:`port`; an empty handle when nothing accepted it.
UniqueFd connect_loopback(int port);
// Whether something accepts connections on 127.0.0.1:`port`; waits up to 10 s for it.
bool wait_for_port(int port);

} // namespace opskit::test
