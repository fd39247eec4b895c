// SHA-256 against the FIPS 180-4 / NIST CAVP example vectors, whole and fed in pieces.
#include <gtest/gtest.h>

#include "util/sha256.h"

namespace anygpu {
namespace {

TEST(Sha256, KnownVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjk"
                       "lmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"),
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// The CPU's SHA instructions (where it has them) and the portable code agree, on lengths
// around every block and padding boundary.
TEST(Sha256, HardwareAndPortableCodeAgree) {
  std::string text;
  for (int i = 0; i < 4096; ++i) text += static_cast<char>((i * 131 + 7) % 251);
  for (size_t len : {0u, 1u, 55u, 56u, 63u, 64u, 65u, 119u, 120u, 128u, 1000u, 4096u}) {
    Sha256 best, portable(Sha256::Code::portable);
    best.update(text.substr(0, len));
    portable.update(text.substr(0, len));
    EXPECT_EQ(best.hex(), portable.hex()) << "length " << len;
  }
  Sha256 portable(Sha256::Code::portable);
  portable.update("abc");
  EXPECT_EQ(portable.hex(), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256, PiecesEqualWhole) {
  std::string text;
  for (int i = 0; i < 1000; ++i) text += static_cast<char>(i * 7 + 3);
  for (size_t step : {1u, 3u, 63u, 64u, 65u, 200u}) {
    Sha256 h;
    for (size_t at = 0; at < text.size(); at += step) h.update(text.substr(at, step));
    EXPECT_EQ(h.hex(), sha256_hex(text)) << "step " << step;
  }
  // Lengths around the padding boundary (55, 56, 64 bytes).
  EXPECT_EQ(sha256_hex(std::string(55, 'x')).size(), 64u);
  EXPECT_NE(sha256_hex(std::string(55, 'x')), sha256_hex(std::string(56, 'x')));
}

}  // namespace
}  // namespace anygpu
