#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""An HTTP proxy for pkgcloud's publish tests: forwards each request to an upstream server
(s3rver or nginx) and writes one JSON line a request to --log (method, path, status, and what
was checked or injected), for a test to assert on.

--check-sigv4 KEY_ID:SECRET:REGION recomputes each request's AWS Signature V4 with botocore,
an implementation independent of the libcurl that pkgcloud signs with, over the request as
received: its own X-Amz-Date, the headers its SignedHeaders names, and its
x-amz-content-sha256 as the payload hash; it logs signature_ok, and payload_ok: whether that
header is the SHA-256 of the body received (UNSIGNED-PAYLOAD is not: pkgcloud always signs
the body). The proxy changes nothing that is signed: the test gives pkgcloud the proxy as its
endpoint, so the client signs the Host it sends to the proxy (127.0.0.1:PORT), and that Host
goes upstream as it came.

Faults, each written to the log as "fault": --fail-put-every N answers 500 to every Nth PUT;
--drop-put-every N reads half of every Nth PUT's body and closes the connection;
--timeout-put-every N answers every Nth PUT as S3 answers an upload that went idle, 400
RequestTimeout; a path gets one of these faults at most, so that a client that retries at all
gets through. --complete-error-once answers the first completion of a multipart upload 200 with
an InternalError document, as S3 may.
--fail-path S answers 500 to every request whose path ends with S; --missing-path S answers
404 to every GET whose path ends with S, as a cache or a rewrite of missing files in front of
a store would; --stall-once-path S SECONDS holds the first request whose path contains S that
long, then closes without answering; --delay-put SECONDS waits before forwarding each PUT, to
make a publish last while clients read.

--sse-kms answers each PUT of a whole object as a bucket encrypting with SSE-KMS does: with
x-amz-server-side-encryption: aws:kms, and an ETag of 32 hex digits that is not the MD5 of
the body. Each PUT and POST logs its Content-Type and Cache-Control, a PUT its If-Match, and
a multipart upload's completion the ETags it names ("etags").

