#!/usr/bin/python3
"""Writes the man pages and the bash, zsh and fish completions from `anygpu --help-dump`.

The dump is the CLI's own command table (CLI11's tree of commands and options), so a command
added to src/cli appears in every page and completion on the next build; nothing here names one.

usage: cli_docs.py ANYGPU_BINARY OUT_DIR
  OUT_DIR/man/anygpu.1.gz, OUT_DIR/man/anygpu-COMMAND.1.gz (one per top-level command),
  OUT_DIR/completions/anygpu.bash, OUT_DIR/completions/_anygpu, OUT_DIR/completions/anygpu.fish
"""

import gzip
import io
import json
import os
import subprocess
import sys

SCHEMA = "anygpu.cli/v1"
EXIT_STATUS = [
    ("0", "success"),
    ("1", "a check failed (contract violated, doctor found errors)"),
    ("2", "bad usage or bad input file (the message names file:line:column)"),
    ("3", "the host lacks what was required (e.g. --require-gpu and none found)"),
    ("125, 126, 127", "anygpu run: its own failure, command not executable, command not found; "
     "otherwise run exits with the command's status"),
]
ENVIRONMENT = [
    ("ANYGPU_ROOT", "read the host beneath this directory (as --root)"),
    ("ANYGPU_NO_LIBS", "1: never load vendor libraries (as --no-libs)"),
    ("ANYGPU_LIB_TIMEOUT_MS", "deadline for vendor library calls (as --lib-timeout)"),
    ("ANYGPU_LOG", "debug: diagnostics on stderr (as --verbose)"),
    ("NO_COLOR", "set: no colour in human output"),
]
DOC_DIR = "/usr/share/doc/anygpu"
# Value names that complete as paths.
DIR_VALUES = {"DIR"}
FILE_VALUES = {"FILE", "PATH", "SPEC", "CONFIG"}


def load(binary):
    dump = subprocess.run([binary, "--help-dump"], capture_output=True, text=True)
    if dump.returncode != 0:
        sys.exit(f"{binary} --help-dump: exit {dump.returncode}: {dump.stderr}")
    doc = json.loads(dump.stdout)
    if doc.get("schema") != SCHEMA:
        sys.exit(f"{binary} --help-dump: schema {doc.get('schema')!r}, expected {SCHEMA}")
    return doc


def visible_options(app):
    """Options a user types (the help flag is documented once, on every page alike)."""
    return [o for o in app["options"] if "names" in o or "positional" in o]


# ---- man pages --------------------------------------------------------------------------


