#!/bin/bash
# Runs its arguments under the current-torch venv's python (tools/torch_venv.sh); fails, naming
# the command that makes it, where the venv is missing: the second torch is never skipped.
set -eu
python=$("$(dirname "$0")/../../tools/torch_venv.sh" --path)
exec "$python" "$@"