--self-test checks the signature checker against AWS's published example (GET Object, in
"Signature Calculations for the Authorization Header", Amazon S3 API Reference) and exits.
Run with Debian's /usr/bin/python3, which has python3-botocore.
"""
import argparse
import hashlib
import http.client
import http.server
import json
import re
import sys
import threading
import time
import urllib.parse

try:
    from botocore.auth import S3SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials
except ImportError:
    sys.exit("s3_proxy.py: python3-botocore is needed (scripts/dev installs it); "
             "run with /usr/bin/python3")

HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te",
              "trailer", "upgrade"}
AUTH_RE = re.compile(r"AWS4-HMAC-SHA256 Credential=([^/]+)/(\d{8})/([^/]+)/s3/aws4_request,\s*"
                     r"SignedHeaders=([a-z0-9;-]+),\s*Signature=([0-9a-f]{64})$")
INTERNAL_ERROR = (b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>InternalError</Code>"
                  b"<Message>We encountered an internal error. Please try again.</Message></Error>")
REQUEST_TIMEOUT = (b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>RequestTimeout</Code>"
                   b"<Message>Your socket connection to the server was not read from or written to "
                   b"within the timeout period.</Message></Error>")
NO_SUCH_KEY = (b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>NoSuchKey</Code>"
               b"<Message>The specified key does not exist.</Message></Error>")


def sigv4_signature(method, path, headers, signed, secret, key_id, region):
    """The signature botocore computes for a request: `path` with its query as sent,
    `headers` a dict of lower-case names, of which those in `signed` are signed. The path is
    taken as S3 reads it, decoded and encoded again as SigV4's UriEncode does: a client that
    signs another spelling of it (a raw '+', '%7E' for '~') is caught."""
    url_path, _, query = path.partition("?")
    canonical_path = urllib.parse.quote(urllib.parse.unquote(url_path), safe="/")
    url = f"http://{headers['host']}{canonical_path}" + (f"?{query}" if query else "")
    request = AWSRequest(method=method, url=url, headers={name: headers[name] for name in signed})
    request.context["timestamp"] = headers["x-amz-date"]
    auth = S3SigV4Auth(Credentials(key_id, secret), "s3", region)
    canonical = auth.canonical_request(request)
    return auth.signature(auth.string_to_sign(request, canonical), request)


def signature_mismatch(method, path, headers, credentials):
    """None when the request is signed as `credentials` (KEY_ID, SECRET, REGION) sign it; else
    why not."""
    key_id, secret, region = credentials
    match = AUTH_RE.match(headers.get("authorization", ""))
    if not match:
        return "no AWS4-HMAC-SHA256 Authorization header"
    got_key, date, got_region, signed, signature = match.groups()
    signed = signed.split(";")
    if (got_key, got_region) != (key_id, region):
        return f"signed as {got_key} for {got_region}"
    missing = [name for name in signed + ["x-amz-date"] if name not in headers]
    if missing:
        return f"signed headers missing: {', '.join(missing)}"
    if not headers["x-amz-date"].startswith(date):
        return f"X-Amz-Date {headers['x-amz-date']} is not of the scope's day {date}"
    expected = sigv4_signature(method, path, headers, signed, secret, key_id, region)
    if signature != expected:
        return f"signature {signature}, botocore computes {expected}"
    return None


def check_request(method, path, headers, body, credentials):
    """What --check-sigv4 logs of a request: whether botocore computes the same signature,
    and whether its x-amz-content-sha256 is the SHA-256 of `body`."""
    why = signature_mismatch(method, path, headers, credentials)
    result = {"signature_ok": why is None,
              "payload_ok": headers.get("x-amz-content-sha256") == hashlib.sha256(body).hexdigest()}
    if why:
        result["why"] = why
    return result


def self_test():
    """AWS's example: GET /test.txt of examplebucket, its first ten bytes; then the same
    request changed in each signed part, which the check must refuse."""
    headers = {
        "host": "examplebucket.s3.amazonaws.com",
        "range": "bytes=0-9",
        "x-amz-content-sha256": hashlib.sha256(b"").hexdigest(),
        "x-amz-date": "20130524T000000Z",
        "authorization": "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/"
                         "s3/aws4_request,SignedHeaders=host;range;x-amz-content-sha256;"
                         "x-amz-date,Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba"
                         "48dd91039c6036bdb41",
    }
    good = ("AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "us-east-1")
    failures = []
    result = check_request("GET", "/test.txt", headers, b"", good)
    if result != {"signature_ok": True, "payload_ok": True}:
        failures.append(f"the published example: {result}")
    wrong_secret = (good[0], good[1].replace("K7", "K8"), good[2])
    cases = [("a wrong secret", "/test.txt", headers, b"", wrong_secret, "signature_ok"),
             ("another path", "/test%2Etxt2", headers, b"", good, "signature_ok"),
             ("another range", "/test.txt", {**headers, "range": "bytes=0-8"}, b"", good,
              "signature_ok"),
             ("a body not hashed", "/test.txt", headers, b"x", good, "payload_ok")]
    for name, path, h, body, creds, key in cases:
        if check_request("GET", path, h, body, creds)[key]:
            failures.append(f"{name}: {key}")
    # the same path spelt otherwise is the same to S3
    if not check_request("GET", "/test%2Etxt", headers, b"", good)["signature_ok"]:
        failures.append("/test%2Etxt is not /test.txt")
    for failure in failures:
        print(f"s3_proxy.py --self-test: {failure}", file=sys.stderr)
    return 1 if failures else 0


def sse_kms_answer(reply_headers, body):
    """The headers of a PUT's answer as a bucket that encrypts with SSE-KMS gives them."""
    etag = hashlib.md5(b"kms" + body).hexdigest()
    kept = [(n, v) for n, v in reply_headers if n.lower() != "etag"]
    return kept + [("ETag", f'"{etag}"'), ("x-amz-server-side-encryption", "aws:kms")]


