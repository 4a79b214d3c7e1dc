#!/usr/bin/env bash
# Times the filesystem bundle's grep and glob search against ripgrep over
# the same generated tree of 50 000 files, in one run, and prints the
# ratios (ours / rg; lower is better). The tree is generated once under
# $STARWEAVER_BENCH_TREE (default /tmp/starweaver-fs-bench-50k) and reused.
# Needs rg (Debian's ripgrep).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v rg >/dev/null 2>&1 || { echo "fs_vs_rg: rg not found (apt-get install ripgrep)" >&2; exit 1; }
export STARWEAVER_BENCH_TREE="${STARWEAVER_BENCH_TREE:-/tmp/starweaver-fs-bench-50k}"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo n/a); $(rg --version | sed -n 1p)"
STARWEAVER_BENCH_RG=1 go test -count=1 -run '^TestGrepVersusRipgrep$' -v ./core/bundles/filesystem/ \
    | grep -E 'tree:|ours|RATIO|FAIL|ok'
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo n/a)"
