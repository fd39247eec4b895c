// /etc/group, read for the numeric ids of the groups that own GPU device nodes (video, render):
// `--group-add` must carry the host's numbers, because the image's /etc/group may differ.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace anygpu {

// gid of each wanted group name found in `text` (name:password:gid:members lines). Comments and
// blank lines are skipped; a malformed line is bad_input naming `file`:line.
Result<std::map<std::string, int>> parse_group_ids(std::string_view text, const std::string& file,
                                                   const std::vector<std::string>& wanted);

}  // namespace anygpu