def roff(text):
    """Escapes running text: backslashes, and a leading . or ' that roff reads as a request."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    lines = []
    for line in text.split("\n"):
        if line.startswith((".", "'")):
            line = "\\&" + line
        lines.append(line)
    return "\n".join(lines)


def option_synopsis(o):
    if "positional" in o:
        name = o["positional"].upper()
        return f"[\\fI{roff(name)}\\fR{' ...' if o.get('repeatable') else ''}]"
    head = "\\fB" + roff(o["names"][-1]) + "\\fR"
    if "value" in o:
        head += " \\fI" + roff(o["value"]["name"]) + "\\fR"
    return f"[{head}]"


def option_items(options):
    out = []
    for o in options:
        if "positional" in o:
            tag = "\\fI" + roff(o["positional"].upper()) + "\\fR"
        else:
            tag = ", ".join("\\fB" + roff(n) + "\\fR" for n in o["names"])
            if "value" in o:
                tag += " \\fI" + roff(o["value"]["name"]) + "\\fR"
        text = o["help"] or ""
        choices = o.get("value", {}).get("choices")
        if choices:
            text += (". " if text else "") + "One of: " + ", ".join(choices)
        out += [".TP", tag, roff(text)]
    return out


def page_header(title, version):
    # No date: the pages are reproducible, byte for byte, from the same command table.
    return [f'.TH {title} 1 "" "anygpu {roff(version)}" "anygpu manual"']


def command_sections(app, path):
    """SYNOPSIS-free body of one command and, depth first, its subcommands."""
    out = []
    options = visible_options(app)
    if options:
        out += [".SH OPTIONS" if len(path) == 1 else f'.SS "Options of {" ".join(path)}"']
        out += option_items(options)
    for sub in app["commands"]:
        sub_path = path + [sub["name"]]
        out += [f'.SH "{roff(" ".join(sub_path).upper())}"', roff(sub["description"]) + "."]
        out += [".PP", synopsis_line(sub, sub_path)]
        out += command_sections(sub, sub_path)
    return out


def synopsis_line(app, path):
    words = ["\\fBanygpu\\fR", "[\\fIGLOBAL OPTIONS\\fR]"]
    words += ["\\fB" + roff(p) + "\\fR" for p in path]
    words += [option_synopsis(o) for o in visible_options(app) if "positional" not in o]
    if app["commands"]:
        words.append("\\fICOMMAND\\fR")
    words += [option_synopsis(o) for o in visible_options(app) if "positional" in o]
    return " ".join(words)


def command_page(app, version):
    name = app["name"]
    out = page_header(f"ANYGPU\\-{roff(name.upper())}", version)
    out += [".SH NAME", f"anygpu\\-{roff(name)} \\- {roff(app['description'])}"]
    out += [".SH SYNOPSIS", synopsis_line(app, [name])]
    out += [".SH DESCRIPTION", roff(app["description"][:1].upper() + app["description"][1:]) + "."]
    if app["commands"]:
        out += [".PP", "Commands:"]
        for sub in app["commands"]:
            out += [".TP", f"\\fB{roff(sub['name'])}\\fR", roff(sub["description"])]
    out += [".PP", "The global options of", ".BR anygpu (1)",
            "are accepted before or after the command name."]
    out += command_sections(app, [name])
    out += [".SH EXIT STATUS", "As described in", ".BR anygpu (1)."]
    out += [".SH SEE ALSO", ".BR anygpu (1),", f".I {DOC_DIR}/{roff(name)}.md",
            "where installed."]
    return "\n".join(out) + "\n"


def main_page(doc, version):
    out = page_header("ANYGPU", version)
    out += [".SH NAME", f"anygpu \\- {roff(doc['description'].split(': ', 1)[-1])}"]
    out += [".SH SYNOPSIS", "\\fBanygpu\\fR [\\fIGLOBAL OPTIONS\\fR] \\fICOMMAND\\fR "
            "[\\fIOPTIONS\\fR] [\\fIARGS\\fR]"]
    out += [".SH DESCRIPTION",
            "anygpu discovers every accelerator of every vendor from kernel interfaces first and "
            "vendor management libraries second, checks an experiment's runtime contract, "
            "selects devices by policy, launches experiments natively, in containers, under "
            "torchrun, Slurm or Kubernetes, and monitors and diagnoses hosts.",
            ".SH COMMANDS"]
    for sub in doc["commands"]:
        out += [".TP", f"\\fB{roff(sub['name'])}\\fR", roff(sub["description"]) + ". See",
                f".BR anygpu\\-{roff(sub['name'])} (1)."]
    out += [".SH GLOBAL OPTIONS"] + option_items(visible_options(doc))
    out += [".SH EXIT STATUS"]
    for code, meaning in EXIT_STATUS:
        out += [".TP", f"\\fB{code}\\fR", roff(meaning)]
    out += [".SH ENVIRONMENT"]
    for var, meaning in ENVIRONMENT:
        out += [".TP", f"\\fB{var}\\fR", roff(meaning)]
    refs = [f".BR anygpu\\-{roff(s['name'])} (1)" for s in doc["commands"]]
    out += [".SH SEE ALSO"] + [r + "," for r in refs[:-1]] + refs[-1:]
    out += [".PP", f"The user guide: \\fI{DOC_DIR}/\\fR (README.md and one file per command)."]
    return "\n".join(out) + "\n"


def write_gz(path, text):
    # gzip -n: no name, no time stamp, so the same table gives the same bytes.
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, compresslevel=9, mtime=0) as g:
        g.write(text.encode())
    write(path, buf.getvalue())


def write(path, data):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    os.replace(tmp, path)


# ---- completions: one table of paths, read by bash and zsh alike -------------------------


def walk(app, path=()):
    """(path, app) for the root and every command beneath it, depth first."""
    yield path, app
    for sub in app["commands"]:
        yield from walk(sub, path + (sub["name"],))


def value_kind(o):
    v = o["value"]
    if v.get("choices"):
        return " ".join(v["choices"])
    if v["name"] in DIR_VALUES:
        return "__dirs__"
    if v["name"] in FILE_VALUES:
        return "__files__"
    return ""


def shell_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


def candidates_function(doc):
    """A function valid in both bash and zsh: prints what may follow the words given."""
    global_opts = [o for o in visible_options(doc) if "names" in o]
    lines = ["_anygpu_candidates() {",
             "  # usage: _anygpu_candidates WORD… (the words after `anygpu`, before the cursor)",
             '  local cmdpath="" pending="" w',
             '  for w in "$@"; do',
             '    if [[ -n $pending ]]; then pending=""; continue; fi',
             '    case "$cmdpath|$w" in']
    for path, app in walk(doc):
        opts = [o for o in visible_options(app) if "value" in o]
        if path:  # the global options are accepted after every command too
            opts += [o for o in global_opts if "value" in o]
        names = [n for o in opts for n in o["names"]]
        if names:
            pattern = "|".join(shell_quote(" ".join(path) + "|" + n) for n in names)
            lines.append(f'      {pattern}) pending="$w"; continue ;;')
        for sub in app["commands"]:
            key = shell_quote(" ".join(path) + "|" + sub["name"])
            lines.append(f'      {key}) cmdpath={shell_quote(" ".join(path + (sub["name"],)))} ;;')
    lines += ["    esac", "  done", '  if [[ -n $pending ]]; then', '    case "$pending" in']
    kinds = {}
    for _, app in walk(doc):
        for o in visible_options(app):
            if "value" in o:
                for n in o["names"]:
                    kinds.setdefault(value_kind(o), set()).add(n)
    for kind, names in sorted(kinds.items()):
        pattern = "|".join(shell_quote(n) for n in sorted(names))
        lines.append(f"      {pattern}) echo {shell_quote(kind)} ;;" if kind else
                     f"      {pattern}) ;;")
    lines += ["    esac", "    return", "  fi", '  case "$cmdpath" in']
    for path, app in walk(doc):
        words = [n for o in visible_options(app) if "names" in o for n in o["names"]]
        if path:
            words += [n for o in global_opts for n in o["names"]]
        words += [s["name"] for s in app["commands"]]
        words = list(dict.fromkeys(words))  # the command's own -h, --help and the global ones
        if any("positional" in o for o in visible_options(app)):
            words.append("__files__")
        lines.append(f"    {shell_quote(' '.join(path))}) echo {shell_quote(' '.join(words))} ;;")
    lines += ["  esac", "}"]
    return "\n".join(lines) + "\n"


def bash_completion(doc):
    return ("# bash completion for anygpu, generated from its command table (tools/cli_docs.py).\n"
            + candidates_function(doc) + """
