// spritz-http.so: cpp-httplib behind http_server.h's small interface. Only
// `spritz preview` loads it (cli/http_server.cpp).
#include <httplib.h>
#include <sys/socket.h>

#include <string>

#include "http_server.h"
#include "modules/module_abi.h"

namespace {

using spritz::HttpHandler;
using spritz::HttpRequest;
using spritz::HttpResponse;

class Server final : public spritz::HttpServer {
 public:
  Server(HttpHandler handler, const spritz::HttpServerOptions& options)
      : handler_(std::move(handler)) {
    svr_.set_payload_max_length(options.max_payload);
    svr_.set_read_timeout(options.read_timeout_s, 0);
    // Only SO_REUSEADDR: cpp-httplib's default also sets SO_REUSEPORT, which
    // would let a second server share the port instead of being refused.
    svr_.set_socket_options([](socket_t sock) {
      const int yes = 1;
      setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    });
    // Every request goes to the one handler, whatever its method or path.
    svr_.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
      HttpRequest in;
      in.method = req.method;
      in.path = req.path;
      in.host = req.get_header_value("Host");
      for (const auto& [k, v] : req.params) in.params.emplace(k, v);
      HttpResponse out;
      handler_(in, out);
      res.status = out.status;
      for (const auto& [k, v] : out.headers) res.set_header(k, v);
      res.set_content(out.body, out.content_type);
      return httplib::Server::HandlerResponse::Handled;
    });
    // What the library refuses before any handler (a malformed request, a
    // body over the limit) still answers in the handler's JSON form.
    svr_.set_error_handler([](const httplib::Request&, httplib::Response& res) {
      if (res.body.empty())
        res.set_content(
            "{\"error\":\"the request was refused (HTTP " + std::to_string(res.status) + ")\"}\n",
            "application/json");
    });
  }
  int bind(const std::string& host, int port) override {
    if (port == 0) return svr_.bind_to_any_port(host);
    return svr_.bind_to_port(host, port) ? port : -1;
  }
  bool listen() override { return svr_.listen_after_bind(); }
  void stop() override { svr_.stop(); }

 private:
  HttpHandler handler_;
  httplib::Server svr_;
};

}  // namespace

extern "C" const char* spritz_module_abi() {
  return SPRITZ_MODULE_ABI;
}

extern "C" spritz::HttpServer* spritz_http_server_new(const HttpHandler* handler,
                                                      const spritz::HttpServerOptions* options) {
  return new Server(*handler, *options);
}
