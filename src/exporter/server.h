// A small HTTP/1.1 server for scrapes: one thread, one epoll loop, non-blocking sockets.
//
// Why one event loop and not a thread pool: every answer is a copy of a body that is already
// rendered (the handler never waits on a vendor library), so a handler costs microseconds and
// a single thread saturates any scraper. What costs is waiting — on slow or hostile clients —
// and an event loop waits on thousands of sockets for the price of a few bytes each, with
// every limit (head size, header deadline, connection cap, write deadline) enforced in one
// place and no locks. A pool of N threads would still be stuck after N slow clients.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>

#include "exporter/http_request.h"
#include "exporter/http_response.h"
#include "exporter/listen_address.h"
#include "util/result.h"
#include "util/unique_fd.h"

namespace anygpu::http {

struct ServerOptions {
  ListenAddress listen;
  RequestLimits limits;
  // A new connection, or a started request head, must complete its head within this time
  // (slowloris); a partial head then gets 408, an empty connection is closed.
  std::chrono::milliseconds header_timeout{5000};
  // A kept-alive connection may wait this long for its next request.
  std::chrono::milliseconds idle_timeout{60000};
  // A response the client does not take within this time is dropped with the connection.
  std::chrono::milliseconds write_timeout{10000};
  // After an answer that closes the connection, unread input is discarded this long so the
  // client reads the answer instead of a reset.
  std::chrono::milliseconds linger_timeout{2000};
  // On stop: how long in-flight requests may take to finish.
  std::chrono::milliseconds drain_timeout{5000};
  // Beyond this many open connections a new one takes the place of another (see below), or
  // gets 503 and is closed at once when none can give way (every one is sending a response).
  size_t max_connections = 64;
  // Fairness under slow or hostile clients; a peer is an IPv4 address or an IPv6 /64.
  // - One peer holds at most max_per_peer connections (unset: a quarter of max_connections);
  //   beyond that its own oldest waiting connection gives way.
  // - The last reserve_for_new_peers slots (unset: an eighth of max_connections) are only for
  //   peers with no open connection: a peer already connected makes room from its own, a new
  //   one from the peer holding the most. Idle kept-alive connections give way first, then the
  //   started head that has waited longest, then the longest-silent new one. A new connection
  //   is read at once, so a client that sent its request with the handshake is answered
  //   before anything could make it give way.
  // - Once the reserve is in use, a request head must complete within pressure_header_timeout
  //   of its start instead of header_timeout.
  std::optional<size_t> max_per_peer;
  std::optional<size_t> reserve_for_new_peers;
  std::chrono::milliseconds pressure_header_timeout{1000};
};

using Handler = std::function<Response(const Request&)>;

struct ServerStats {
  std::atomic<uint64_t> accepted{0}, refused{0}, requests{0}, bad_requests{0}, timeouts{0};
  std::atomic<uint64_t> evicted{0};  // connections that gave way to a new one
};

class HttpServer {
 public:
  // Binds and listens; port 0 picks a free port (see address()).
  static Result<std::unique_ptr<HttpServer>> bind(ServerOptions options, Handler handler);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // The bound address, with the actual port.
  const ListenAddress& address() const { return bound_; }
  const ServerStats& stats() const { return stats_; }

  // Serves until stop() is called or one of `stop_fds` (e.g. a signalfd) becomes readable;
  // then stops accepting, finishes in-flight responses (up to drain_timeout) and returns.
  void run(std::span<const int> stop_fds = {});
  // Thread-safe and async-signal-safe.
  void stop();

 private:
  HttpServer(ServerOptions options, Handler handler);
  struct Loop;

  ServerOptions options_;
  Handler handler_;
  ListenAddress bound_;
  UniqueFd listen_fd_;
  UniqueFd wake_fd_;
  ServerStats stats_;
};

}  // namespace anygpu::http
