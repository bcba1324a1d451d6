// SPDX-License-Identifier: MIT
#include "publish/curl_api.hpp"

#include <dlfcn.h>

#include <fmt/format.h>

namespace opskit::repo::publish {

namespace {

template <class F>
bool load(void* lib, F& into, const char* symbol) {
  into = reinterpret_cast<F>(::dlsym(lib, symbol));
  return into != nullptr;
}

Result<CurlApi> load_curl() {
  void* lib = ::dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return fail(fmt::format("publish needs libcurl (Debian's libcurl4): {}", ::dlerror()));
  CurlApi api{};
  CURLcode (*global_init)(long) = nullptr;
  curl_version_info_data* (*version_info)(CURLversion) = nullptr;
  bool ok = load(lib, global_init, "curl_global_init") &&
            load(lib, api.easy_init, "curl_easy_init") &&
            load(lib, api.easy_setopt, "curl_easy_setopt") &&
            load(lib, api.easy_getinfo, "curl_easy_getinfo") &&
            load(lib, api.easy_cleanup, "curl_easy_cleanup") &&
            load(lib, api.easy_strerror, "curl_easy_strerror") &&
            load(lib, api.slist_append, "curl_slist_append") &&
            load(lib, api.slist_free_all, "curl_slist_free_all") &&
            load(lib, api.multi_init, "curl_multi_init") &&
            load(lib, api.multi_setopt, "curl_multi_setopt") &&
            load(lib, api.multi_add_handle, "curl_multi_add_handle") &&
            load(lib, api.multi_remove_handle, "curl_multi_remove_handle") &&
            load(lib, api.multi_perform, "curl_multi_perform") &&
            load(lib, api.multi_poll, "curl_multi_poll") &&
            load(lib, api.multi_info_read, "curl_multi_info_read") &&
            load(lib, api.multi_cleanup, "curl_multi_cleanup") &&
            load(lib, version_info, "curl_version_info");
  if (!ok)
    return fail(
        fmt::format("libcurl.so.4 is too old for publish (7.68 or later): {}", ::dlerror()));
  const curl_version_info_data* version = version_info(CURLVERSION_NOW);
  api.version = version->version_num;
  api.version_text = version->version;
  if (global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
    return fail("libcurl could not be initialised");
  return api; // the library stays loaded for the life of the process
}

} // namespace

Result<const CurlApi*> curl_api() {
  static const Result<CurlApi> api = load_curl();
  if (!api)
    return fail(api.error());
  return &*api;
}

} // namespace opskit::repo::publish
