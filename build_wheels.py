"""Build starweaver's binary wheels on one Linux machine: `make wheel`.

    python build_wheels.py [--out DIR] [TARGET ...]    (default: every target)

For each target the Go runtime library is cross-compiled with `zig cc` (the
`ziglang` package from PyPI) as cgo's C compiler: zig ships glibc's stubs for
every architecture, so one machine builds every Linux wheel, and the
libraries link against glibc 2.17, which makes them manylinux2014 wheels that
install on every glibc Linux distribution of the last ten years. setup.py then packs the
prebuilt library (STARWEAVER_PREBUILT_LIB) with the Python package, and the
wheel is tagged for its platform: Linux wheels by `auditwheel repair`, which
also checks that the library needs nothing beyond what the tag allows.

Needs Go, `pip install ziglang auditwheel wheel` (the script says so when one
is missing). Prints a line per step, so a long build is never silent.
"""

from __future__ import annotations

import argparse
import glob
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass

from go_build import go_build, library_command

ROOT = os.path.dirname(os.path.abspath(__file__))


@dataclass(frozen=True)
class Target:
    goos: str
    goarch: str
    zig: str  # zig's target triple, with the lowest OS version supported
    libname: str
    platform: str  # the wheel's platform tag


# glibc 2.17 is manylinux2014's. macOS is not here: Go's runtime links the
# CoreFoundation and Security frameworks, which only Apple's SDK provides
# (zig ships libSystem alone), so macOS wheels must be built on a Mac.
TARGETS = {
    "linux-x86_64": Target("linux", "amd64", "x86_64-linux-gnu.2.17", "libstarweaver.so", "manylinux_2_17_x86_64"),
    "linux-aarch64": Target("linux", "arm64", "aarch64-linux-gnu.2.17", "libstarweaver.so", "manylinux_2_17_aarch64"),
}


def say(message: str) -> None:
    print(f"wheel: {message}", flush=True)


def run(cmd: list[str], **kwargs: object) -> None:
    say("running: " + " ".join(cmd))
    subprocess.run(cmd, check=True, cwd=ROOT, **kwargs)  # type: ignore[call-overload]


def need(module: str, package: str) -> None:
    probe = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True)
    if probe.returncode != 0:
        sys.exit(f"wheel: error: {package} is missing: {sys.executable} -m pip install {package}")


def build_library(t: Target, work: str) -> str:
    """Cross-compiles the Go library for t into work/ and returns its path."""
    go = os.environ.get("GO") or shutil.which("go")
    if not go:
        sys.exit("wheel: error: go not found on PATH (starweaver needs Go >= 1.26)")
    out = os.path.join(work, t.libname)
    zig = f"{sys.executable} -m ziglang"
    env = dict(
        os.environ,
        CGO_ENABLED="1",
        GOOS=t.goos,
        GOARCH=t.goarch,
        # Go splits CC on spaces: the compiler and its target travel together.
        CC=f"{zig} cc -target {t.zig}",
        CXX=f"{zig} c++ -target {t.zig}",
    )
    if t.goarch == "amd64":
        env["GOAMD64"] = "v1"  # every x86-64 processor, as the wheel tag promises
    cmd = library_command(go, out, "./capi", ldflags="-s -w -extldflags=-Wl,--strip-all")
    say(f"compiling the Go runtime library for {t.goos}/{t.goarch} with zig cc -target {t.zig}")
    start = time.monotonic()
    lines: list[str] = []
    status = go_build(cmd, cwd=ROOT, env=env, report=say, echo=lines.append)
    if status != 0:
        print("\n".join(lines[-200:]), file=sys.stderr)
        sys.exit(f"wheel: error: go build for {t.goos}/{t.goarch} failed (exit {status}); see the errors above")
    header = os.path.splitext(out)[0] + ".h"
    if os.path.exists(header):
        os.remove(header)  # capi/starweaver.h is the hand-written ABI
    say(f"built {out} ({os.path.getsize(out) / 2**20:.1f} MiB) in {time.monotonic() - start:.0f} s")
    return out


