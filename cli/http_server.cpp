#include "http_server.h"

#include "io/module.h"

namespace spritz {

std::unique_ptr<HttpServer> make_http_server(HttpHandler handler, const HttpServerOptions& options,
                                             const std::string& module_dir) {
  using New = HttpServer* (*)(const HttpHandler*, const HttpServerOptions*);
  const auto make =
      reinterpret_cast<New>(module_symbol(module_dir, "http", "spritz_http_server_new"));
  return std::unique_ptr<HttpServer>(make(&handler, &options));
}

}  // namespace spritz
