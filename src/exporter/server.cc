#include "exporter/server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <unordered_map>

#include "util/strings.h"

namespace anygpu::http {

namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kReadChunk = 16 << 10;
constexpr size_t kMaxLingerBytes = 64 << 10;
// Sent without reading the request when the connection cap is reached.
constexpr std::string_view kRefusal =
    "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
    "Content-Length: 22\r\nConnection: close\r\n\r\ntoo many connections\r\n";

enum class Phase {
  reading,    // waiting for (the rest of) a request head
  writing,    // sending a response
  lingering,  // answered and shut down for writing; discarding input until EOF
};

struct Connection {
  UniqueFd sock;
  int fd = -1;  // sock's number: the key of the loop's map
  Phase phase = Phase::reading;
  std::string in;
  bool head_started = false;  // bytes of the current head arrived
  bool served = false;        // at least one response was sent (kept-alive connection)
  bool close_after = false;
  std::string out_head;
  std::shared_ptr<const std::string> out_body;
  size_t out_sent = 0;  // over head then body
  Clock::time_point deadline;
  size_t lingered = 0;
  std::string peer;         // peer_key() of the remote address
  Clock::time_point since;  // when its wait for the current head began (accept or last answer)
};

// A peer for fairness: the IPv4 address, or the IPv6 /64 (one host holds a whole prefix).
std::string peer_key(const sockaddr_storage& ss) {
  if (ss.ss_family == AF_INET) {
    const auto& a = reinterpret_cast<const sockaddr_in&>(ss).sin_addr;
    return std::string(reinterpret_cast<const char*>(&a), 4);
  }
  if (ss.ss_family == AF_INET6) {
    const auto& a = reinterpret_cast<const sockaddr_in6&>(ss).sin6_addr;
    const char* b = reinterpret_cast<const char*>(a.s6_addr);
    return IN6_IS_ADDR_V4MAPPED(&a) ? std::string(b + 12, 4) : std::string(b, 8);
  }
  return {};
}

// Waiting for a request head: new, or kept alive and started on its next one.
bool waiting(const Connection& c) {
  return c.phase == Phase::reading && (c.head_started || !c.served);
}

std::string errno_text(int err) {
  return std::strerror(err);
}

}  // namespace

struct HttpServer::Loop {
  HttpServer& s;
  UniqueFd epfd;
  UniqueFd spare_fd;  // released on EMFILE so a pending connection can be accepted and closed
  std::unordered_map<int, std::unique_ptr<Connection>> conns;
  std::unordered_map<std::string, size_t> per_peer;  // open connections by peer_key()
  size_t cap = 1, peer_cap = 1, reserve = 0;
  bool stopping = false;
  Clock::time_point drain_deadline;
  std::chrono::system_clock::time_point date_second{};
  std::string date;

  explicit Loop(HttpServer& server) : s(server) {}

  void watch(int fd, uint32_t events, int op) {
    epoll_event ev{};
    ev.events = events;
    ev.data.fd = fd;
    ::epoll_ctl(epfd.get(), op, fd, &ev);
  }

  void set_phase(Connection& c, Phase p) {
    c.phase = p;
    watch(c.fd, p == Phase::writing ? EPOLLOUT : EPOLLIN, EPOLL_CTL_MOD);
  }

  void close_conn(int fd) {
    if (auto it = conns.find(fd); it != conns.end())
      if (auto p = per_peer.find(it->second->peer); p != per_peer.end() && --p->second == 0)
        per_peer.erase(p);
    ::epoll_ctl(epfd.get(), EPOLL_CTL_DEL, fd, nullptr);
    conns.erase(fd);  // closes it
  }

  const std::string& date_now() {
    auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
    if (now != date_second || date.empty()) {
      date_second = now;
      date = http_date(now);
    }
    return date;
  }

  size_t count(const std::string& peer) const {
    auto it = per_peer.find(peer);
    return it == per_peer.end() ? 0 : it->second;
  }

  // The connection that gives way, among those `eligible` allows: an idle kept-alive one; else
  // the started head that has waited longest (a trickling head is the slow client's mark);
  // else the longest-silent new one — a client that just connected and was not yet scheduled
  // to send is the last to go. Connections sending a response never give way.
  template <typename Eligible>
  Connection* victim(Eligible eligible) {
    Connection *started = nullptr, *silent = nullptr;
    for (auto& [fd, c] : conns) {
      if (c->phase != Phase::reading || !eligible(*c)) continue;
      if (!waiting(*c)) return c.get();
      auto*& oldest = c->head_started ? started : silent;
      if (!oldest || c->since < oldest->since) oldest = c.get();
    }
    return started ? started : silent;
  }

