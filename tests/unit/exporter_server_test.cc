// The HTTP server over real loopback sockets: routing, HEAD, keep-alive and pipelining, the
// limits (head size, header deadline, connection cap), malformed input, and a clean stop that
// finishes in-flight responses. The handler here is a stand-in; the exporter's own routes are
// tested with a fake snapshot source.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <thread>
#include <vector>

#include "exporter/routes.h"
#include "exporter/server.h"

using namespace anygpu;
using namespace anygpu::http;
using namespace std::chrono_literals;

namespace {

// From `source` (127.0.0.0/8 is all local) when given; a small receive buffer when asked.
int connect_from(uint16_t port, const char* source, int rcvbuf = 0) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (rcvbuf) ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  if (source) {
    sockaddr_in from{};
    from.sin_family = AF_INET;
    ::inet_pton(AF_INET, source, &from.sin_addr);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof from) != 0) {
      ::close(fd);
      return -1;
    }
  }
  timeval tv{10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

int connect_to(uint16_t port) {
  return connect_from(port, nullptr);
}

void send_all(int fd, std::string_view data) {
  while (!data.empty()) {
    auto n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n <= 0) return;
    data.remove_prefix(static_cast<size_t>(n));
  }
}

// Everything until the server closes (or 10 s pass).
std::string read_to_close(int fd) {
  std::string out;
  char buf[4096];
  for (;;) {
    auto n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

// Reads until `count` complete responses (heads with Content-Length bodies) arrived.
std::vector<std::string> read_responses(int fd, size_t count) {
  std::vector<std::string> out;
  std::string buf;
  char chunk[4096];
  while (out.size() < count) {
    auto end = buf.find("\r\n\r\n");
    if (end != std::string::npos) {
      auto cl = buf.find("Content-Length: ");
      size_t len = std::stoul(buf.substr(cl + 16));
      size_t total = end + 4 + len;
      if (buf.size() >= total) {
        out.push_back(buf.substr(0, total));
        buf.erase(0, total);
        continue;
      }
    }
    auto n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n <= 0) break;
    buf.append(chunk, static_cast<size_t>(n));
  }
  return out;
}

std::string roundtrip(uint16_t port, std::string_view request) {
  int fd = connect_to(port);
  if (fd < 0) return "connect failed";
  send_all(fd, request);
  auto out = read_to_close(fd);
  ::close(fd);
  return out;
}

std::string status_line(const std::string& response) {
  return response.substr(0, response.find("\r\n"));
}

std::string body_of(const std::string& response) {
  auto end = response.find("\r\n\r\n");
  return end == std::string::npos ? "" : response.substr(end + 4);
}

class ServerFixture : public ::testing::Test {
 protected:
  void start(ServerOptions options = {}) {
    options.listen = *parse_listen_address("127.0.0.1:0");
    auto srv = HttpServer::bind(options, [this](const Request& r) { return handle(r); });
    ASSERT_TRUE(srv.ok()) << srv.error().message;
    server_ = std::move(*srv);
    port_ = server_->address().port;
    ASSERT_NE(port_, 0);
    thread_ = std::thread([this] { server_->run(); });
  }
  void TearDown() override {
    if (server_) server_->stop();
    if (thread_.joinable()) thread_.join();
  }
  virtual Response handle(const Request& r) {
    if (r.path == "/slow") {
      std::this_thread::sleep_for(300ms);
      return text_response(200, "slow");
    }
    if (r.path == "/big") {
      Response big;
      big.body = std::make_shared<const std::string>(std::string(4 << 20, 'x'));
      return big;
    }
    if (r.path != "/hello") return text_response(404, "nope");
    return text_response(200, "hello " + r.method);
  }

  std::unique_ptr<HttpServer> server_;
  std::thread thread_;
  uint16_t port_ = 0;
};

}  // namespace

