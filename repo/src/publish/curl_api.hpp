// SPDX-License-Identifier: MIT
#pragma once

// libcurl, loaded when the first request is made. Linking it would load libcurl and its 32
// libraries on every pkgcloud command, about 8 ms here against pkgcloud's 2 ms for an `ls`;
// only publish needs it. Not installed.

#include <curl/curl.h>

#include "opskit/error.hpp"

namespace opskit::repo::publish {

struct CurlApi {
  CURL* (*easy_init)();
  CURLcode (*easy_setopt)(CURL*, CURLoption, ...);
  CURLcode (*easy_getinfo)(CURL*, CURLINFO, ...);
  void (*easy_cleanup)(CURL*);
  const char* (*easy_strerror)(CURLcode);
  curl_slist* (*slist_append)(curl_slist*, const char*);
  void (*slist_free_all)(curl_slist*);
  CURLM* (*multi_init)();
  CURLMcode (*multi_setopt)(CURLM*, CURLMoption, ...);
  CURLMcode (*multi_add_handle)(CURLM*, CURL*);
  CURLMcode (*multi_remove_handle)(CURLM*, CURL*);
  CURLMcode (*multi_perform)(CURLM*, int*);
  CURLMcode (*multi_poll)(CURLM*, curl_waitfd*, unsigned, int, int*);
  CURLMsg* (*multi_info_read)(CURLM*, int*);
  CURLMcode (*multi_cleanup)(CURLM*);
};

// libcurl's functions, loaded (and libcurl initialised) on the first call; the error says
// that libcurl (Debian's libcurl4) could not be loaded and why.
Result<const CurlApi*> curl_api();

} // namespace opskit::repo::publish