  // An answered connection waiting for its client's close holds no request, so it is the
  // first to go, and not as an eviction: its client already has its response. Without this a
  // client that closes right after reading races the server's view of that close, and its
  // next request could be refused while its old connections are still counted.
  template <typename Eligible>
  bool release_answered(Eligible eligible) {
    for (auto& [fd, c] : conns)
      if (c->phase == Phase::lingering && eligible(*c)) {
        close_conn(fd);
        return true;
      }
    return false;
  }

  bool evict(Connection* v) {
    if (!v) return false;
    ++s.stats_.evicted;
    ::send(v->fd, kRefusal.data(), kRefusal.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    close_conn(v->fd);
    return true;
  }

  // Makes room for one more connection from `peer`; false when nothing may give way.
  bool make_room(const std::string& peer) {
    size_t mine = count(peer);
    auto own = [&](const Connection& c) { return c.peer == peer; };
    auto any = [](const Connection&) { return true; };
    if (mine >= peer_cap || (mine > 0 && conns.size() >= cap - reserve))
      // Over its own cap, or into the reserve: the peer makes room from its own.
      return release_answered(own) || evict(victim(own));
    if (mine == 0 && conns.size() >= cap) {
      // A new peer at capacity: the peers holding the most pay.
      if (release_answered(any)) return true;
      size_t most = 0;
      for (const auto& [p, n] : per_peer) most = std::max(most, n);
      Connection* v = victim([&](const Connection& c) { return count(c.peer) == most; });
      return evict(v ? v : victim(any));
    }
    return true;
  }

  // Once the reserve is in use, heads get the shorter deadline.
  Clock::time_point deadline_of(const Connection& c, bool pressured) const {
    if (pressured && waiting(c))
      return std::min(c.deadline, c.since + s.options_.pressure_header_timeout);
    return c.deadline;
  }
  bool pressured() const { return conns.size() >= cap - reserve; }

  void accept_all(Clock::time_point now) {
    // Bounded per wake-up so reads of open connections are not starved by a connect flood.
    for (int accepted = 0; accepted < 256; ++accepted) {
      sockaddr_storage ss{};
      socklen_t len = sizeof ss;
      UniqueFd sock(::accept4(s.listen_fd_.get(), reinterpret_cast<sockaddr*>(&ss), &len,
                              SOCK_NONBLOCK | SOCK_CLOEXEC));
      if (!sock) {
        if (errno == EINTR || errno == ECONNABORTED) continue;
        if ((errno == EMFILE || errno == ENFILE) && spare_fd) {
          // Counted before the client can see the close, so stats never lag what it saw.
          ++s.stats_.refused;
          spare_fd.reset();
          // The pending connection takes the freed slot and is closed, freeing it again.
          UniqueFd(::accept4(s.listen_fd_.get(), nullptr, nullptr, SOCK_CLOEXEC)).reset();
          spare_fd = UniqueFd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
          continue;
        }
        return;  // EAGAIN, or an error the next readiness will show again
      }
      int fd = sock.get();
      std::string peer = peer_key(ss);
      if (!make_room(peer)) {
        ++s.stats_.refused;
        ::send(fd, kRefusal.data(), kRefusal.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
        continue;
      }
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      auto c = std::make_unique<Connection>();
      c->sock = std::move(sock);
      c->fd = fd;
      c->deadline = now + s.options_.header_timeout;
      c->since = now;
      c->peer = std::move(peer);
      ++per_peer[c->peer];
      watch(fd, EPOLLIN, EPOLL_CTL_ADD);
      auto& conn = *c;
      conns.emplace(fd, std::move(c));
      ++s.stats_.accepted;
      // A well-behaved client sent its request with the handshake: answer it now, before
      // the next connection of a flood could make it the one to give way.
      on_readable(conn, now);
    }
  }

  void respond(Connection& c, Response r, bool keep_alive, bool head_only, Clock::time_point now) {
    c.close_after = !keep_alive;
    c.out_head = serialize_head(r, keep_alive, date_now());
    c.out_body = head_only ? nullptr : std::move(r.body);
    c.out_sent = 0;
    c.deadline = now + s.options_.write_timeout;
    set_phase(c, Phase::writing);
  }

  void respond_error(Connection& c, int status, std::string_view reason, Clock::time_point now) {
    ++s.stats_.bad_requests;
    respond(c, text_response(status, reason), false, false, now);
  }

  Response call_handler(const Request& req) {
    try {
      return s.handler_(req);
    } catch (const std::exception& e) {
      return text_response(500, e.what());
    }
  }

  enum class Next { wait, closed, again };

  // Handles every complete head in the buffer, one response at a time (iteratively: a client
  // may pipeline hundreds of small requests).
  void process(Connection& c, Clock::time_point now) {
    for (;;) {
      if (c.phase != Phase::reading || c.in.empty()) return;
      if (!c.head_started) {
        c.head_started = true;
        if (c.served) c.since = now;  // a kept-alive connection starts its next head
        c.deadline = std::min(c.deadline, now + s.options_.header_timeout);
      }
      auto out = parse_request_head(c.in, s.options_.limits);
      if (out.status == ParseStatus::incomplete) return;
      if (out.status == ParseStatus::error) {
        respond_error(c, out.error_status, out.error_reason, now);
      } else {
        ++s.stats_.requests;
        c.in.erase(0, out.consumed);
        auto response = call_handler(out.request);
        bool keep = out.request.keep_alive && !response.close && !stopping;
        respond(c, std::move(response), keep, out.request.method == "HEAD", now);
      }
      if (flush(c, now) != Next::again) return;
    }
  }

  // Sends what the socket takes. `again`: the response is out and the connection is reading
  // again, with bytes buffered (a pipelined request).
  Next flush(Connection& c, Clock::time_point now) {
    for (;;) {
      iovec iov[2];
      int n = 0;
      size_t head = c.out_head.size();
      if (c.out_sent < head) iov[n++] = {c.out_head.data() + c.out_sent, head - c.out_sent};
      if (c.out_body) {
        size_t off = c.out_sent > head ? c.out_sent - head : 0;
        if (off < c.out_body->size())
          iov[n++] = {const_cast<char*>(c.out_body->data()) + off, c.out_body->size() - off};
      }
      if (n == 0) break;
      msghdr msg{};
      msg.msg_iov = iov;
      msg.msg_iovlen = static_cast<size_t>(n);
      ssize_t sent = ::sendmsg(c.fd, &msg, MSG_NOSIGNAL);
      if (sent < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return Next::wait;
        close_conn(c.fd);
        return Next::closed;
      }
      c.out_sent += static_cast<size_t>(sent);
    }
    c.out_head = std::string();
    c.out_body.reset();
    c.served = true;
    if (c.close_after || stopping) {
      ::shutdown(c.fd, SHUT_WR);
      c.deadline = now + s.options_.linger_timeout;
      c.in = std::string();
      set_phase(c, Phase::lingering);
      return Next::wait;
    }
    c.head_started = false;
    c.since = now;
    c.deadline = now + s.options_.idle_timeout;
    set_phase(c, Phase::reading);
    return c.in.empty() ? Next::wait : Next::again;
  }

  void on_readable(Connection& c, Clock::time_point now) {
    char buf[kReadChunk];
    ssize_t n;
    do {
      n = ::recv(c.fd, buf, sizeof buf, 0);
    } while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n <= 0) {  // EOF or error: nothing more can be answered
      close_conn(c.fd);
      return;
    }
    if (c.phase == Phase::lingering) {
      c.lingered += static_cast<size_t>(n);
      if (c.lingered > kMaxLingerBytes) close_conn(c.fd);
      return;
    }
    c.in.append(buf, static_cast<size_t>(n));
    process(c, now);
  }

  void expire(Clock::time_point now) {
    std::vector<int> due;
    const bool p = pressured();
    for (auto& [fd, c] : conns)
      if (deadline_of(*c, p) <= now) due.push_back(fd);
    for (int fd : due) {
      auto& c = *conns.at(fd);
      if (c.phase == Phase::reading && c.head_started) {
        ++s.stats_.timeouts;
        respond_error(c, 408, "request head not received in time", now);
        flush(c, now);
      } else {
        if (c.phase != Phase::lingering) ++s.stats_.timeouts;
        close_conn(fd);
      }
    }
  }

  int wait_ms(Clock::time_point now) const {
    auto next = now + std::chrono::seconds(1);
    const bool p = pressured();
    for (const auto& [fd, c] : conns) next = std::min(next, deadline_of(*c, p));
    if (stopping) next = std::min(next, drain_deadline);
    auto ms = std::chrono::ceil<std::chrono::milliseconds>(next - now).count();
    return static_cast<int>(std::clamp<long long>(ms, 0, 1000));
  }

  void begin_stop(Clock::time_point now) {
    if (stopping) return;
    stopping = true;
    drain_deadline = now + s.options_.drain_timeout;
    ::epoll_ctl(epfd.get(), EPOLL_CTL_DEL, s.listen_fd_.get(), nullptr);
    s.listen_fd_.reset();
    std::vector<int> idle;
    for (auto& [fd, c] : conns)
      if (c->phase != Phase::writing && !c->head_started) idle.push_back(fd);
    for (int fd : idle) close_conn(fd);
  }

  void run(std::span<const int> stop_fds) {
    const auto& o = s.options_;
    cap = std::max<size_t>(o.max_connections, 1);
    peer_cap = std::clamp<size_t>(o.max_per_peer.value_or(cap / 4), 1, cap);
    reserve = std::min(o.reserve_for_new_peers.value_or(cap / 8), cap - 1);
    epfd = UniqueFd(::epoll_create1(EPOLL_CLOEXEC));
    spare_fd = UniqueFd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    watch(s.listen_fd_.get(), EPOLLIN, EPOLL_CTL_ADD);
    watch(s.wake_fd_.get(), EPOLLIN, EPOLL_CTL_ADD);
    for (int fd : stop_fds) watch(fd, EPOLLIN, EPOLL_CTL_ADD);
    epoll_event events[64];
    for (;;) {
      auto now = Clock::now();
      if (stopping && (conns.empty() || now >= drain_deadline)) return;
      int n = ::epoll_wait(epfd.get(), events, 64, wait_ms(now));
      now = Clock::now();
      for (int i = 0; i < n; ++i) {
        int fd = events[i].data.fd;
        if (s.listen_fd_ && fd == s.listen_fd_.get()) {
          accept_all(now);
        } else if (fd == s.wake_fd_.get() ||
                   std::find(stop_fds.begin(), stop_fds.end(), fd) != stop_fds.end()) {
          begin_stop(now);
        } else if (auto it = conns.find(fd); it != conns.end()) {
          auto& c = *it->second;
          if (c.phase == Phase::writing) {
            if (flush(c, now) == Next::again) process(c, now);
          } else {
            on_readable(c, now);
          }
        }
      }
      expire(now);
    }
  }
};

HttpServer::HttpServer(ServerOptions options, Handler handler)
    : options_(std::move(options)), handler_(std::move(handler)) {}

HttpServer::~HttpServer() = default;

Result<std::unique_ptr<HttpServer>> HttpServer::bind(ServerOptions options, Handler handler) {
  auto addr = options.listen;
  std::unique_ptr<HttpServer> srv(new HttpServer(std::move(options), std::move(handler)));
  sockaddr_storage ss{};
  socklen_t len = 0;
  if (addr.ipv6) {
    auto* a = reinterpret_cast<sockaddr_in6*>(&ss);
    a->sin6_family = AF_INET6;
    a->sin6_port = htons(addr.port);
    if (inet_pton(AF_INET6, addr.host.c_str(), &a->sin6_addr) != 1)
      return bad_input(cat({"--listen: not an IPv6 address: ", addr.host}));
    len = sizeof *a;
  } else {
    auto* a = reinterpret_cast<sockaddr_in*>(&ss);
    a->sin_family = AF_INET;
    a->sin_port = htons(addr.port);
    if (inet_pton(AF_INET, addr.host.c_str(), &a->sin_addr) != 1)
      return bad_input(cat({"--listen: not an IPv4 address: ", addr.host}));
    len = sizeof *a;
  }
  srv->listen_fd_ = UniqueFd(::socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!srv->listen_fd_) return host_error(cat({"socket: ", errno_text(errno)}));
  int fd = srv->listen_fd_.get();
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&ss), len) != 0 || ::listen(fd, SOMAXCONN) != 0)
    return host_error(cat({"cannot listen on ", addr.str(), ": ", errno_text(errno)}));
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0)
    return host_error(cat({"getsockname: ", errno_text(errno)}));
  addr.port = ntohs(addr.ipv6 ? reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port
                              : reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
  srv->bound_ = addr;
  srv->wake_fd_ = UniqueFd(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
  if (!srv->wake_fd_) return host_error(cat({"eventfd: ", errno_text(errno)}));
  return srv;
}

void HttpServer::run(std::span<const int> stop_fds) {
  if (!listen_fd_) return;
  Loop loop(*this);
  loop.run(stop_fds);
}

void HttpServer::stop() {
  uint64_t one = 1;
  [[maybe_unused]] auto n = ::write(wake_fd_.get(), &one, sizeof one);
}

}  // namespace anygpu::http
