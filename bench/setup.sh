#!/usr/bin/env bash
# Creates bench/.venv with the tools neardup is compared against.
set -euo pipefail
cd "$(dirname "$0")"
python3 -m venv .venv
.venv/bin/pip install -q --upgrade pip
.venv/bin/pip install -q -r requirements.txt
