# SPDX-License-Identifier: GPL-2.0
"""tools/export-series: the series in the forms its users take it, and
the proof that they agree.

  build/export/<name>-quilt.tar.gz      patches/ + series, for -mm and quilt users
  build/export/<name>.bundle            git bundle of branch <name>: the "Linux
                                        2.6.3" import commit + one commit per patch
  build/export/<name>.mbox              git format-patch of the VM part with a
                                        0/N cover letter (diffstat, results table)
  build/export/mbox/                    the same mails, one file each, for
                                        git send-email
  build/export/<name>-toolchain.mbox    the toolchain part, on which the VM part
                                        applies; not for mailing

Then, from scratch under build/export/verify/: a fresh import of the tree
plus git am of both mboxes, and quilt push -a of the tarball on a copy of
the base, must each give the branch's tree.  The tree is prepared in
build/export/work/, not build/src/, so an export never disturbs a build.
"""

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from . import series, tree
from .common import LAYOUT, Error, Layout, log, rel
from .results import TABLE_BEGIN, TABLE_END

COVER_SUBJECT = 'objrmap for file-backed pages, shmem swap I/O, clean cache first'
COVER_BODY = """2.6 tracks every pte of every page with a pte_chain in ZONE_NORMAL.  On
i386 PAE boxes with hundreds of processes sharing a large shm segment the
chains exhaust lowmem; swapping that shm becomes a swap storm; and a file
copy pushes the shm into swap instead of dropping clean cache.  This
series makes file-backed pages (page cache, tmpfs/shmem, SysV shm) count
their ptes and reverse map through their mapping's vmas with trylocks,
one vma at a time (anonymous pages keep their pte_chains), indexes a
file's vmas by offset so that only the vmas covering a page are
visited, keeps pages of nonlinear vmas reclaimable with a bounded sweep,
starts the swap write from shmem_writepage(), and adds
vm_cache_scan_ratio, a clean-cache-first pass of reclaim, with an
anchor in the inactive list (a separate patch, which the measurements
recommend: without it the pass does not help).  The last patches add
Documentation/vm/objrmap.txt, a MAINTAINERS entry, EXTRAVERSION and the
testcases (tools/testing/vm-shm).

It applies to 2.6.3 plus %(NTOOL)s toolchain patches that only let 2.6.3
build and run with today's gcc, binutils, make and QEMU; they come
with the series (%(NAME)s-toolchain.mbox, and first in the quilt series
of %(NAME)s-quilt.tar.gz) and are not part of this submission.  Every
patch builds and boots on its own.  Series hash %(HASH12)s.

%(RESULTS)s

The runs behind these figures, each with the hash of the series it ran
(this posting is %(HASH12)s):

%(RUNS)s
"""
DOCS_PATCH = 'objrmap/objrmap-docs.patch'
# The committer of the cover letter and the VM mails.
MAIL_COMMITTER = {'GIT_COMMITTER_NAME': 'vm-shm team', 'GIT_COMMITTER_EMAIL': 'vm-shm@localhost'}
QUILT_MTIME = '2004-02-18 00:00:00 UTC'


@dataclass(frozen=True)
class Release:
    """What is exported: its name and the series it is, as the series
    reader sees it."""
    name: str
    hash: str
    entries: tuple
    ntool: int

    @classmethod
    def of(cls, patches_dir, version=None):
        """version: defaults to the series' EXTRAVERSION without its dash
        (vmshm1 for 2.6.3-vmshm1), else the first 8 characters of the
        series hash; the name is version if it starts with "vmshm", else
        vmshm-version."""
        h = series.series_hash(patches_dir)
        if h is None:
            raise Error('no patches/series: nothing to export')
        entries = tuple(e.name for e in series.read(patches_dir))
        version = version or series.extraversion(patches_dir) or h[:8]
        name = version if version.startswith('vmshm') else f'vmshm-{version}'
        return cls(name, h, entries, series.toolchain_count(patches_dir))

    @property
    def nvm(self):
        return len(self.entries) - self.ntool


