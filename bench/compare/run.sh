#!/bin/sh
# Runs the framework comparison (see run.py): creates /tmp/venv-pydantic-ai and
# /tmp/venv-starweaver-rs when missing, then prints one table.
exec "${PYTHON:-python3}" "$(dirname "$0")/run.py" "$@"
