// One unary gRPC call (github.com/grpc/grpc doc/PROTOCOL-HTTP2.md) over HTTP/2 cleartext on a
// unix stream socket: the request and response are serialized messages, the exchange is
// bounded in time and size, and any failure is an error naming what went wrong.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "host/host_root.h"
#include "util/result.h"

namespace anygpu::ps {

struct GrpcCall {
  std::string socket;  // host path, opened beneath the HostRoot
  std::string method;  // "/v1.PodResourcesLister/List"
  std::string request;
  std::chrono::milliseconds deadline{1000};  // for the whole exchange, connect included
  size_t max_response_bytes = size_t{16} << 20;
};

// The response message.
Result<std::string> grpc_unary_call(const HostRoot& host, const GrpcCall& call);

// The exchange after connecting, over any connected stream socket (tests drive it).
Result<std::string> grpc_exchange(int fd, const GrpcCall& call);

}  // namespace anygpu::ps
