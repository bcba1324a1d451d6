// SPDX-License-Identifier: MIT
#pragma once

// What pkgcloud's publish tests publish: a signed repository of three debs and an rpm, and
// pkgcloud run with S3 credentials in its environment.

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "../../repo/deb_builder.hpp"
#include "clients.hpp"
#include "fixture.hpp"
#include "servers.hpp"

namespace opskit::test {

// pkgcloud with the S3 credentials in its environment and a HOME of its own; `env` (NAME=VALUE)
// is set after them, and so may change them.
inline Outcome pkgcloud_env(const std::string& repo, const std::string& home,
                            std::vector<std::string> args,
                            const std::vector<std::string>& env = {}) {
  std::vector<std::string> argv{"env", "HOME=" + home, std::string("AWS_ACCESS_KEY_ID=") + k_key_id,
                                std::string("AWS_SECRET_ACCESS_KEY=") + k_secret,
                                "AWS_REGION=us-east-1"};
  argv.insert(argv.end(), env.begin(), env.end());
  argv.insert(argv.end(), {tool("pkgcloud"), "--repo", repo});
  argv.insert(argv.end(), args.begin(), args.end());
  return run(argv);
}

struct Published {
  TempDir dir;
  std::string repo = dir / "repo";
  std::string home = dir / "home";
  std::string key = dir / "key.gpg";
  Published() {
    std::filesystem::create_directories(home);
    REQUIRE(pkgcloud(repo, {"init", "--generate-key", "Publish Test <publish@example.com>"})
                .exit_status == 0);
    std::vector<std::string> packages;
    for (const char* name : {"alpha", "beta", "gamma"})
      packages.push_back(dpkg_deb_build(dir.path(), name, control(name, "1.0-1", "amd64"), "xz"));
    packages.push_back(rpmbuild(dir.path(), "rhello", "1.0", "x86_64", "", ""));
    push(packages);
    auto exported = pkgcloud(repo, {"export-key"});
    REQUIRE(exported.exit_status == 0);
    std::ofstream(key, std::ios::binary) << exported.out;
  }
  // Pushes `packages` (paths), which must succeed.
  void push(std::vector<std::string> packages) const {
    packages.insert(packages.begin(), "push");
    auto pushed = pkgcloud(repo, packages);
    INFO(pushed.err);
    REQUIRE(pushed.exit_status == 0);
  }
  // publish `args` --json, which must succeed; what it reports.
  nlohmann::json publish(std::vector<std::string> args,
                         const std::vector<std::string>& env = {}) const {
    args.insert(args.begin(), "publish");
    args.push_back("--json");
    auto out = pkgcloud_env(repo, home, args, env);
    INFO(out.err);
    REQUIRE(out.exit_status == 0);
    return nlohmann::json::parse(out.out);
  }
  // Every file of the publication, relative to it.
  std::map<std::string, std::string> files() const { return snapshot(repo + "/public"); }
};

// pkgcloud's arguments to publish with `to` (--to URL and the settings beside it), then `more`.
inline std::vector<std::string> publish_args(std::vector<std::string> to,
                                             const std::vector<std::string>& more = {}) {
  to.insert(to.begin(), "publish");
  to.insert(to.end(), more.begin(), more.end());
  return to;
}

inline std::string s3_target(const std::string& prefix) {
  return std::string("s3://") + k_bucket + "/" + prefix;
}

} // namespace opskit::test
