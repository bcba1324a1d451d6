// SPDX-License-Identifier: MIT
#pragma once

namespace opskit::cmd::kstat {

// Replaces this process with kstat-serve, from kstat's own directory, with the same arguments:
// kstat is linked statically to start fast, and libmicrohttpd comes only as a shared library.
// Returns 1, with an error line, when it cannot.
int exec_serve(int argc, char** argv);

} // namespace opskit::cmd::kstat