def run(cmd, cwd=None, env=None, stdout=None):
    """Run a command of the export; Error with its output if it fails."""
    e = dict(os.environ, **(env or {}))
    r = subprocess.run(cmd, cwd=cwd, env=e, stdout=stdout if stdout else subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise Error(f'{" ".join(map(str, cmd))} failed:\n{(r.stderr or "") + (r.stdout or "")}'.strip())
    return (r.stdout or '').strip()


def quilt_tarball(release, repo, dest):
    """patches/series and exactly the patches it lists, under <name>/,
    byte for byte the same on every machine (GNU tar, fixed owner and
    date)."""
    run(['tar', '-czf', str(dest), '--sort=name', '--owner=0', '--group=0', '--numeric-owner',
         f'--mtime={QUILT_MTIME}', '--transform', f's,^patches,{release.name},',
         'patches/series', *(f'patches/{e}' for e in release.entries)], cwd=repo)


def runs_table(readme):
    """The first table of docs/results.md's generated block: the runs."""
    text = Path(readme).read_text() if Path(readme).is_file() else ''
    if TABLE_BEGIN not in text or TABLE_END not in text:
        return ''
    block = text[text.index(TABLE_BEGIN):text.index(TABLE_END)].split('\n')[1:]
    return '\n'.join(block[:block.index('')] if '' in block else block)


def docs_results(patch):
    """The Results section that objrmap-docs adds to objrmap.txt."""
    lines = Path(patch).read_text().split('\n') if Path(patch).is_file() else []
    if '+Results' not in lines:
        return ''
    out = []
    for line in lines[lines.index('+Results'):]:
        if line and not line.startswith('+'):
            break
        if line.startswith('+'):
            out.append(line[1:])
    return '\n'.join(out)


def cover_letter(text, release, results, runs):
    """The format-patch cover letter text with subject and blurb filled in."""
    body = COVER_BODY % {'NTOOL': release.ntool, 'NAME': release.name, 'HASH12': release.hash[:12],
                         'RESULTS': results.strip(), 'RUNS': runs.strip() or '(no results yet)'}
    body = body.replace('the object walk described above', 'the object walk (Documentation/vm/objrmap.txt)')
    return text.replace('*** SUBJECT HERE ***', COVER_SUBJECT).replace('*** BLURB HERE ***', body.rstrip('\n'))


def mails(src, release, out, layout):
    """The toolchain mbox, the VM mails with their cover letter, and the
    VM mbox; returns the commit the VM part starts from."""
    base = run(['git', '-C', str(src), 'rev-list', '--max-parents=0', 'HEAD'])
    vbase = run(['git', '-C', str(src), 'rev-list', '--reverse', 'HEAD']).split('\n')[release.ntool]
    with open(out / f'{release.name}-toolchain.mbox', 'w') as f:
        run(['git', '-C', str(src), 'format-patch', '-q', '--stdout', f'{base}..{vbase}'], stdout=f)
    run(['git', '-C', str(src), 'format-patch', '-q', '--cover-letter', '--no-signature', '--thread=shallow',
         '--subject-prefix=PATCH 2.6.3', '-o', str(out / 'mbox'), f'{vbase}..HEAD'], env=MAIL_COMMITTER)
    cover = next((out / 'mbox').glob('0000-*.patch'))
    cover.write_text(cover_letter(cover.read_text(), release, docs_results(layout.patches / DOCS_PATCH),
                                  runs_table(layout.repo / 'docs' / 'results.md')))
    with open(out / f'{release.name}.mbox', 'w') as f:
        for p in sorted((out / 'mbox').glob('*.patch')):
            f.write(p.read_text())


def has_run_of(results_dir, h):
    """True if a committed result is of series h."""
    for p in Path(results_dir).glob('*.json'):
        if json.loads(p.read_text()).get('series_hash') == h:
            return True
    return False


def verify_git(linux, release, out, work):
    """A fresh import plus git am of both mboxes: (tree, head, commits)."""
    vgit = out / 'verify' / 'git'
    base = linux if linux.is_dir() else tree.unpack_tarball(linux, work)[0]
    tree.check_base(base)
    tree.import_base(base, vgit, 'verify')
    committer = {'GIT_COMMITTER_NAME': tree.PREPARE_IDENT[0], 'GIT_COMMITTER_EMAIL': tree.PREPARE_IDENT[1]}
    am = ['git', '-C', str(vgit), 'am', '-q', '--committer-date-is-author-date', '--whitespace=nowarn']
    run(am + [str(out / f'{release.name}-toolchain.mbox')], env=committer)
    run(am + ['--empty=drop', str(out / f'{release.name}.mbox')], env=committer)
    return (run(['git', '-C', str(vgit), 'rev-parse', 'HEAD^{tree}']),
            run(['git', '-C', str(vgit), 'rev-parse', 'HEAD']),
            int(run(['git', '-C', str(vgit), 'rev-list', '--count', 'HEAD'])))


def verify_quilt(release, out):
    """quilt push -a of the tarball on a copy of the verify import's base:
    (pushed, tree)."""
    vq = out / 'verify' / 'quilt'
    linux = vq / 'linux'
    linux.mkdir(parents=True)
    run(['tar', '-xzf', str(out / f'{release.name}-quilt.tar.gz'), '-C', str(vq)])
    vgit = out / 'verify' / 'git'
    root = run(['git', '-C', str(vgit), 'rev-list', '--max-parents=0', 'HEAD'])
    archive = subprocess.run(['git', '-C', str(vgit), 'archive', root], stdout=subprocess.PIPE, check=True)
    subprocess.run(['tar', '-x', '-C', str(linux)], input=archive.stdout, check=True)
    with open(vq / 'push.log', 'w') as logf:
        pushed = subprocess.run(['quilt', '--quiltrc=-', 'push', '-a', '-q'], cwd=linux, stdout=logf,
                                stderr=subprocess.STDOUT,
                                env=dict(os.environ, QUILT_PATCHES=f'../{release.name}')).returncode == 0
    shutil.rmtree(linux / '.pc', ignore_errors=True)
    env = {'GIT_DIR': str(vq / 'tree.git'), 'GIT_WORK_TREE': str(linux)}
    run(['git', 'init', '-q'], env=env)
    run(['git', 'add', '-A', '-f', '.'], env=env)
    return pushed, run(['git', 'write-tree'], env=env)


def report(release, out, branch, bundle_head, git_result, quilt_result):
    """Print what agrees; True if everything does."""
    branch_tree, branch_head = branch
    git_tree, git_head, git_n = git_result
    quilt_ok, quilt_tree = quilt_result
    ok = True
    log('')
    log(f'branch {release.name}: {len(release.entries) + 1} commits, tree {branch_tree}')
    if bundle_head == branch_head:
        log(f'bundle: refs/heads/{release.name} = {bundle_head} (the branch)')
    else:
        log(f'bundle: refs/heads/{release.name} = {bundle_head or "missing"}: NOT THE BRANCH ({branch_head})')
        ok = False
    what = f'git am of the mboxes on a fresh import: {git_n} commits, tree {git_tree}'
    if git_tree == branch_tree:
        log(f'{what}: same tree ({"same commits too" if git_head == branch_head else "commit ids differ"})')
    else:
        log(f'{what}: DIFFERENT TREE')
        ok = False
    if quilt_ok and quilt_tree == branch_tree:
        log(f'quilt push -a of the tarball on a copy of the base: tree {quilt_tree}: same tree')
    else:
        log(f'quilt push -a of the tarball on a copy of the base: push {"yes" if quilt_ok else "no"}, '
            f'tree {quilt_tree}: DIFFERENT TREE (see {rel(out / "verify" / "quilt")}/push.log)')
        ok = False
    return ok


def export(linux, version=None, layout=LAYOUT):
    """Write and check the exports; exit status 0 if they agree."""
    linux = Path(linux).resolve()
    release = Release.of(layout.patches, version)
    out = layout.build / 'export'
    log(f'export-series: {release.name}, series {release.hash[:12]}, {release.ntool} toolchain + {release.nvm} VM patches')
    work = Layout(layout.repo, out / 'work')           # prepared apart from build/src
    src = tree.prepare(linux, 'patched', work)
    for p in [out / 'mbox', out / 'verify', *out.glob('vmshm*')]:
        if p.is_dir():
            shutil.rmtree(p)
        elif p.exists():
            p.unlink()
    (out / 'mbox').mkdir()
    (out / 'verify').mkdir()
    quilt_tarball(release, layout.repo, out / f'{release.name}-quilt.tar.gz')
    run(['git', '-C', str(src), 'branch', '-f', release.name, 'HEAD'])
    run(['git', '-C', str(src), 'bundle', 'create', str(out / f'{release.name}.bundle'), release.name])
    branch = (run(['git', '-C', str(src), 'rev-parse', 'HEAD^{tree}']),
              run(['git', '-C', str(src), 'rev-parse', 'HEAD']))
    mails(src, release, out, layout)
    if not has_run_of(layout.results, release.hash):
        log(f'note: no run in results/ is of this series ({release.hash[:12]}): '
            "the cover letter's figures are of earlier revisions; say how they differ")
    git_result = verify_git(linux, release, out, work)
    quilt_result = verify_quilt(release, out)
    heads = run(['git', 'bundle', 'list-heads', str(out / f'{release.name}.bundle'), f'refs/heads/{release.name}'])
    ok = report(release, out, branch, heads.split(' ')[0], git_result, quilt_result)
    log('')
    log(run(['ls', '-l', str(out)]).split('\n', 1)[-1])
    log(f'mails: {len(list((out / "mbox").iterdir()))} in {rel(out / "mbox")} (0/{release.nvm} cover letter)')
    log(f'export-series: {release.name}: {"OK" if ok else "FAILED"}')
    return 0 if ok else 1
