// `--listen HOST:PORT` parsing: the accepted forms and clear errors for everything else.
#include <gtest/gtest.h>

#include "exporter/listen_address.h"

using namespace anygpu;
using namespace anygpu::http;

TEST(ExporterListenAddress, AcceptedForms) {
  auto def = parse_listen_address(kDefaultListen);
  ASSERT_TRUE(def.ok());
  EXPECT_EQ(def->host, "127.0.0.1");
  EXPECT_EQ(def->port, 9400);
  EXPECT_FALSE(def->ipv6);
  EXPECT_EQ(def->str(), "127.0.0.1:9400");

  auto any = parse_listen_address("0.0.0.0:0");
  ASSERT_TRUE(any.ok());
  EXPECT_EQ(any->port, 0);

  auto v6 = parse_listen_address("[::1]:65535");
  ASSERT_TRUE(v6.ok());
  EXPECT_TRUE(v6->ipv6);
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 65535);
  EXPECT_EQ(v6->str(), "[::1]:65535");

  auto all6 = parse_listen_address("[::]:9400");
  ASSERT_TRUE(all6.ok());
  EXPECT_EQ(all6->host, "::");

  auto local = parse_listen_address("localhost:9400");
  ASSERT_TRUE(local.ok());
  EXPECT_EQ(local->host, "127.0.0.1");
}

TEST(ExporterListenAddress, RejectedFormsNameTheValue) {
  for (const char* bad : {"",
                          "9400",
                          ":9400",
                          "127.0.0.1",
                          "127.0.0.1:",
                          "127.0.0.1:65536",
                          "127.0.0.1:-1",
                          "127.0.0.1:+80",
                          "127.0.0.1:0x50",
                          "127.0.0.1:999999",
                          "127.0.0.1: 80",
                          "256.0.0.1:80",
                          "1.2.3:80",
                          "example.com:80",
                          "::1:9400",
                          "[::1]",
                          "[::1]9400",
                          "[::1:9400",
                          "[]:80",
                          "[127.0.0.1]:80",
                          "[fe80::1%eth0]:80",
                          "[::1]:",
                          "[::1]:80x",
                          "127.0.0.1:80\n",
                          "\xff:80"}) {
    auto r = parse_listen_address(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().kind, ErrorKind::bad_input);
    EXPECT_NE(r.error().message.find("--listen"), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find("HOST:PORT"), std::string::npos) << r.error().message;
  }
}