class Faults:
    """Which request gets which fault; shared by the handler threads."""

    def __init__(self, args):
        self.args = args
        self.lock = threading.Lock()
        self.puts = 0
        self.faulted = set()  # paths that had a PUT fault
        self.stalled = False
        self.completions = 0

    def pick(self, method, path):
        a = self.args
        with self.lock:
            if a.fail_path and path.split("?")[0].endswith(a.fail_path):
                return "fail"
            if a.missing_path and method == "GET" and path.split("?")[0].endswith(a.missing_path):
                return "missing"
            if a.stall_once_path and a.stall_once_path[0] in path and not self.stalled:
                self.stalled = True
                return "stall"
            if method == "POST" and "uploadId=" in path and a.complete_error_once:
                self.completions += 1
                if self.completions == 1:
                    return "complete-error"
            if method != "PUT":
                return None
            self.puts += 1
            for fault, every in (("fail", a.fail_put_every), ("drop", a.drop_put_every),
                                 ("timeout", a.timeout_put_every)):
                if every and self.puts % every == 0 and path not in self.faulted:
                    self.faulted.add(path)
                    return fault
        return None


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as a store's is

    def handle_any(self):
        server = self.server
        headers = {name.lower(): value for name, value in self.headers.items()}
        length = int(headers.get("content-length", "0"))
        fault = server.faults.pick(self.command, self.path)
        entry = {"method": self.command, "path": self.path, "status": None}
        if self.command in ("PUT", "POST"):
            entry["content_type"] = headers.get("content-type")
            entry["cache_control"] = headers.get("cache-control")
        if fault:
            entry["fault"] = fault
        if fault == "drop":
            self.rfile.read(length // 2)
            self.close_connection = True
            server.log(entry)
            return
        body = self.rfile.read(length)
        if "if-match" in headers:
            entry["if_match"] = headers["if-match"]
        if self.command == "POST" and "uploadId=" in self.path:
            entry["etags"] = re.findall(r"<ETag>(.*?)</ETag>", body.decode(errors="replace"),
                                        re.S)
        if server.credentials:
            entry.update(check_request(self.command, self.path, headers, body,
                                       server.credentials))
        if fault == "stall":
            server.log(entry)
            time.sleep(float(server.args.stall_once_path[1]))
            self.close_connection = True
            return
        if fault == "fail":
            status, reply = 500, INTERNAL_ERROR
            reply_headers = [("Content-Type", "application/xml")]
        elif fault == "timeout":
            status, reply = 400, REQUEST_TIMEOUT
            reply_headers = [("Content-Type", "application/xml")]
        elif fault == "complete-error":
            status, reply = 200, INTERNAL_ERROR
            reply_headers = [("Content-Type", "application/xml")]
        elif fault == "missing":
            status, reply = 404, NO_SUCH_KEY
            reply_headers = [("Content-Type", "application/xml")]
        else:
            if self.command == "PUT" and server.args.delay_put:
                time.sleep(server.args.delay_put)
            status, reply_headers, reply = self.forward(body)
            if server.args.sse_kms and self.command == "PUT" and "?" not in self.path:
                reply_headers = sse_kms_answer(reply_headers, body)
        entry["status"] = status
        server.log(entry)
        self.send_response(status)
        for name, value in reply_headers:
            if name.lower() not in HOP_BY_HOP and name.lower() != "content-length":
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def forward(self, body):
        """The upstream's answer to this request, Host and every signed header as received."""
        upstream = http.client.HTTPConnection(self.server.upstream, timeout=60)
        try:
            headers = [(n, v) for n, v in self.headers.items() if n.lower() not in HOP_BY_HOP]
            upstream.putrequest(self.command, self.path, skip_host=True,
                                skip_accept_encoding=True)
            for name, value in headers:
                upstream.putheader(name, value)
            upstream.endheaders(body)
            response = upstream.getresponse()
            return response.status, response.getheaders(), response.read()
        except OSError as e:
            return 502, [], f"s3_proxy.py: upstream: {e}\n".encode()
        finally:
            upstream.close()

    def log_message(self, format, *args):  # the JSON log says it all
        pass


# What pkgcloud and apt-get send; bodies come with a Content-Length, as libcurl sends them.
for method in ("GET", "PUT", "POST", "DELETE", "MKCOL", "PROPFIND"):
    setattr(Handler, f"do_{method}", Handler.handle_any)


class Proxy(http.server.ThreadingHTTPServer):
    daemon_threads = True  # a stalled request does not keep the proxy from stopping

    def __init__(self, args):
        super().__init__(("127.0.0.1", args.port), Handler)
        self.args = args
        self.upstream = urllib.parse.urlsplit(args.upstream).netloc
        self.credentials = None
        if args.check_sigv4:  # the secret may hold a ':', the key id and region do not
            key_id, rest = args.check_sigv4.split(":", 1)
            self.credentials = (key_id, *rest.rsplit(":", 1))
        self.faults = Faults(args)
        self.log_lock = threading.Lock()
        self.log_file = open(args.log, "a", encoding="utf-8") if args.log else None

    def log(self, entry):
        if self.log_file:
            with self.log_lock:
                self.log_file.write(json.dumps(entry) + "\n")
                self.log_file.flush()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--upstream", help="the server's URL, http://HOST:PORT")
    p.add_argument("--port", type=int, default=0, help="to listen on; 0: any, printed")
    p.add_argument("--log", help="one JSON line a request")
    p.add_argument("--check-sigv4", metavar="KEY_ID:SECRET:REGION")
    p.add_argument("--fail-put-every", type=int, metavar="N")
    p.add_argument("--drop-put-every", type=int, metavar="N")
    p.add_argument("--timeout-put-every", type=int, metavar="N")
    p.add_argument("--complete-error-once", action="store_true")
    p.add_argument("--fail-path", metavar="SUFFIX")
    p.add_argument("--missing-path", metavar="SUFFIX")
    p.add_argument("--stall-once-path", nargs=2, metavar=("SUBSTRING", "SECONDS"))
    p.add_argument("--delay-put", type=float, metavar="SECONDS")
    p.add_argument("--sse-kms", action="store_true")
    p.add_argument("--self-test", action="store_true")
    args = p.parse_args()
    if args.self_test:
        return self_test()
    if not args.upstream:
        p.error("--upstream is needed")
    proxy = Proxy(args)
    if args.port == 0:
        print(proxy.server_address[1], flush=True)
    proxy.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
