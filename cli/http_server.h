// The HTTP server `spritz preview` needs, and no more: one handler answers
// every request. cpp-httplib implements it in spritz-http.so
// (cli/modules/http_module.cpp), loaded on first use (io/module.h), so no
// other command loads cpp-httplib, OpenSSL and Brotli.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace spritz {

struct HttpRequest {
  std::string method;                              // "GET", "HEAD", ...
  std::string path;                                // decoded, without the query
  std::string host;                                // the Host header
  std::multimap<std::string, std::string> params;  // the query, decoded
};

struct HttpResponse {
  int status = 200;
  std::string body;
  std::string content_type;
  std::vector<std::pair<std::string, std::string>> headers;
};

// Called on the server's threads, for every request; it must not throw.
using HttpHandler = std::function<void(const HttpRequest&, HttpResponse&)>;

class HttpServer {
 public:
  virtual ~HttpServer() = default;
  // Binds `host`:`port` (0: a free port). The port, or -1 with errno set.
  virtual int bind(const std::string& host, int port) = 0;
  // Serves until stop(); false when it could not.
  virtual bool listen() = 0;
  // Safe from any thread.
  virtual void stop() = 0;
};

struct HttpServerOptions {
  size_t max_payload = 64 * 1024;  // request bodies, bytes
  int read_timeout_s = 5;
};

// A server answering with `handler`; only SO_REUSEADDR is set on its socket,
// so a second server on a port in use is refused rather than sharing it.
// Malformed requests the library refuses itself get a JSON {"error": ...}.
// Throws spritz::Error when spritz-http.so cannot be loaded.
// `module_dir` (SPRITZ_MODULE_DIR) is searched first for the module.
std::unique_ptr<HttpServer> make_http_server(HttpHandler handler,
                                             const HttpServerOptions& options = {},
                                             const std::string& module_dir = {});

}  // namespace spritz
