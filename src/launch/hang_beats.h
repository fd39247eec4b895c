// `run --debug-hangs`: the per-rank progress beats anygpu.torch writes into the hang directory,
// read back and judged. One file per rank, `rank-<R>.beat`, holds one line rewritten in place at
// every beat (python/anygpu/torch/_beats.py writes it):
//
//   anygpu-beat/1 rank=1 local_rank=1 pid=4242 device=0000:18:00.0 signal=38 threshold_s=300
//       count=17 seq=9 time_ns=1700000000123456789 event=enter op=reduce collective=reduce
//
// (one line, padded with spaces to a fixed size). `count` advances at every beat, `seq` at every
// collective entered; `event` is enter/leave (a collective), step, backward, mark or exit; the
// rank registered a Python stack dump (faulthandler) on `signal`, written to
// `stacks-rank-<R>.txt`. The watcher of `anygpu run` and `anygpu hang-report` share this code.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace anygpu {

struct Beat {
  int rank = 0;
  int local_rank = 0;
  pid_t pid = 0;
  std::string device;  // the PCI bus id the rank drives, or its torch device type ("cpu")
  int signal = 0;      // the signal that makes the rank dump its Python stacks
  uint64_t threshold_s = 0;
  uint64_t count = 0;      // beats so far
  uint64_t seq = 0;        // collectives entered so far
  int64_t time_ns = 0;     // CLOCK_REALTIME of the beat
  std::string event;       // enter | leave | step | backward | mark | exit
  std::string op;          // what the event was about: the collective, "step", a user's mark
  std::string collective;  // the last collective entered ("-": none yet)
};

// One beat line; malformed text is bad_input naming PATH:1:COLUMN and what was expected.
Result<Beat> parse_beat(std::string_view text, const std::string& path);

struct RankBeat {
  Beat beat;
  std::string path;    // the beat file
  std::string stacks;  // stacks-rank-<R>.txt when it exists and is not empty, else ""
};

// Every rank-*.beat of `dir`, by rank. bad_input: `dir` unreadable, a malformed beat, two files
// of one rank. A file being rewritten while read is read again (a beat is one pwrite).
Result<std::vector<RankBeat>> read_beats(const std::string& dir);

struct RankVerdict {
  double age_s = 0;      // since the rank's last beat
  bool stalled = false;  // no beat for threshold seconds and not exited
};

struct HangVerdict {
  bool hang = false;
  std::optional<size_t> first;  // index of the rank that stopped first
  std::string why;              // how `first` was chosen
  uint64_t threshold_s = 0;
  std::vector<RankVerdict> ranks;  // parallel to the beats
};

// A hang: some rank has not beaten for threshold seconds (0: the beats' own threshold_s) and has
// not exited. The first to stop is, in this order: a stalled rank outside any collective (the
// others wait for it inside one), the stalled rank with the fewest collectives entered (the
// others went on to a later one), else the one whose last beat is oldest.
HangVerdict judge_hang(const std::vector<RankBeat>& ranks, int64_t now_ns, uint64_t threshold_s);

}  // namespace anygpu
