// SPDX-License-Identifier: MIT
#pragma once

// libcurl, loaded when the first request is made. Linking it would load libcurl and its 32
// libraries on every pkgcloud command, about 8 ms here against pkgcloud's 2 ms for an `ls`;
// only publish needs it. Not installed.

#include <string>

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
  unsigned version; // 0xXXYYZZ: 7.88.1 is 0x075801
  std::string version_text;
};

// S3 wants libcurl's AWS SigV4 signing (CURLOPT_AWS_SIGV4) to take the body's hash from our
// x-amz-content-sha256 header, which it does from 7.87; an older one signs another hash (and
// before 7.75, not knowing the option, would send the key and secret as basic authentication).
inline constexpr unsigned k_curl_for_s3 = 0x075700;

// libcurl's functions, loaded (and libcurl initialised) on the first call; the error says
// that libcurl (Debian's libcurl4) could not be loaded and why.
Result<const CurlApi*> curl_api();

} // namespace opskit::repo::publish
