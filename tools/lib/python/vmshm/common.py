# SPDX-License-Identifier: GPL-2.0
"""What every module needs: where things are, how errors and output look,
and how outside commands are run."""

import datetime
import hashlib
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path


class Error(Exception):
    """A user-facing error: printed without a traceback."""


@dataclass(frozen=True)
class Layout:
    """Where the project's inputs are and where its outputs go.

    One value passed to the functions that read or write them, so a test
    points them at a scratch directory instead of patching globals."""
    repo: Path
    build: Path

    @classmethod
    def default(cls):
        """This checkout; build/ or $VMSHM_BUILD (export-series prepares
        its tree apart from build/src with it)."""
        repo = Path(__file__).resolve().parents[4]
        return cls(repo, Path(os.environ.get('VMSHM_BUILD', repo / 'build')))

    @property
    def patches(self):
        return self.repo / 'patches'

    @property
    def configs(self):
        return self.repo / 'configs'

    @property
    def testdir(self):
        return self.repo / 'tools' / 'testing' / 'vm-shm'

    @property
    def results(self):
        return self.repo / 'results'


LAYOUT = Layout.default()


def log(msg):
    print(msg, flush=True)


def rel(path, repo=LAYOUT.repo):
    """A path for output and results: relative to the repo if inside it."""
    path = Path(path).resolve()
    try:
        return str(path.relative_to(repo))
    except ValueError:
        return str(path)


def utcnow():
    return datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)


def find_tool(name):
    """shutil.which, also looking in sbin dirs (not in a user's PATH)."""
    path = os.environ.get('PATH', '') + ':/usr/sbin:/sbin'
    found = shutil.which(name, path=path)
    if not found:
        raise Error(f'{name} not found (tools/deps installs what the project needs)')
    return found


def sh(cmd, **kw):
    """Run a command, raising Error (with its captured output) if it fails."""
    r = subprocess.run(cmd, **kw)
    if r.returncode != 0:
        out = r.stderr or r.stdout or ''
        if isinstance(out, bytes):
            out = out.decode(errors='replace')
        raise Error(f'command failed ({r.returncode}): {" ".join(map(str, cmd))}\n{out.strip()}')
    return r


def file_sha256(path):
    h = hashlib.sha256()
    with open(path, 'rb') as f:
        for block in iter(lambda: f.read(1 << 20), b''):
            h.update(block)
    return h.hexdigest()
