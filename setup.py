"""Build starweaver: a Python package whose runtime core is a Go shared library.

`pip install .` runs build_ext, which
  1. builds the Go c-shared library from ./capi (package main) with
     `go build -buildmode=c-shared -trimpath -ldflags="-s -w"`, straight into
     the package (build/lib*/starweaver/libstarweaver.so, or
     python/starweaver/ for --inplace / editable installs),
  2. removes the C header that go writes next to it (capi/starweaver.h is the
     hand-written ABI), and
  3. generates the cffi out-of-line ABI module starweaver/_cffi.py next to it
     from capi/starweaver.h (see ffi_build.py).
The wheel is tagged py3-none-<platform>: the library does not link libpython.

Needs Go >= 1.26 and a C compiler (cgo) on PATH; static metadata lives in
pyproject.toml.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile

from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, ROOT)  # setuptools.build_meta does not put setup.py's dir on sys.path

import ffi_build  # noqa: E402
from go_build import go_build, library_command  # noqa: E402

GO_MIN = (1, 26)  # go.mod: the official OpenAI Go SDK needs Go 1.26
GO_MISSING = (
    f"starweaver needs Go >= {GO_MIN[0]}.{GO_MIN[1]} on PATH to build its runtime library; see https://go.dev/dl/"
)

# A library built beforehand (`make wheel` cross-compiles one per platform)
# is packed as it is instead of running `go build`; its file name says which
# platform it is for.
PREBUILT = os.environ.get("STARWEAVER_PREBUILT_LIB", "")

if PREBUILT:
    LIBNAME = os.path.basename(PREBUILT)
elif sys.platform == "darwin":
    LIBNAME = "libstarweaver.dylib"
elif sys.platform == "win32":
    LIBNAME = "libstarweaver.dll"
else:
    LIBNAME = "libstarweaver.so"


class BuildError(SystemExit):
    """A build failure with a one-line explanation and no traceback."""

    def __init__(self, message: str) -> None:
        super().__init__("error: " + message)


class GoExtension(Extension):
    """A stand-in extension (no C sources) so the distribution has ext modules.

    That makes the wheel platform-specific and routes the Go build through
    build_ext, which also handles --inplace and editable installs.
    """

    def __init__(self, name: str, package: str) -> None:
        super().__init__(name, sources=[])
        self.go_package = package


def find_go(env: dict[str, str]) -> str:
    go = os.environ.get("GO") or shutil.which("go")
    if not go or not (shutil.which(go) or os.path.isfile(go)):
        raise BuildError(GO_MISSING)
    try:
        out = subprocess.run([go, "version"], check=True, capture_output=True, text=True, env=env).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        raise BuildError(f"{GO_MISSING} (running `{go} version` failed: {exc})") from exc
    m = re.search(r"\bgo(\d+)\.(\d+)", out)
    if m and (int(m.group(1)), int(m.group(2))) < GO_MIN:
        raise BuildError(f"{GO_MISSING} (found: {out.strip()})")
    return go


def go_env() -> dict[str, str]:
    env = dict(os.environ, CGO_ENABLED="1")
    home = env.get("HOME")
    if not (home and os.path.isdir(home) and os.access(home, os.W_OK)):
        # Go derives its build cache and module cache from HOME; a build may
        # run with HOME unset, or pointing at a missing or read-only directory
        # (CI users, containers, sudo). Fall back to a temp directory.
        base = os.path.join(tempfile.gettempdir(), "starweaver-go")
        if not env.get("GOCACHE") and not env.get("XDG_CACHE_HOME"):
            env["GOCACHE"] = os.path.join(base, "cache")
        if not env.get("GOPATH") and not env.get("GOMODCACHE"):
            env["GOPATH"] = os.path.join(base, "path")
    return env


BUILDING_MESSAGE = (
    "starweaver: building the Go runtime library (go build ./capi); "
    "a first build takes minutes, with a line every 30 seconds..."
)


def announce_go_build(message: str = BUILDING_MESSAGE) -> None:
    """Say that the long Go build starts, where the person installing sees it.

    pip runs this build in a subprocess and shows its stdout and stderr only
    with -v or when the build fails, so a line on stderr alone would leave
    `pip install .` silent for the whole Go build. When stderr is not a
    terminal (captured), the line also goes to the controlling terminal,
    if there is one; without one (CI, a service) stderr is all there is.
    """
    print(message, file=sys.stderr, flush=True)
    if sys.stderr.isatty():
        return
    try:
        with open("/dev/tty", "w") as tty:
            tty.write("\n" + message + "\n")  # own line, past any spinner
    except OSError:
        pass  # no controlling terminal


class build_go_ext(build_ext):
    def get_ext_filename(self, fullname: str) -> str:
        # starweaver/libstarweaver.so, not starweaver/libstarweaver.cpython-311-*.so
        return os.path.join(*fullname.split(".")[:-1], LIBNAME)

    def build_extension(self, ext: Extension) -> None:
        if not isinstance(ext, GoExtension):
            return super().build_extension(ext)
        out = os.path.abspath(self.get_ext_fullpath(ext.name))
        os.makedirs(os.path.dirname(out), exist_ok=True)
        if PREBUILT:
            if not os.path.isfile(PREBUILT):
                raise BuildError(f"STARWEAVER_PREBUILT_LIB names no file: {PREBUILT}")
            shutil.copyfile(PREBUILT, out)
            print(f"packing the prebuilt library {PREBUILT}", flush=True)
        else:
            self._go_build(ext, out)
        cffi_py = os.path.join(os.path.dirname(out), "_cffi.py")
        ffi_build.generate(cffi_py)
        print(f"generated cffi module {cffi_py}", flush=True)

    def _go_build(self, ext: GoExtension, out: str) -> None:
        env = go_env()
        go = find_go(env)
        cmd = library_command(go, out, ext.go_package)
        announce_go_build()
        print("running:", " ".join(cmd), f"(in {ROOT})", flush=True)
        try:
            status = go_build(
                cmd,
                cwd=ROOT,
                env=env,
                report=lambda line: announce_go_build("starweaver: " + line),
                echo=lambda line: print(line, file=sys.stderr, flush=True),
            )
        except FileNotFoundError:
            raise BuildError(GO_MISSING) from None
        if status != 0:
            raise BuildError(
                f"`go build` of the starweaver runtime library failed (exit {status}); "
                "see the Go errors above. It needs Go >= %d.%d and a C compiler (cgo)." % GO_MIN
            )
        header = os.path.splitext(out)[0] + ".h"
        if os.path.exists(header):
            os.remove(header)  # capi/starweaver.h is the hand-written ABI

    # setuptools builds into build_lib even with --inplace / editable installs
    # and then copies the library into python/starweaver/; the generated cffi
    # module has to follow it, and be reported as an output.

    def _cffi_files(self) -> list[tuple[str, str]]:
        """(file in build_lib, file in the source package) for each _cffi.py."""
        build_py = self.get_finalized_command("build_py")
        pairs = []
        for ext in self.extensions:
            if isinstance(ext, GoExtension):
                inplace_lib, regular_lib = self._get_inplace_equivalent(build_py, ext)
                pairs.append(
                    (
                        os.path.join(os.path.dirname(regular_lib), "_cffi.py"),
                        os.path.join(os.path.dirname(inplace_lib), "_cffi.py"),
                    )
                )
        return pairs

    def copy_extensions_to_source(self) -> None:
        super().copy_extensions_to_source()
        for regular, inplace in self._cffi_files():
            self.copy_file(regular, inplace, level=self.verbose)

    def get_output_mapping(self) -> dict[str, str]:
        mapping = dict(super().get_output_mapping())
        if self.inplace:
            mapping.update(self._cffi_files())
        return mapping

    def get_outputs(self) -> list[str]:
        if self.inplace:
            return list(self.get_output_mapping().keys())
        return sorted(set(super().get_outputs()) | {r for r, _ in self._cffi_files()})


cmdclass = {"build_ext": build_go_ext}

try:
    from setuptools.command.bdist_wheel import bdist_wheel  # setuptools >= 70.1
except ImportError:  # pragma: no cover - older setuptools with the wheel package
    try:
        from wheel.bdist_wheel import bdist_wheel
    except ImportError:
        bdist_wheel = None

if bdist_wheel is not None:

    class bdist_wheel_go(bdist_wheel):
        def finalize_options(self) -> None:
            super().finalize_options()
            self.root_is_pure = False

        def get_tag(self) -> tuple[str, str, str]:
            # The Go library does not link libpython and _cffi.py is pure
            # Python: any Python 3 on this platform can use the wheel.
            return ("py3", "none", super().get_tag()[2])

    cmdclass["bdist_wheel"] = bdist_wheel_go


packages = sorted(set(["starweaver"] + find_packages("python", include=["starweaver", "starweaver.*"])))

setup(
    package_dir={"": "python"},
    packages=packages,
    package_data={"starweaver": ["py.typed", "*.pyi"]},
    exclude_package_data={"starweaver": ["_cffi.py", "libstarweaver.*"]},
    ext_modules=[GoExtension("starweaver.libstarweaver", "./capi")],
    cmdclass=cmdclass,
)