def pack(t: Target, library: str, work: str) -> str:
    """Packs library with the Python package; returns the wheel's path."""
    raw = os.path.join(work, "raw")
    shutil.rmtree(raw, ignore_errors=True)
    # setuptools builds in build/: a previous target's library must not ride along.
    for stale in glob.glob(os.path.join(ROOT, "build", "lib*")) + glob.glob(os.path.join(ROOT, "build", "bdist*")):
        shutil.rmtree(stale, ignore_errors=True)
    env = dict(os.environ, STARWEAVER_PREBUILT_LIB=library)
    run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet", "-w", raw, "."],
        env=env,
    )
    (wheel,) = glob.glob(os.path.join(raw, "starweaver-*.whl"))
    return wheel


def wheel_named(directory: str) -> str:
    (found,) = glob.glob(os.path.join(directory, "*.whl"))
    return found


def retag(wheel: str, platform: str) -> str:
    """Replaces wheel's platform tag in place; returns the new file."""
    run([sys.executable, "-m", "wheel", "tags", "--remove", "--platform-tag", platform, wheel])
    return wheel_named(os.path.dirname(wheel))


# manylinux tag aliases that name no glibc version (PEP 600).
LEGACY_GLIBC = {"manylinux1": (2, 5), "manylinux2010": (2, 12), "manylinux2014": (2, 17)}


def glibc_of(platform_tag: str) -> tuple[int, int]:
    """The glibc version a manylinux platform tag promises."""
    parts = platform_tag.split("_")
    if parts[0] in LEGACY_GLIBC:
        return LEGACY_GLIBC[parts[0]]
    return int(parts[1]), int(parts[2])


def tag(t: Target, wheel: str, out: str) -> str:
    """Tags wheel for t's platform into out/ and returns the result.
    auditwheel checks the library's symbol versions and needed libraries
    against the tag's policy, and fails when they exceed it."""
    # pip tags the wheel for the machine that packed it; auditwheel reads the
    # architecture from that tag and offers a named --plat for the host's
    # architecture only: retag first, then let it find the lowest policy the
    # library satisfies (x86_64 gets manylinux1: the symbols are that old).
    # The wheel promises the target's tag, not lower: Go's runtime needs
    # Linux >= 3.2, which manylinux2014's systems have and manylinux1's lack.
    arch = t.platform.split("_", 3)[-1]
    retag(wheel, f"linux_{arch}")
    repaired = os.path.join(os.path.dirname(wheel), "repaired")
    shutil.rmtree(repaired, ignore_errors=True)
    run(["auditwheel", "repair", "--plat", "auto", "-w", repaired, wheel_named(os.path.dirname(wheel))])
    found = wheel_named(repaired)
    lowest = min(glibc_of(tag) for tag in os.path.basename(found)[: -len(".whl")].split("-")[-1].split("."))
    if lowest > glibc_of(t.platform):
        sys.exit(f"wheel: error: {os.path.basename(found)}: the library needs glibc {lowest}, above {t.platform}'s")
    result = retag(found, f"{t.platform}.manylinux2014_{arch}")
    final = os.path.join(out, os.path.basename(result))
    os.makedirs(out, exist_ok=True)
    shutil.move(result, final)
    return final


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=os.environ.get("WHEEL_DIR") or os.path.join(ROOT, "dist"))
    parser.add_argument("targets", nargs="*", choices=[[], *TARGETS], help="default: " + " ".join(TARGETS))
    args = parser.parse_args()
    need("ziglang", "ziglang")
    if shutil.which("auditwheel") is None:
        sys.exit(f"wheel: error: auditwheel is missing: {sys.executable} -m pip install auditwheel")
    out = os.path.abspath(args.out)
    built = []
    for name in args.targets or list(TARGETS):
        t = TARGETS[name]
        work = os.path.join(ROOT, "build", "wheels", name)
        os.makedirs(work, exist_ok=True)
        library = build_library(t, work)
        wheel = tag(t, pack(t, library, work), out)
        say(f"{name}: {wheel} ({os.path.getsize(wheel) / 2**20:.1f} MiB)")
        built.append(wheel)
    say(f"built {len(built)} wheel(s) into {out}")


if __name__ == "__main__":
    main()