_anygpu() {
  local cur=${COMP_WORDS[COMP_CWORD]} words w
  words=$(_anygpu_candidates "${COMP_WORDS[@]:1:COMP_CWORD-1}")
  COMPREPLY=()
  for w in $words; do
    case "$w" in
      __files__) COMPREPLY+=($(compgen -f -- "$cur")) ;;
      __dirs__) COMPREPLY+=($(compgen -d -- "$cur")) ;;
      *) [[ $w == "$cur"* ]] && COMPREPLY+=("$w") ;;
    esac
  done
}
complete -o filenames -F _anygpu anygpu
""")


def zsh_completion(doc):
    return ("#compdef anygpu\n"
            "# zsh completion for anygpu, generated from its command table (tools/cli_docs.py).\n"
            + candidates_function(doc) + """
_anygpu() {
  local -a found
  local w
  for w in ${=$(_anygpu_candidates "${(@)words[2,CURRENT-1]}")}; do
    case "$w" in
      __files__) _files ;;
      __dirs__) _files -/ ;;
      *) found+=("$w") ;;
    esac
  done
  (( ${#found} )) && compadd -a found
  return 0
}

# Autoloaded from $fpath, the file is the function's body: complete now. Sourced: register.
if [[ ${zsh_eval_context[-1]} == loadautofunc ]]; then
  _anygpu "$@"
else
  if (( $+functions[compdef] )); then compdef _anygpu anygpu; fi
fi
""")


def fish_escape(s):
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


def fish_completion(doc):
    out = ["# fish completion for anygpu, generated from its command table (tools/cli_docs.py).",
           "complete -c anygpu -f"]
    for path, app in walk(doc):
        if not path:
            cond = "__fish_use_subcommand"
        else:
            # Inside PATH: every word of it seen, none of its subcommands yet.
            cond = "; and ".join(f"__fish_seen_subcommand_from {p}" for p in path)
            if app["commands"]:
                names = " ".join(s["name"] for s in app["commands"])
                cond += f"; and not __fish_seen_subcommand_from {names}"
        for sub in app["commands"]:
            out.append(f"complete -c anygpu -n {fish_escape(cond)} -a {sub['name']} "
                       f"-d {fish_escape(sub['description'])}")
        for o in visible_options(app):
            if "names" not in o:
                out.append(f"complete -c anygpu -n {fish_escape(cond)} -F")
                continue
            args = []
            for n in o["names"]:
                args.append(f"-l {n[2:]}" if n.startswith("--") else f"-s {n[1:]}")
            if "value" in o:
                kind = value_kind(o)
                if kind == "__dirs__":
                    args.append("-r -a '(__fish_complete_directories)'")
                elif kind == "__files__":
                    args.append("-r -F")
                elif kind:
                    args.append(f"-x -a {fish_escape(kind)}")
                else:
                    args.append("-x")
            scope = "" if not path else f"-n {fish_escape(cond.split('; and not')[0])} "
            out.append(f"complete -c anygpu {scope}{' '.join(args)} -d {fish_escape(o['help'])}")
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    doc = load(sys.argv[1])
    out = sys.argv[2]
    version = doc["version"].removeprefix("anygpu ")
    man = os.path.join(out, "man")
    comp = os.path.join(out, "completions")
    os.makedirs(man, exist_ok=True)
    os.makedirs(comp, exist_ok=True)
    pages = {"anygpu.1.gz": main_page(doc, version)}
    for sub in doc["commands"]:
        pages[f"anygpu-{sub['name']}.1.gz"] = command_page(sub, version)
    for stale in set(os.listdir(man)) - set(pages):  # a command removed from the table
        os.remove(os.path.join(man, stale))
    for name, text in pages.items():
        write_gz(os.path.join(man, name), text)
    write(os.path.join(comp, "anygpu.bash"), bash_completion(doc))
    write(os.path.join(comp, "_anygpu"), zsh_completion(doc))
    write(os.path.join(comp, "anygpu.fish"), fish_completion(doc))


if __name__ == "__main__":
    main()
