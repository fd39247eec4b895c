// `anygpu --help-dump`: the command tree as one JSON document, read at build time by
// tools/cli_docs.py to write the man pages and shell completions, so both follow the table.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>

namespace anygpu::cli {

// Not shown by --help: the flag is for the build, not for users.
inline constexpr std::string_view kHelpDumpFlag = "--help-dump";

// {"schema":"anygpu.cli/v1","name","description","version","options":[…],"commands":[…]}
std::string describe_cli(const CLI::App& app, std::string_view version);

}  // namespace anygpu::cli
