"""setup.py: finds libclsort for the clsort package, or builds it.

`pip install ./python` (from the repository) looks for the library, in this
order: CLSORT_LIBRARY (a path to libclsort.so), then an installed copy that
pkg-config finds (PKG_CONFIG_PATH as usual). Without either it builds the
library from the repository around this folder with meson (library only,
no tool, no tests) and puts the shared object into the package. Where it
found the library is written into clsort/_config.py; clsort/_ffi.py loads
it from there at import time (CLSORT_LIBRARY still overrides).
"""
import os
import shutil
import subprocess
import tempfile

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
SONAME = "libclsort.so.0"


def installed_library():
    env = os.environ.get("CLSORT_LIBRARY")
    if env:
        return os.path.abspath(env)
    try:
        libdir = subprocess.run(["pkg-config", "--variable=libdir", "libclsort"], check=True,
                                capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    path = os.path.join(libdir, SONAME)
    return path if os.path.exists(path) else None


def build_library(dest):
    """Builds libclsort from the enclosing repository into dest/SONAME."""
    source = os.environ.get("CLSORT_SOURCE_DIR", os.path.dirname(HERE))
    if not os.path.exists(os.path.join(source, "include", "clsort.h")):
        raise RuntimeError("clsort: no installed libclsort (pkg-config libclsort, or "
                           "CLSORT_LIBRARY) and no libclsort source at %s to build one "
                           "(CLSORT_SOURCE_DIR)" % source)
    with tempfile.TemporaryDirectory(prefix="clsort-build-") as build:
        subprocess.run(["meson", "setup", build, source, "-Dbench=false", "-Dtests=disabled",
                        "-Dmpi=disabled",
                        "-Dbuildtype=release"], check=True)
        subprocess.run(["ninja", "-C", build], check=True)
        shutil.copy(os.path.join(build, "src", SONAME), os.path.join(dest, SONAME))


class BuildPy(build_py):
    def run(self):
        super().run()
        package = os.path.join(self.build_lib, "clsort")
        found = installed_library()
        # An in-tree build dir may hold the copy an earlier install built.
        bundled = os.path.join(package, SONAME)
        if os.path.exists(bundled):
            os.remove(bundled)
        if found is None:
            build_library(package)
            self.announce("clsort: built libclsort into the package", level=2)
        with open(os.path.join(package, "_config.py"), "w") as f:
            f.write('"""Written by setup.py: the libclsort this package was installed for '
                    '(None: the copy inside the package)."""\n')
            f.write("LIBRARY = %r\n" % found)


setup(cmdclass={"build_py": BuildPy}, package_data={"clsort": [SONAME]})