TEST_F(ServerFixture, AnswersAndClosesWhenAsked) {
  start();
  auto r = roundtrip(port_, "GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(status_line(r), "HTTP/1.1 200 OK");
  EXPECT_NE(r.find("Content-Length: 10\r\n"), std::string::npos) << r;
  EXPECT_NE(r.find("Connection: close\r\n"), std::string::npos) << r;
  EXPECT_NE(r.find("\r\nDate: "), std::string::npos) << r;
  EXPECT_EQ(body_of(r), "hello GET\n");
  auto old = roundtrip(port_, "GET /hello HTTP/1.0\r\n\r\n");  // 1.0 closes by default
  EXPECT_EQ(body_of(old), "hello GET\n");
}

TEST_F(ServerFixture, HeadSendsTheLengthButNoBody) {
  start();
  auto r = roundtrip(port_, "HEAD /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(status_line(r), "HTTP/1.1 200 OK");
  EXPECT_NE(r.find("Content-Length: 11\r\n"), std::string::npos) << r;
  EXPECT_EQ(body_of(r), "");
}

TEST_F(ServerFixture, KeepAliveAndPipelining) {
  start();
  int fd = connect_to(port_);
  ASSERT_GE(fd, 0);
  std::string many;
  for (int i = 0; i < 200; ++i) many += "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n";
  send_all(fd, many);
  auto rs = read_responses(fd, 200);
  ASSERT_EQ(rs.size(), 200u);
  for (const auto& r : rs) EXPECT_EQ(body_of(r), "hello GET\n");
  send_all(fd, "GET /missing HTTP/1.1\r\nHost: x\r\n\r\n");
  auto more = read_responses(fd, 1);
  ASSERT_EQ(more.size(), 1u);
  EXPECT_EQ(status_line(more[0]), "HTTP/1.1 404 Not Found");
  EXPECT_EQ(more[0].find("Connection: close"), std::string::npos);
  ::close(fd);
  EXPECT_EQ(server_->stats().requests.load(), 201u);
}

TEST_F(ServerFixture, LargeBodiesReachSlowReaders) {
  start();
  int fd = connect_to(port_);
  send_all(fd, "GET /big HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  std::this_thread::sleep_for(200ms);  // the socket buffer fills; the server waits for EPOLLOUT
  auto r = read_to_close(fd);
  ::close(fd);
  EXPECT_EQ(body_of(r).size(), size_t{4} << 20);
}

TEST_F(ServerFixture, MalformedRequestsGet400AndTheServerKeepsServing) {
  start();
  for (const std::string& bad : std::vector<std::string>{
           "GARBAGE\r\n\r\n", "GET / HTTP/1.1\r\n\r\n", "GET /hello HTTP/3.0\r\n\r\n",
           std::string("\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03\r\n\r\n", 15)}) {
    auto r = roundtrip(port_, bad);
    EXPECT_TRUE(status_line(r) == "HTTP/1.1 400 Bad Request" ||
                status_line(r) == "HTTP/1.1 505 HTTP Version Not Supported")
        << bad << " -> " << r;
    EXPECT_NE(r.find("Connection: close"), std::string::npos);
  }
  EXPECT_EQ(body_of(roundtrip(port_, "GET /hello HTTP/1.0\r\n\r\n")), "hello GET\n");
}

TEST_F(ServerFixture, OversizedHeadsGet431) {
  start();
  auto r = roundtrip(
      port_, "GET /hello HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(20000, 'a') + "\r\n\r\n");
  EXPECT_EQ(status_line(r), "HTTP/1.1 431 Request Header Fields Too Large");
  auto line = roundtrip(port_, "GET /" + std::string(10000, 'a') + " HTTP/1.1\r\n\r\n");
  EXPECT_EQ(status_line(line), "HTTP/1.1 414 URI Too Long");
  EXPECT_EQ(body_of(roundtrip(port_, "GET /hello HTTP/1.0\r\n\r\n")), "hello GET\n");
}

TEST_F(ServerFixture, BodiesAreAnsweredThenTheConnectionCloses) {
  start();
  auto r = roundtrip(port_,
                     "POST /hello HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhelloGET /hello "
                     "HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(status_line(r), "HTTP/1.1 200 OK");
  EXPECT_EQ(body_of(r), "hello POST\n");  // one answer only: the body is never parsed as a head
}

TEST_F(ServerFixture, SlowHeadsAreCutWith408) {
  ServerOptions o;
  o.header_timeout = 300ms;
  start(o);
  int slow = connect_to(port_);
  int silent = connect_to(port_);
  auto t0 = std::chrono::steady_clock::now();
  send_all(slow, "GET /hello HTTP/1.1\r\nHost");
  // Trickling bytes does not extend the deadline.
  for (int i = 0; i < 3; ++i) {
    std::this_thread::sleep_for(50ms);
    send_all(slow, "a");
  }
  auto r = read_to_close(slow);
  auto silent_r = read_to_close(silent);
  auto elapsed = std::chrono::steady_clock::now() - t0;
  EXPECT_EQ(status_line(r), "HTTP/1.1 408 Request Timeout");
  EXPECT_EQ(silent_r, "");  // a connection that never sent a byte is just closed
  EXPECT_LT(elapsed, 3s);
  EXPECT_GE(server_->stats().timeouts.load(), 2u);
  ::close(slow);
  ::close(silent);
  EXPECT_EQ(body_of(roundtrip(port_, "GET /hello HTTP/1.0\r\n\r\n")), "hello GET\n");
}

namespace {

bool closed_by_server(int fd) {
  timeval tv{2, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  char buf[512];
  for (;;) {
    auto n = ::recv(fd, buf, sizeof buf, 0);
    if (n == 0 || (n < 0 && errno == ECONNRESET)) return true;
    if (n < 0) return false;  // timed out: still open
  }
}

}  // namespace

TEST_F(ServerFixture, AtTheCapTheLongestWaitingHeadGivesWayToANewcomer) {
  ServerOptions o;
  o.max_connections = 2;
  o.max_per_peer = 2;
  o.reserve_for_new_peers = 0;
  start(o);
  int a = connect_to(port_);
  send_all(a, "GET /hello HTTP/1.1\r\nHost: x\r\n");  // heads in progress
  std::this_thread::sleep_for(50ms);
  int b = connect_to(port_);
  send_all(b, "GET /hello HTTP/1.1\r\nHost: x\r\n");
  std::this_thread::sleep_for(50ms);
  auto t0 = std::chrono::steady_clock::now();
  auto r = roundtrip(port_, "GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 1s);
  EXPECT_EQ(body_of(r), "hello GET\n");
  auto dropped = read_to_close(a);  // the oldest waiting head gave way
  EXPECT_TRUE(dropped.empty() || status_line(dropped) == "HTTP/1.1 503 Service Unavailable");
  EXPECT_EQ(server_->stats().evicted.load(), 1u);
  send_all(b, "\r\n");  // the younger one is still served
  ASSERT_EQ(read_responses(b, 1).size(), 1u);
  // b is now idle and kept alive: it gives way first.
  int c = connect_to(port_);
  send_all(c, "GET /hello HTTP/1.1\r\nHost: x\r\n");
  EXPECT_EQ(body_of(roundtrip(port_, "GET /hello HTTP/1.0\r\n\r\n")), "hello GET\n");
  auto idle = read_to_close(b);
  EXPECT_TRUE(idle.empty() || status_line(idle) == "HTTP/1.1 503 Service Unavailable");
  EXPECT_EQ(server_->stats().evicted.load(), 2u);
  ::close(a);
  ::close(b);
  ::close(c);
}

TEST_F(ServerFixture, RefusesOnlyWhenEveryConnectionIsSending) {
  ServerOptions o;
  o.max_connections = 1;
  start(o);
  int a = connect_from(port_, "127.0.0.1", 4096);
  send_all(a, "GET /big HTTP/1.1\r\nHost: x\r\n\r\n");  // 4 MiB nobody reads: sending
  std::this_thread::sleep_for(100ms);
  auto refused = roundtrip(port_, "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_TRUE(refused.empty() || status_line(refused) == "HTTP/1.1 503 Service Unavailable")
      << refused;
  EXPECT_GE(server_->stats().refused.load(), 1u);
  ::close(a);
}

TEST_F(ServerFixture, PeersAreCappedAndNewPeersHaveAReserve) {
  ServerOptions o;
  o.max_connections = 4;
  o.max_per_peer = 3;
  o.reserve_for_new_peers = 1;
  o.pressure_header_timeout = 5s;
  start(o);
  std::vector<int> x;
  for (int i = 0; i < 4; ++i) {  // the 4th is over the peer cap: x[0] gives way
    x.push_back(connect_from(port_, "127.0.0.2"));
    ASSERT_GE(x.back(), 0);
    send_all(x.back(), "GET /hello HTTP/1.1\r\n");
    std::this_thread::sleep_for(30ms);
  }
  EXPECT_TRUE(closed_by_server(x[0]));
  EXPECT_EQ(server_->stats().evicted.load(), 1u);
  // 3 of 4 slots used: the last is the reserve, and a new peer takes it without eviction.
  int y = connect_from(port_, "127.0.0.3");
  send_all(y, "GET /hello HTTP/1.1\r\n");
  std::this_thread::sleep_for(30ms);
  EXPECT_EQ(server_->stats().evicted.load(), 1u);
  // Full: one more new peer is served, and the peer holding the most pays (x[1], its oldest).
  auto r = roundtrip(port_, "GET /hello HTTP/1.0\r\n\r\n");
  EXPECT_EQ(body_of(r), "hello GET\n");
  EXPECT_EQ(server_->stats().evicted.load(), 2u);
  EXPECT_TRUE(closed_by_server(x[1]));
  send_all(y, "Host: y\r\n\r\n");
  EXPECT_EQ(read_responses(y, 1).size(), 1u);
  for (int fd : x) ::close(fd);
  ::close(y);
}

TEST_F(ServerFixture, HeadDeadlineShrinksOnceTheReserveIsInUse) {
  ServerOptions o;
  o.max_connections = 4;
  o.max_per_peer = 4;
  o.reserve_for_new_peers = 1;
  o.header_timeout = 10s;
  o.pressure_header_timeout = 200ms;
  start(o);
  auto t0 = std::chrono::steady_clock::now();
  std::vector<int> slow;
  for (int i = 0; i < 3; ++i) {
    slow.push_back(connect_to(port_));
    send_all(slow.back(), "GET /hello HTTP/1.1\r\n");
  }
  for (int fd : slow) EXPECT_EQ(status_line(read_to_close(fd)), "HTTP/1.1 408 Request Timeout");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s);
  for (int fd : slow) ::close(fd);
  // Below the reserve the full deadline holds.
  int one = connect_to(port_);
  send_all(one, "GET /hello HTTP/1.1\r\n");
  EXPECT_FALSE(closed_by_server(one));
  ::close(one);
}

TEST_F(ServerFixture, StopFinishesInFlightResponses) {
  start();
  int fd = connect_to(port_);
  send_all(fd, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n");
  std::this_thread::sleep_for(100ms);  // the handler is running now
  server_->stop();
  auto r = read_to_close(fd);
  ::close(fd);
  EXPECT_EQ(status_line(r), "HTTP/1.1 200 OK");
  EXPECT_EQ(body_of(r), "slow\n");
  thread_.join();
  EXPECT_LT(connect_to(port_), 0);  // no longer accepting
}

TEST(ExporterRoutes, MetricsBodyIsCachedPerSnapshot) {
  auto snap = std::make_shared<const MetricsSnapshot>();
  std::shared_ptr<const MetricsSnapshot> current;
  int renders = 0;
  exporter::MetricsPage page([&] { return current; },
                             [&](const MetricsSnapshot&, std::chrono::system_clock::time_point) {
                               return "anygpu_x " + std::to_string(++renders) + "\n";
                             },
                             std::chrono::hours(1));
  Request get;
  get.method = "GET";
  get.path = "/metrics";
  auto none = exporter::route(get, page);
  EXPECT_EQ(none.status, 503);
  current = snap;
  auto a = exporter::route(get, page);
  auto b = exporter::route(get, page);
  EXPECT_EQ(a.status, 200);
  EXPECT_EQ(a.content_type, "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(*a.body, "anygpu_x 1\n");
  EXPECT_EQ(a.body.get(), b.body.get());  // shared, not re-rendered
  current = std::make_shared<const MetricsSnapshot>();
  EXPECT_EQ(*exporter::route(get, page).body, "anygpu_x 2\n");
  EXPECT_EQ(page.renders(), 2u);
}

TEST(ExporterRoutes, CachedBodyExpiresSoTheSampleAgeKeepsGrowing) {
  auto snap = std::make_shared<const MetricsSnapshot>();
  int renders = 0;
  exporter::MetricsPage page([&] { return snap; },
                             [&](const MetricsSnapshot&, std::chrono::system_clock::time_point) {
                               return std::to_string(++renders);
                             },
                             20ms);
  EXPECT_EQ(*page.body(), "1");
  EXPECT_EQ(*page.body(), "1");
  std::this_thread::sleep_for(30ms);
  EXPECT_EQ(*page.body(), "2");
}

TEST(ExporterRoutes, PathsAndMethods) {
  exporter::MetricsPage page([] { return std::make_shared<const MetricsSnapshot>(); },
                             [](const MetricsSnapshot&, std::chrono::system_clock::time_point) {
                               return std::string("m\n");
                             });
  auto req = [](std::string method, std::string path) {
    Request r;
    r.method = std::move(method);
    r.path = std::move(path);
    return r;
  };
  EXPECT_EQ(exporter::route(req("GET", "/healthz"), page).status, 200);
  EXPECT_EQ(*exporter::route(req("GET", "/healthz"), page).body, "ok\n");
  EXPECT_EQ(exporter::route(req("HEAD", "/metrics"), page).status, 200);
  EXPECT_EQ(exporter::route(req("GET", "/"), page).status, 404);
  EXPECT_EQ(exporter::route(req("GET", "/metrics/"), page).status, 404);
  EXPECT_EQ(exporter::route(req("GET", "*"), page).status, 404);
  auto post = exporter::route(req("POST", "/metrics"), page);
  EXPECT_EQ(post.status, 405);
  ASSERT_EQ(post.fields.size(), 1u);
  EXPECT_EQ(post.fields[0].first, "Allow");
  EXPECT_EQ(post.fields[0].second, "GET, HEAD");
  EXPECT_EQ(exporter::route(req("get", "/metrics"), page).status,
            405);  // methods are case-sensitive
}

TEST(ExporterServer, BindErrorsAreHostErrors) {
  ServerOptions o;
  o.listen = *parse_listen_address("127.0.0.1:0");
  auto first = HttpServer::bind(o, [](const Request&) { return Response{}; });
  ASSERT_TRUE(first.ok());
  o.listen.port = (*first)->address().port;
  auto second = HttpServer::bind(o, [](const Request&) { return Response{}; });
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().kind, ErrorKind::host);
  EXPECT_NE(second.error().message.find("127.0.0.1:"), std::string::npos);
}

TEST(ExporterServer, ListensOnIpv6Loopback) {
  ServerOptions o;
  o.listen = *parse_listen_address("[::1]:0");
  auto srv = HttpServer::bind(o, [](const Request&) { return text_response(200, "v6"); });
  if (!srv.ok()) GTEST_FAIL() << "IPv6 loopback unavailable: " << srv.error().message;
  EXPECT_TRUE((*srv)->address().ipv6);
  EXPECT_NE((*srv)->address().port, 0);
  EXPECT_EQ((*srv)->address().str().front(), '[');
}
