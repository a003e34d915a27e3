# SPDX-License-Identifier: GPL-2.0
"""The enterprise branch as the series branches stacked (tools/stack-series).

The series are kept as git branches of a kernel repository, each on the
same base (2.6.3 + the toolchain part): fixes, objrmap, reclaim, shmem.
The enterprise branch is those branches' commits picked in that order
onto the base, then its own tail: the commits that are in no series (the
documentation of the whole stack, MAINTAINERS, EXTRAVERSION, the
testcases).  The tail is read from the enterprise branch as it stands:
its commits after the base whose subjects no series branch has, which
must come last.  So when a series branch changes, a rerun restacks the
enterprise branch on it and keeps its tail.

A pick that does not apply cleanly stops the run with the branch left as
it was; nothing is resolved by hand here.
"""

import tempfile
from pathlib import Path

from . import testcases_patch
from .common import Error, log
from .tree import git


def commits(repo, base, branch):
    """The commits of branch after base, oldest first."""
    out = git(repo, 'rev-list', '--reverse', '--topo-order', f'{base}..{branch}')
    return out.split() if out else []


def subject(repo, rev):
    return git(repo, 'log', '-1', '--format=%s', rev)


def committer(repo, rev):
    """rev's committer, so that picking the same commits onto the same
    parents gives the same commits: a rerun with nothing changed leaves
    the branch where it was."""
    name, email, date = git(repo, 'log', '-1', '--format=%cn%x00%ce%x00%cI', rev).split('\0')
    return {'GIT_COMMITTER_NAME': name, 'GIT_COMMITTER_EMAIL': email,
            'GIT_COMMITTER_DATE': date}


def tail(repo, base, branch, series_branches):
    """The commits of branch after base that are in none of the series
    branches (by subject); they must be its last commits."""
    known = {subject(repo, c) for b in series_branches for c in commits(repo, base, b)}
    mine = commits(repo, base, branch)
    own = [c for c in mine if subject(repo, c) not in known]
    if own and mine[-len(own):] != own:
        first = own[0]
        raise Error(f'{branch}: {first[:12]} "{subject(repo, first)}" is in no series branch '
                    'but is followed by series commits: the tail must come last')
    return own


def stack(repo, base, series_branches, target, tail_from=None, testcases=None):
    """Make target = base + each series branch's commits + the tail of
    tail_from (default: target as it is); with testcases (the generated
    patch file), the tail's testcases commit is that patch instead, so
    that the branch follows tools/testing/vm-shm/.  Returns (head, tree,
    picked)."""
    repo = Path(repo)
    base = git(repo, 'rev-parse', '--verify', f'{base}^{{commit}}')
    for b in series_branches:
        if git(repo, 'merge-base', base, b) != base:
            raise Error(f'{b} is not based on {base[:12]}')
    own = tail(repo, base, tail_from or target, series_branches)
    picks = [(b, c) for b in series_branches for c in commits(repo, base, b)]
    picks += [(tail_from or target, c) for c in own]
    with tempfile.TemporaryDirectory(prefix='stack-series-') as tmp:
        wt = Path(tmp) / 'wt'
        git(repo, 'worktree', 'add', '-q', '--detach', str(wt), base)
        try:
            for b, c in picks:
                before = git(wt, 'rev-parse', 'HEAD')
                if testcases and subject(repo, c) == testcases_patch.SUBJECT:
                    out = git(wt, 'am', '-q', '--committer-date-is-author-date', str(Path(testcases).resolve()),
                              check=False, env=committer(repo, c))
                else:
                    out = git(wt, 'cherry-pick', c, check=False, env=committer(repo, c))
                status = git(wt, 'status', '--porcelain', '--untracked-files=no')
                if status or git(wt, 'rev-parse', 'HEAD') == before:
                    raise Error(f'{b}: {c[:12]} "{subject(repo, c)}" does not apply '
                                f'on the stack:\n{status}\n{out}')
                log(f'picked {b} {c[:12]} {subject(repo, c)}')
            head = git(wt, 'rev-parse', 'HEAD')
        finally:
            git(wt, 'cherry-pick', '--abort', check=False)
            git(wt, 'am', '--abort', check=False)
            git(repo, 'worktree', 'remove', '--force', str(wt), check=False)
    git(repo, 'branch', '-f', target, head)
    tree = git(repo, 'rev-parse', f'{head}^{{tree}}')
    log(f'{target} = {head[:12]} (tree {tree[:12]}): {len(picks)} commits on {base[:12]}')
    return head, tree, picks
