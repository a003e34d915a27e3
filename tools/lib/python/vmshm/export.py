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
  build/export/<name>-<series>.mbox     each series of patches/series (its
                                        #@series group) alone, for linux-mm:
                                        a 0/N cover letter (what, why, its
                                        runs in results/, diffstat), then
                                        [PATCH 2.6.3 <series> n/N] mails
  build/export/mbox-<series>/           the same mails, one file each

Then, from scratch under build/export/verify/: a fresh import of the tree
plus git am of both mboxes, and quilt push -a of the tarball on a copy of
the base, must each give the branch's tree; and for each series, a fresh
import plus git am of the toolchain mbox and that series' mbox must give
the tree of the series prepared alone (tools/vmshm prepare --variant
<series>).  The trees are prepared in build/export/work/, not build/src/,
so an export never disturbs a build.
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
vm_cache_scan_ratio, a clean-cache-first pass of reclaim that resumes
at an anchor in the inactive list.  These are four series, each of
which applies to 2.6.3 on its own and is mailed apart for linux-mm
(%(NAME)s-<series>.mbox: %(SERIES)s; objrmap is tested and posted on
the fixes series); this is the four stacked, as the %(NAME)s branch
carries them.  The last patches add
Documentation/vm/objrmap.txt for the three together, a MAINTAINERS
entry, EXTRAVERSION and the testcases (tools/testing/vm-shm).

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
# What each series is and why, for its cover letter; the figures quoted
# are the whole stack's unless its own runs are in results/ (below).
SERIES_COVERS = {
    'fixes': """Eight fixes of 2.6.3 bugs that the vm-shm testcases hit, independent of
the VM changes that follow them: downgrade_write() waking queued readers
left the rwsem one count short, so the next down_write()/down_read()
slept for ever (index_churn hung in 1 run of about 8 on 2.6.3), and a
wake that backs off lost its wakeup; out_of_memory()'s one-second rule
held only from five minutes after boot, and free swap held an OOM kill
off for ever while memory was full of page tables, pte_chains or locked
pages (2.6.3 goes silent in pte_chain_capacity -F at 2 GB and in
oom_locked); and shmem_nopage() mapped a page beyond i_size when a fault
raced with truncate (truncate_fault: 9,505 pages left mapped past EOF in
20 rounds on 2.6.3); and remap_file_pages() took an offset range that
wraps (pgoff 0xffffffff), after which the next shrinking truncate
dropped every page inside the new EOF, dirty ones included
(remap_edges); its populate made a page that truncate or fadvise
dropped while it waited -ENOMEM, a kill on a fault (truncate_nonlinear,
remap_edges), and with MAP_NONBLOCK kept another offset's page at a
slot remapped to its linear offset (remap_edges).""",
    'objrmap': """2.6 tracks every pte of every page with a pte_chain in ZONE_NORMAL.  On
i386 PAE boxes with hundreds of processes sharing a large shm segment or
file the chains exhaust lowmem: pte_chain_capacity at 8 GB forks 987
children on 2.6.3 before lowmem runs out, 13,847 with these patches (in
the whole vmshm1 stack; 701 kB against 163 bytes of pte_chain per
child); this series alone (on the fixes) forked 13,750 before lowmem ran
out, with 163 bytes of pte_chain per child: its 6.9 GB of page tables
had filled highmem.  Alone, under QEMU -icount (5 runs each), a fork of
a process with 3,000 file vmas takes 1.061 times 2.6.3's time and
SDET-like scripts run 1.056 times as fast.  File pages (page cache,
tmpfs, SysV shm) count their ptes instead and reclaim finds them through
the file's vmas, indexed by offset, with trylocks, one vma at a time;
anonymous pages keep their pte_chains.  The index comes first, so that
no step of the series walks every vma of a file (that walk stalled a
SCHED_FIFO probe for 1.1 s); nonlinear vmas get a bounded sweep; a young
pte keeps its page; /proc/vmstat counts the walks a busy lock cut short;
the paths that map file pages (fault, fork, mremap, install_page) stop
allocating a pte_chain they would hand back unused (pte_chain_alloc()
calls: 81,923 to 2 over 20 faults of 2,048 pages, 11,852 to 2,855 over
100 forks); Documentation/vm/objrmap.txt says the rules.

The patches apply without the fixes series, but are tested, bisected
and posted on it: without it the testcases hit two 2.6.3 bugs it mends
far more often than 2.6.3 does (index_churn hung in 7 of 7 runs on SMP,
mremap asleep on the rwsem count downgrade_write() loses; truncate_fault
failed in 3 of 6, shmem_nopage() mapping past EOF); on it, 12 of 12.""",
    'shmem': """shmem_writepage() moves a page to the swap cache and leaves it dirty,
so the write starts only when reclaim meets the page again on the
inactive list; until then the swap is allocated and nothing is freed.
Start the write at once: in shm_swap_storm (256 MB, medians of 5 runs)
the swap cache peaks at 2.6 MB instead of 2.6.3's 36 MB (rank test
p = 0.008).  Swap-out and stalls do not tell it from 2.6.3 at this
size: the storm's swap-out over what the pressure needed was 1.34
against 1.15 alone (p = 0.15), and on the reclaim series 1.38 against
1.15 and 1.19 against 1.38 in two batches (p = 0.31, 0.42).  2.6.3 did
not storm at 256 MB nor at 12 GB in our runs.""",
    'reclaim': """A file copy on a box that is swapping shm pushes the shm further into
swap instead of dropping the file's clean pages: reclaim meets long
runs of dirty shm on the inactive list before the clean cache behind
them.  vm_cache_scan_ratio adds a pass that frees clean, unmapped page
cache first, resuming at an anchor in the inactive list (one patch: the
pass without its anchor sent more to swap than 2.6.3).  In
copy_during_swap (256 MB, medians of 5 runs, this patch alone on
2.6.3) swap-out per byte read falls from 0.097 to 0.0021, the shm
swapped back in during the read from 33,970 pages to 35, and the read
beside the touched shm goes from 0.66 to 0.92 of its unloaded rate.""",
}
SERIES_COVER = """%(WHAT)s

It applies to 2.6.3 plus %(NTOOL)s toolchain patches that only let 2.6.3
build and run with today's gcc, binutils, make and QEMU
(%(NAME)s-toolchain.mbox, not part of this submission)%(NEEDS)s,
and stacks with the other series of %(NAME)s in the order
%(ORDER)s.  tools/bisect-series --series %(SERIES)s builds
and boots every step of it%(NEEDS_BISECT)s.  Series hash %(HASH12)s.

%(RESULTS)s"""
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
    groups: tuple = ()

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
        return cls(name, h, entries, series.toolchain_count(patches_dir), tuple(series.groups(patches_dir)))

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
    """The Results section of objrmap.txt: of the file itself, or as a
    patch (objrmap-docs) adds it."""
    lines = Path(patch).read_text().split('\n') if Path(patch).is_file() else []
    if 'Results' in lines and '+Results' not in lines:
        return '\n'.join(lines[lines.index('Results'):]).strip('\n')
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
    names = [g.name for g in release.groups if g.kind == 'series' and g.name != series.TOOLCHAIN]
    body = COVER_BODY % {'NTOOL': release.ntool, 'NAME': release.name, 'HASH12': release.hash[:12],
                         'SERIES': ', '.join(names) or 'none',
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
    cover.write_text(cover_letter(cover.read_text(), release,
                                  docs_results(src / 'Documentation' / 'vm' / 'objrmap.txt'),
                                  runs_table(layout.repo / 'docs' / 'results.md')))
    with open(out / f'{release.name}.mbox', 'w') as f:
        for p in sorted((out / 'mbox').glob('*.patch')):
            f.write(p.read_text())


def series_results(layout, name):
    """What a series' cover letter says of its own runs: the README's rows
    measured with it alone, or where its runs are if the headline has
    none."""
    from . import headline
    table = headline.table(layout.results, other=name)
    if table:
        return f'Measured with this series alone on 2.6.3 (results/ of the project):\n\n{table}'
    return ('No headline run of this series alone is in the project\'s results/:\n'
            'the figures above and in the changelogs say which kernels they\n'
            'compare; the runs of each series alone against 2.6.3 are in\n'
            'results/issue15/ (its README has the tables).')


def series_cover(text, release, group, order, results):
    needs = ' and '.join(group.needs)
    mboxes = ', '.join(f'{release.name}-{n}.mbox' for n in group.needs)
    body = SERIES_COVER % {'WHAT': SERIES_COVERS.get(group.name, group.title), 'NTOOL': release.ntool,
                           'SERIES': group.name,
                           'NEEDS': f',\non top of the {needs} series ({mboxes})' if needs else '',
                           'NEEDS_BISECT': f' on the {needs} series' if needs else '',
                           'NAME': release.name, 'ORDER': ', '.join(order),
                           'HASH12': release.hash[:12], 'RESULTS': results.strip()}
    return text.replace('*** SUBJECT HERE ***', group.title or group.name).replace(
        '*** BLURB HERE ***', body.rstrip('\n'))


def series_mails(src, release, group, order, out, layout):
    """One series' mails and mbox, from its branch prepared alone (on the
    series it needs, which are not mailed again); returns (mbox, number of
    patches)."""
    nbase = series.base_count(group.name, layout.patches)
    vbase = run(['git', '-C', str(src), 'rev-list', '--reverse', 'HEAD']).split('\n')[nbase]
    mdir = out / f'mbox-{group.name}'
    mdir.mkdir()
    run(['git', '-C', str(src), 'format-patch', '-q', '--cover-letter', '--no-signature', '--thread=shallow',
         f'--subject-prefix=PATCH 2.6.3 {group.name}', '-o', str(mdir), f'{vbase}..HEAD'], env=MAIL_COMMITTER)
    cover = next(mdir.glob('0000-*.patch'))
    cover.write_text(series_cover(cover.read_text(), release, group, order,
                                  series_results(layout, group.name)))
    mbox = out / f'{release.name}-{group.name}.mbox'
    with open(mbox, 'w') as f:
        for p in sorted(mdir.glob('*.patch')):
            f.write(p.read_text())
    return mbox, len(list(mdir.glob('*.patch'))) - 1


def export_series(linux, release, out, work, layout):
    """Each series alone: prepared, mailed and checked by git am on a
    fresh import (after the mboxes of the series it needs, which come
    earlier).  Returns [(name, n, branch tree, am tree, needs)]."""
    groups = [g for g in series.groups(layout.patches)
              if g.kind == 'series' and g.name != series.TOOLCHAIN]
    order = [g.name for g in groups]
    checked, mboxes = [], {}
    for g in groups:
        src = tree.prepare(linux, g.name, work)
        mbox, n = series_mails(src, release, g, order, out, layout)
        mboxes[g.name] = mbox
        am_tree = verify_git(linux, [out / f'{release.name}-toolchain.mbox'] + [mboxes[d] for d in g.needs]
                             + [mbox], out / 'verify' / g.name, work)[0]
        checked.append((g.name, n, run(['git', '-C', str(src), 'rev-parse', 'HEAD^{tree}']), am_tree, g.needs))
    return checked


def report_series(out, release, checked):
    """Print each series' check; True if all agree."""
    ok = True
    for name, n, branch_tree, am_tree, needs in checked:
        under = ''.join(f', the {d} mbox' for d in needs)
        what = (f'series {name}: {n} patches + 0/{n} cover letter ({release.name}-{name}.mbox); '
                f'git am of the toolchain mbox{under} and it on a fresh import: tree {am_tree}')
        if am_tree == branch_tree:
            log(f'{what}: same tree as {name} prepared alone')
        else:
            log(f'{what}: DIFFERENT TREE from {name} prepared alone ({branch_tree})')
            ok = False
    return ok


def has_run_of(results_dir, h):
    """True if a committed result is of series h."""
    for p in Path(results_dir).glob('*.json'):
        if json.loads(p.read_text()).get('series_hash') == h:
            return True
    return False


def verify_git(linux, mboxes, vgit, work):
    """A fresh import at vgit plus git am of the mboxes, in order (a cover
    letter is dropped): (tree, head, commits)."""
    base = linux if linux.is_dir() else tree.unpack_tarball(linux, work)[0]
    tree.check_base(base)
    tree.import_base(base, vgit, 'verify')
    committer = {'GIT_COMMITTER_NAME': tree.PREPARE_IDENT[0], 'GIT_COMMITTER_EMAIL': tree.PREPARE_IDENT[1]}
    am = ['git', '-C', str(vgit), 'am', '-q', '--committer-date-is-author-date', '--whitespace=nowarn',
          '--empty=drop']
    for mbox in mboxes:
        run(am + [str(mbox)], env=committer)
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
    for p in [out / 'mbox', out / 'verify', *out.glob('vmshm*'), *out.glob('mbox-*')]:
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
    git_result = verify_git(linux, [out / f'{release.name}-toolchain.mbox', out / f'{release.name}.mbox'],
                            out / 'verify' / 'git', work)
    quilt_result = verify_quilt(release, out)
    checked = export_series(linux, release, out, work, layout)
    heads = run(['git', 'bundle', 'list-heads', str(out / f'{release.name}.bundle'), f'refs/heads/{release.name}'])
    ok = report(release, out, branch, heads.split(' ')[0], git_result, quilt_result)
    ok = report_series(out, release, checked) and ok
    log('')
    log(run(['ls', '-l', str(out)]).split('\n', 1)[-1])
    log(f'mails: {len(list((out / "mbox").iterdir()))} in {rel(out / "mbox")} (0/{release.nvm} cover letter)')
    log(f'export-series: {release.name}: {"OK" if ok else "FAILED"}')
    return 0 if ok else 1
