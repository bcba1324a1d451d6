// SPDX-License-Identifier: MIT
// Publish: the local publication, read under the repository's lock (so no index rewrites it
// meanwhile), compared with the manifest the target keeps, and what changed sent by
// publish::Publisher in the order that keeps clients safe.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "ops/ops.hpp"
#include "publish/endpoint.hpp"
#include "publish/publisher.hpp"
#include "publish/snapshot.hpp"
#include "publish/target.hpp"

namespace opskit::repo::ops {

namespace {

publish::Variables variables_of(const Environment& env) {
  return [&env](std::string_view name) -> std::optional<std::string> {
    return env.variable ? env.variable(name) : std::nullopt;
  };
}

void report_plan(PublishReport& report, const publish::Plan& plan, DeleteStale delete_stale) {
  for (const auto* f : plan.upload) {
    report.uploaded.push_back({f->path, f->size});
    report.bytes += f->size;
  }
  if (delete_stale == DeleteStale::yes)
    report.deleted = plan.stale;
  report.unchanged = plan.unchanged;
}

// Whether the target, by its manifest `previous`, holds what `plan` would leave there.
bool nothing_to_send(const publish::Plan& plan, const std::optional<publish::Manifest>& previous) {
  auto same = [](const auto& a, const auto& b) {
    return a.first == b.first && a.second == b.second && a.second.superseded == b.second.superseded;
  };
  return previous && plan.upload.empty() && plan.stale.empty() &&
         std::ranges::equal(plan.next, *previous, same);
}

// Under the target's lock: its manifest read again (a publish that held the lock before this
// one may have changed the target since it was first read), what changed sent, and, asked to,
// what the publication no longer has deleted. `plan` and `previous` end as what was done.
Result<void> send(publish::Publisher& publisher, publish::Plan& plan,
                  std::optional<publish::Manifest>& previous, const publish::Snapshot& snapshot,
                  const PublishOptions& options) {
  OPSKIT_TRY_ASSIGN(previous, publisher.read_manifest({}));
  plan = publish::plan(snapshot, previous, options.delete_stale);
  if (nothing_to_send(plan, previous))
    return {};
  OPSKIT_TRY_ASSIGN(auto md5, publish::md5_each(plan.upload, snapshot));
  OPSKIT_TRY(publisher.send(plan, md5, plan.next));
  if (options.delete_stale == DeleteStale::no || plan.stale.empty())
    return {};
  // What is deleted is listed until it is gone: a publish that fails meanwhile leaves it to
  // the next one to delete.
  OPSKIT_TRY(publisher.remove(plan.stale));
  publish::Manifest left = plan.next;
  for (const auto& path : plan.stale)
    left.erase(path);
  return publisher.write_manifest(left);
}

Result<PublishReport> publish_to(const Context& ctx, const PublishOptions& options) {
  auto start = std::chrono::steady_clock::now();
  OPSKIT_TRY_ASSIGN(auto lock, lock_repository(ctx));
  OPSKIT_TRY_ASSIGN(auto open, publish::open_remote(options.target, variables_of(ctx.env)));
  OPSKIT_TRY_ASSIGN(auto records, ctx.state.listing(std::nullopt));
  OPSKIT_TRY_ASSIGN(auto snapshot, publish::snapshot(ctx.publication, records));
  publish::TransferOptions transfer{options.jobs, options.attempts, options.backoff, open.ca_file,
                                    options.stall};
  publish::Publisher publisher(*open.remote, transfer, ctx.env.progress, options.lock_refresh);

  PublishReport report;
  report.target = publish::without_userinfo(options.target.url);
  report.dry_run = options.dry_run;
  OPSKIT_TRY_ASSIGN(auto previous, publisher.read_manifest(ctx.env.notice));
  publish::Plan plan = publish::plan(snapshot, previous, options.delete_stale);
  if (!options.dry_run && !nothing_to_send(plan, previous)) {
    OPSKIT_TRY(publisher.lock(options.wait, ctx.env.notice));
    auto sent = send(publisher, plan, previous, snapshot, options);
    auto unlocked = publisher.unlock(); // also after a failure
    OPSKIT_TRY(sent);
    OPSKIT_TRY(unlocked);
  }
  report.had_manifest = previous.has_value();
  report_plan(report, plan, options.delete_stale);
  report.requests = publisher.stats().requests;
  report.retries = publisher.stats().retries;
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

} // namespace

Result<PublishReport> publish(const Context& ctx, const PublishOptions& options) {
  auto report = publish_to(ctx, options);
  if (!report)
    return fail(report.error().with_context(
        fmt::format("publish to {}", publish::without_userinfo(options.target.url))));
  return report;
}

Result<std::vector<Problem>> verify_remote(const Context& ctx, const PublishTarget& target) {
  OPSKIT_TRY_ASSIGN(auto open, publish::open_remote(target, variables_of(ctx.env)));
  publish::Publisher publisher(*open.remote, {.ca_file = open.ca_file}, {});
  OPSKIT_TRY_ASSIGN(auto manifest, publisher.read_manifest({}));
  if (!manifest)
    return fail(
        fmt::format("{}: no pkgcloud manifest to check against (publish first)", target.url));
  OPSKIT_TRY_ASSIGN(auto listed, open.remote->list(publisher.transfer()));
  std::map<std::string, std::uint64_t, std::less<>> held;
  for (auto& l : listed)
    held.emplace(std::move(l.path), l.size);
  std::vector<Problem> problems;
  auto add = [&](const std::string& file, std::string what, std::string expected, std::string found,
                 std::string message) {
    problems.push_back({file, std::move(what), std::move(expected), std::move(found),
                        fmt::format("{}: {}", file, message)});
  };
  for (const auto& [path, entry] : *manifest) {
    auto it = held.find(path);
    if (it == held.end())
      add(path, "missing", std::to_string(entry.size), "", "in the manifest, not on the target");
    else if (it->second != entry.size)
      add(path, "size", std::to_string(entry.size), std::to_string(it->second),
          fmt::format("{} bytes on the target, {} in the manifest", it->second, entry.size));
  }
  for (const auto& [path, size] : held)
    if (!manifest->contains(path) && path != publish::k_manifest && path != publish::k_lock)
      add(path, "unlisted", "", std::to_string(size), "on the target, not in its manifest");
  std::sort(problems.begin(), problems.end(),
            [](const Problem& a, const Problem& b) { return a.file < b.file; });
  return problems;
}

Result<void> save_target(const Context& ctx, const std::string& name, const PublishTarget& target) {
  if (!publish::target_name_ok(name))
    return fail(fmt::format("--save '{}': a target's name is [a-z0-9._-]+", name));
  OPSKIT_TRY(publish::no_userinfo("publish target", target.url));
  OPSKIT_TRY(publish::no_userinfo("--endpoint", target.endpoint));
  // Files as they are named here, wherever the saved target is published from.
  PublishTarget saved = target;
  for (auto* file : {&saved.password_file, &saved.ca_file})
    if (!file->empty())
      *file = std::filesystem::absolute(*file).lexically_normal().string();
  return ctx.state.set_config("publish." + name, publish::target_json(saved));
}

Result<PublishTarget> saved_target(const Context& ctx, const std::string& name) {
  if (!publish::target_name_ok(name))
    return fail(fmt::format("'{}': neither a URL (s3://, http://, https://) nor the name of a "
                            "saved target",
                            publish::without_userinfo(name)));
  OPSKIT_TRY_ASSIGN(auto json, ctx.state.config("publish." + name));
  if (!json)
    return fail(fmt::format("no target saved as '{}' (save one with pkgcloud publish --to URL "
                            "--save {})",
                            name, name));
  auto target = publish::parse_target(*json);
  if (!target)
    return fail(target.error().with_context(fmt::format("saved target '{}'", name)));
  return target;
}

} // namespace opskit::repo::ops

namespace opskit::repo {

std::string shown_url(std::string_view url) {
  return publish::without_userinfo(url);
}

} // namespace opskit::repo
