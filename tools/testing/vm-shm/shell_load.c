// SPDX-License-Identifier: GPL-2.0
/*
 * shell_load - ordinary work, for "the series costs ordinary workloads
 * nothing": an SDET-like mix of short shell commands run by concurrent
 * users, and a kernel-build-like mix of compiles and a link.
 *
 * Every command is a fork and execve of this same static binary in a
 * command mode (shell_load -X LIBDIR PROT cmd args...), so each one pays
 * what a process start pays on the kernel under test: fork, exec, the
 * mapping of its "shared libraries" (six files in -d, mapped MAP_PRIVATE
 * PROT_READ|PROT_EXEC, every page read, a few pages of a writable data
 * segment written as relocations are: copy on write), a small heap and
 * exit.  The libraries and a directory of "sources" are made once at the
 * start.  The same -n and -k give the same commands on the same bytes
 * (which user runs a script does not change it), so that a rate measured
 * under QEMU -icount compares between kernels.
 *
 *  sdet    -u users, each a "shell" in a process group of its own, run
 *          -n scripts in all (script i by user i % users):
 *          cat | wc, cat | grep | wc, ls | wc, cp, ed, wc, cc, wc, rm.
 *  kbuild  a "make" runs -k cc units, -j at a time: each reads a source
 *          and three headers, fills and checks 1-4 MB of anonymous
 *          memory and writes an object in small writes; then a link
 *          reads every object and writes one file, and wc reads it back.
 *
 * Asserted: every command exits 0 (none dies of a signal) and every
 * output is what it must be: the counts and checksums wc prints, cc's
 * objects, the link's checksum against the objects', the files rm
 * removed, the libraries unchanged by the private writes.  The rates
 * are figures, not asserted.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>

#include "vmshm.h"

static const char summary[] =
	"shell_load: ordinary work: SDET-like scripts of short commands run\n"
	"by -u users, and a kernel-build-like mix of -k compiles, -j at a\n"
	"time, and a link; every command a fork+execve of this binary";

enum { T_SDET, T_KBUILD, T_CLEANUP, T_N };

static const char *const names[] = { "sdet", "kbuild", "cleanup", NULL };

#define NLIB		6
#define LIB_SEED	0x11b5eed0u
#define DATA_BYTES	(32 * 1024)	/* lib0's writable data segment */
#define NSRC		32		/* f00.c .. f31.c */
#define NHDR		8		/* h00.h .. h07.h */
#define NFILE		(NSRC + NHDR)
#define NPAT		4
#define KB_HDRS		3		/* headers a kbuild unit reads */
#define CMD_HEAP	(64 * 1024)	/* every command's malloc heap */
#define SDET_CC_BLKS	64		/* sdet's cc: a 256 KB heap */
#define OBJ_MAGIC	0x216a626fu
#define RELOC		0x7e10c000u	/* what the relocations write */
#define SMALL_WRITE	512		/* ed's and cc's write size */
#define MAX_USERS	64
#define MAX_JOBS	64
#define MAX_AV		16
#define CMDS_PER_SCRIPT	13
#define OUT_MAX		256		/* a command's output the shell reads */
#define ED_TAG		"/* edited by script %ld */\n"

static const int lib_kb[NLIB] = { 512, 384, 320, 256, 192, 128 };
static const char *const pats[NPAT] = { "page", "struct", "return",
					"spin_lock" };

/* ------------------------------------------------------------------ */
/* counting: what wc prints, and a checksum that can be concatenated    */

struct wc {
	uint32_t lines, words, bytes;
	uint32_t s1, s2;	/* sum of the bytes, sum of the running s1 */
	int inword;
};

static void wc_add(struct wc *w, const void *buf, size_t n)
{
	const unsigned char *p = buf;
	uint32_t s1 = w->s1, s2 = w->s2;
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = p[i];

		s1 += c;
		s2 += s1;
		if (c == '\n')
			w->lines++;
		if (c == ' ' || c == '\t' || c == '\n') {
			w->inword = 0;
		} else if (!w->inword) {
			w->inword = 1;
			w->words++;
		}
	}
	w->s1 = s1;
	w->s2 = s2;
	w->bytes += n;
}

/*
 * @a followed by @b, from their sums alone: s2 counts every byte once per
 * byte from it to the end, so each byte of @a counts @b's length more.
 * The link's output is checked against its objects this way.
 */
static void ck_cat(struct wc *a, const struct wc *b)
{
	a->s2 += b->s2 + b->bytes * a->s1;
	a->s1 += b->s1;
	a->bytes += b->bytes;
}

static int ck_same(const struct wc *a, const struct wc *b)
{
	return a->bytes == b->bytes && a->s1 == b->s1 && a->s2 == b->s2;
}

static int wc_same(const struct wc *a, const struct wc *b)
{
	return ck_same(a, b) && a->lines == b->lines && a->words == b->words;
}

static int wc_fmt(char *buf, size_t len, const struct wc *w)
{
	return snprintf(buf, len, "%u %u %u %08x %08x\n", w->lines, w->words,
			w->bytes, w->s1, w->s2);
}

static int wc_parse(const char *s, struct wc *w)
{
	memset(w, 0, sizeof(*w));
	return sscanf(s, "%u %u %u %x %x", &w->lines, &w->words, &w->bytes,
		      &w->s1, &w->s2) == 5 ? 0 : -1;
}

static uint32_t fnv32(const char *p, size_t n)
{
	uint32_t h = 2166136261u;

	while (n--) {
		h ^= (unsigned char)*p++;
		h *= 16777619u;
	}
	return h;
}

static int has(const char *line, size_t n, const char *pat)
{
	size_t pl = strlen(pat), i;

	for (i = 0; i + pl <= n; i++)
		if (line[i] == pat[0] && !memcmp(line + i, pat, pl))
			return 1;
	return 0;
}

/* buffered output, counted; fd -1 counts only (the expected values) */
struct out {
	int fd, err;
	size_t n, chunk;
	struct wc wc;
	char buf[4096];
};

static void out_init(struct out *o, int fd, size_t chunk)
{
	memset(&o->wc, 0, sizeof(o->wc));
	o->fd = fd;
	o->err = 0;
	o->n = 0;
	o->chunk = chunk;
}

static void out_flush(struct out *o)
{
	if (o->fd >= 0 && o->n && vm_write_all(o->fd, o->buf, o->n))
		o->err = errno ? errno : EIO;
	o->n = 0;
}

static void out_put(struct out *o, const void *p, size_t n)
{
	const char *s = p;
	size_t k;

	wc_add(&o->wc, p, n);
	if (o->fd < 0)
		return;
	while (n) {
		k = VM_MIN(n, o->chunk - o->n);
		memcpy(o->buf + o->n, s, k);
		o->n += k;
		s += k;
		n -= k;
		if (o->n == o->chunk)
			out_flush(o);
	}
}

/* ------------------------------------------------------------------ */
/* the sources: C-like text, the same for every run                     */

static const char *const words[] = {
	"static", "int", "struct", "page", "*page", "vma", "=", "return",
	"if", "(", ")", "{", "}", "unsigned", "long", "spin_lock(&lock);",
	"spin_unlock(&lock);", "pte_t", "mapping", "anon_vma", "index",
	"NULL;", "0;", "else", "for", "nr_pages", "flags", "free_page(page);",
	"count++;", "mm->rss", "&", "->", "pte_chain", "#include",
	"<linux/mm.h>", "void", "const", "char", "/*", "*/", "the", "kernel",
	"release", "list_head", "return;", "page->mapping", "vm_area_struct",
};

static uint32_t rnd(uint32_t *s)
{
	uint32_t x = *s;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *s = x;
}

/* about @want bytes of lines into @buf (@want + 256 bytes) */
static size_t gen_text(char *buf, size_t want, uint32_t seed)
{
	uint32_t s = seed | 1;
	size_t len = 0, wl;
	const char *w;
	int t, ntok, ind;

	while (len < want) {
		uint32_t r = rnd(&s);

		if ((r >> 12) % 11 == 0) {	/* a blank line */
			buf[len++] = '\n';
			continue;
		}
		ntok = 1 + r % 9;
		for (ind = (r >> 8) % 3; ind > 0; ind--)
			buf[len++] = '\t';
		for (t = 0; t < ntok; t++) {
			w = words[rnd(&s) % VM_ARRAY_SIZE(words)];
			wl = strlen(w);
			if (t)
				buf[len++] = ' ';
			memcpy(buf + len, w, wl);
			len += wl;
		}
		buf[len++] = '\n';
	}
	return len;
}

static const char *cmd_name = "?";

static void cmd_err(const char *fmt, ...) VM_PRINTF(1, 2);
static void cmd_err(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n, k;

	/* one write, "# " first: a diagnostic when stderr is the KTAP's */
	n = snprintf(buf, sizeof(buf), "# shell_load -X %s: ", cmd_name);
	va_start(ap, fmt);
	k = vsnprintf(buf + n, sizeof(buf) - n - 1, fmt, ap);
	va_end(ap);
	n = VM_MIN((int)sizeof(buf) - 2, n + VM_MAX(k, 0));
	buf[n++] = '\n';
	if (write(2, buf, n) < 0)
		return;
}

static uint32_t cc_seed(uint32_t unit)
{
	return 0xcc000000u ^ unit;
}

/*
 * What cc writes: a header, a record per source line, a record per heap
 * block in a scrambled order (each block checked first: a compiler reads
 * back what it built), a trailer.  With @heap NULL it only computes what
 * a correct run writes.
 */
static int cc_emit(struct out *o, uint32_t unit, char *const *text,
		   const size_t *len, int n, uint32_t nblk, const char *heap)
{
	uint32_t hdr[4] = { OBJ_MAGIC, unit, (uint32_t)n, nblk };
	uint32_t rec[4], seed = cc_seed(unit), nrec = 0, k, b;
	const char *t, *end, *nl;
	uint32_t exp, got;
	size_t ll;
	long bad;
	int i;

	out_put(o, hdr, sizeof(hdr));
	for (i = 0; i < n; i++) {
		t = text[i];
		end = t + len[i];
		rec[1] = 0;
		while (t < end) {
			nl = memchr(t, '\n', end - t);
			ll = nl ? (size_t)(nl - t) : (size_t)(end - t);
			rec[0] = fnv32(t, ll);
			rec[1]++;
			rec[2] = (uint32_t)ll;
			rec[3] = (uint32_t)i;
			out_put(o, rec, sizeof(rec));
			nrec++;
			if (!nl)
				break;
			t = nl + 1;
		}
	}
	/* 7919 is prime and nblk < 7919: k * 7919 % nblk visits each once */
	for (k = 0; k < nblk; k++) {
		b = (k * 7919u + unit) % nblk;
		if (heap && vm_check_blk(heap + (size_t)b * VM_BLK, seed, b, 1,
					 &bad, &exp, &got)) {
			cmd_err("unit %u heap block %u word %ld: expected "
				"0x%08x got 0x%08x", unit, b, bad, exp, got);
			return -1;
		}
		rec[0] = b;
		rec[1] = vm_pat_base(seed, b, 1);
		out_put(o, rec, 2 * sizeof(rec[0]));
		nrec++;
	}
	rec[0] = OBJ_MAGIC ^ nrec;
	rec[1] = ~unit;
	out_put(o, rec, 2 * sizeof(rec[0]));
	return 0;
}

/* ------------------------------------------------------------------ */
/* command mode: the programs the scripts run                          */

static char *slurp_fd(int fd, size_t *lenp)
{
	size_t cap = 16384, len = 0;
	char *buf = malloc(cap), *nb;
	ssize_t n;

	while (buf) {
		if (len == cap) {
			cap *= 2;
			nb = realloc(buf, cap);
			if (!nb)
				break;
			buf = nb;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		if (n == 0) {
			*lenp = len;
			return buf;
		}
		len += n;
	}
	free(buf);
	return NULL;
}

static char *slurp(const char *path, size_t *lenp)
{
	char *buf;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0) {
		cmd_err("open %s: %s", path, strerror(errno));
		return NULL;
	}
	buf = slurp_fd(fd, lenp);
	if (!buf)
		cmd_err("read %s: %s", path, strerror(errno));
	close(fd);
	return buf;
}

static int lib_check(const char *p, size_t first, size_t nblk, uint32_t seed,
		     const char *path)
{
	const volatile uint32_t *w;
	size_t b;

	for (b = 0; b < nblk; b++) {
		w = (const volatile uint32_t *)(p + b * VM_BLK);
		if (w[0] != (VM_MAGIC ^ (uint32_t)(first + b)) ||
		    w[2] != seed) {
			cmd_err("%s block %lu: 0x%08x 0x%08x, want 0x%08x "
				"0x%08x", path, (unsigned long)(first + b),
				w[0], w[2], VM_MAGIC ^ (uint32_t)(first + b),
				seed);
			return -1;
		}
	}
	return 0;
}

static char *cmd_heap;

/*
 * What a dynamically linked program does before main(): map each library
 * (text read-only and executable; lib0 also a writable private data
 * segment), read every page, write every third data page (relocations:
 * copy on write), and start a heap.  The mappings stay until exit.
 */
static int load_libs(const char *dir, int exec)
{
	size_t size, text, b, i;
	volatile uint32_t *w;
	char path[512], *p, *d;
	uint32_t v;
	int l, fd;

	for (l = 0; l < NLIB; l++) {
		size = (size_t)lib_kb[l] * 1024;
		text = l ? size : size - DATA_BYTES;
		snprintf(path, sizeof(path), "%s/lib%d.so", dir, l);
		fd = open(path, O_RDONLY);
		if (fd < 0) {
			cmd_err("open %s: %s", path, strerror(errno));
			return -1;
		}
		p = mmap(NULL, text, PROT_READ | (exec ? PROT_EXEC : 0),
			 MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED) {
			cmd_err("mmap %s: %s", path, strerror(errno));
			close(fd);
			return -1;
		}
		if (lib_check(p, 0, text / VM_BLK, LIB_SEED + l, path)) {
			close(fd);
			return -1;
		}
		if (l == 0) {
			d = mmap(NULL, DATA_BYTES, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE, fd, (off_t)text);
			if (d == MAP_FAILED) {
				cmd_err("mmap %s data: %s", path,
					strerror(errno));
				close(fd);
				return -1;
			}
			/*
			 * The same value in every command: one that finds
			 * it before writing sees another's private copy.
			 */
			for (b = 0; b < DATA_BYTES / VM_BLK; b += 3) {
				w = (volatile uint32_t *)(d + b * VM_BLK);
				v = RELOC ^ (uint32_t)b;
				if (w[4] == v) {
					cmd_err("%s data block %lu: another "
						"process's private write shows",
						path, (unsigned long)b);
					close(fd);
					return -1;
				}
				w[4] = v;
				if (w[4] != v) {
					cmd_err("%s data block %lu: wrote "
						"0x%08x, read 0x%08x", path,
						(unsigned long)b, v, w[4]);
					close(fd);
					return -1;
				}
			}
			if (lib_check(d, text / VM_BLK, DATA_BYTES / VM_BLK,
				      LIB_SEED, path)) {
				close(fd);
				return -1;
			}
		}
		close(fd);
	}
	cmd_heap = malloc(CMD_HEAP);
	if (!cmd_heap) {
		cmd_err("malloc: %s", strerror(errno));
		return -1;
	}
	for (i = 0; i < CMD_HEAP; i += 64)
		cmd_heap[i] = (char)i;
	return 0;
}

static int x_cat(int argc, char **argv)
{
	char buf[4096];
	ssize_t n;
	int i, fd;

	for (i = 0; i < argc; i++) {
		fd = open(argv[i], O_RDONLY);
		if (fd < 0) {
			cmd_err("open %s: %s", argv[i], strerror(errno));
			return 1;
		}
		for (;;) {
			n = read(fd, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			if (vm_write_all(1, buf, n)) {
				cmd_err("write: %s", strerror(errno));
				close(fd);
				return 1;
			}
		}
		if (n < 0) {
			cmd_err("read %s: %s", argv[i], strerror(errno));
			close(fd);
			return 1;
		}
		close(fd);
	}
	return 0;
}

static int x_wc(int argc, char **argv)
{
	struct wc w = { 0 };
	char buf[4096];
	int fd = 0;
	ssize_t n;

	if (argc > 0) {
		fd = open(argv[0], O_RDONLY);
		if (fd < 0) {
			cmd_err("open %s: %s", argv[0], strerror(errno));
			return 1;
		}
	}
	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		wc_add(&w, buf, n);
	}
	if (n < 0) {
		cmd_err("read: %s", strerror(errno));
		return 1;
	}
	n = wc_fmt(buf, sizeof(buf), &w);
	if (vm_write_all(1, buf, n)) {
		cmd_err("write: %s", strerror(errno));
		return 1;
	}
	return 0;
}

/* grep's output for @text: every line holding @pat, newline included */
static void grep_text(struct out *o, const char *text, size_t len,
		      const char *pat)
{
	const char *t = text, *end = text + len, *nl;
	size_t ll;

	while (t < end) {
		nl = memchr(t, '\n', end - t);
		ll = nl ? (size_t)(nl - t) + 1 : (size_t)(end - t);
		if (has(t, ll, pat))
			out_put(o, t, ll);
		t += ll;
	}
}

static int x_grep(int argc, char **argv)
{
	static struct out o;
	size_t len;
	char *text;

	(void)argc;
	text = slurp_fd(0, &len);
	if (!text) {
		cmd_err("read: %s", strerror(errno));
		return 1;
	}
	out_init(&o, 1, sizeof(o.buf));
	grep_text(&o, text, len, argv[0]);
	out_flush(&o);
	if (o.err) {
		cmd_err("write: %s", strerror(o.err));
		return 1;
	}
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ls's output: "name size" per entry, sorted as ls sorts */
static int x_ls(int argc, char **argv)
{
	static struct out o;
	char **v = NULL, **nv, path[512], line[512];
	size_t n = 0, cap = 0, i;
	struct dirent *de;
	struct stat st;
	int len, rc = 0;
	DIR *d;

	(void)argc;
	d = opendir(argv[0]);
	if (!d) {
		cmd_err("opendir %s: %s", argv[0], strerror(errno));
		return 1;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				rc = 1;
				break;
			}
			v = nv;
		}
		v[n] = strdup(de->d_name);
		if (!v[n]) {
			rc = 1;
			break;
		}
		n++;
	}
	closedir(d);
	if (rc) {
		cmd_err("out of memory");
		return 1;
	}
	qsort(v, n, sizeof(*v), name_cmp);
	out_init(&o, 1, sizeof(o.buf));
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", argv[0], v[i]);
		if (stat(path, &st) != 0) {
			cmd_err("stat %s: %s", path, strerror(errno));
			return 1;
		}
		len = snprintf(line, sizeof(line), "%s %lld\n", v[i],
			       (long long)st.st_size);
		out_put(&o, line, len);
	}
	out_flush(&o);
	if (o.err) {
		cmd_err("write: %s", strerror(o.err));
		return 1;
	}
	return 0;
}

static int x_cp(int argc, char **argv)
{
	char buf[4096];
	int in, out, rc = 0;
	ssize_t n;

	(void)argc;
	in = open(argv[0], O_RDONLY);
	if (in < 0) {
		cmd_err("open %s: %s", argv[0], strerror(errno));
		return 1;
	}
	out = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0) {
		cmd_err("open %s: %s", argv[1], strerror(errno));
		close(in);
		return 1;
	}
	for (;;) {
		n = read(in, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (vm_write_all(out, buf, n)) {
			cmd_err("write %s: %s", argv[1], strerror(errno));
			rc = 1;
			break;
		}
	}
	if (n < 0) {
		cmd_err("read %s: %s", argv[0], strerror(errno));
		rc = 1;
	}
	close(in);
	if (close(out) != 0) {
		cmd_err("close %s: %s", argv[1], strerror(errno));
		rc = 1;
	}
	return rc;
}

/* the edit: every 'e' becomes 'E' (an editor's s/e/E/g) */
static void ed_text(char *text, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (text[i] == 'e')
			text[i] = 'E';
}

/* ed FILE N: read, edit, rewrite in place with small writes, no fsync */
static int x_ed(int argc, char **argv)
{
	static struct out o;
	char tag[64];
	size_t len;
	char *text;
	int fd, n;

	(void)argc;
	text = slurp(argv[0], &len);
	if (!text)
		return 1;
	ed_text(text, len);
	n = snprintf(tag, sizeof(tag), ED_TAG, strtol(argv[1], NULL, 10));
	fd = open(argv[0], O_WRONLY | O_TRUNC);
	if (fd < 0) {
		cmd_err("open %s: %s", argv[0], strerror(errno));
		return 1;
	}
	out_init(&o, fd, SMALL_WRITE);
	out_put(&o, text, len);
	out_put(&o, tag, n);
	out_flush(&o);
	if (close(fd) != 0 && !o.err)
		o.err = errno;
	if (o.err) {
		cmd_err("write %s: %s", argv[0], strerror(o.err));
		return 1;
	}
	return 0;
}

static int x_rm(int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		if (unlink(argv[i]) != 0) {
			cmd_err("unlink %s: %s", argv[i], strerror(errno));
			return 1;
		}
	}
	return 0;
}

/* Flush and close @fd, then print the wc line of what went out. */
static int out_close_report(struct out *o, int fd, const char *path)
{
	char line[128];
	int n;

	out_flush(o);
	if (close(fd) != 0 && !o->err)
		o->err = errno;
	if (o->err) {
		cmd_err("write %s: %s", path, strerror(o->err));
		return 1;
	}
	n = wc_fmt(line, sizeof(line), &o->wc);
	if (vm_write_all(1, line, n)) {
		cmd_err("write: %s", strerror(errno));
		return 1;
	}
	return 0;
}

/*
 * cc UNIT NBLK OUT SRC...: fill NBLK blocks of anonymous memory (the
 * compiler's heap), read the sources, write the object in small writes
 * and print its counts.
 */
static int x_cc(int argc, char **argv)
{
	static struct out o;
	uint32_t unit = (uint32_t)strtoul(argv[0], NULL, 10);
	uint32_t nblk = (uint32_t)strtoul(argv[1], NULL, 10), b;
	char *text[8], *heap;
	size_t len[8];
	int i, n = argc - 3, fd;

	if (n < 1 || n > 8 || nblk < 1 || nblk >= 7919) {
		cmd_err("bad arguments");
		return 1;
	}
	heap = mmap(NULL, (size_t)nblk * VM_BLK, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (heap == MAP_FAILED) {
		cmd_err("mmap %u blocks: %s", nblk, strerror(errno));
		return 1;
	}
	for (b = 0; b < nblk; b++)
		vm_fill_blk(heap + (size_t)b * VM_BLK, cc_seed(unit), b, 1);
	for (i = 0; i < n; i++) {
		text[i] = slurp(argv[3 + i], &len[i]);
		if (!text[i])
			return 1;
	}
	fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		cmd_err("open %s: %s", argv[2], strerror(errno));
		return 1;
	}
	out_init(&o, fd, SMALL_WRITE);
	if (cc_emit(&o, unit, text, len, n, nblk, heap))
		return 2;
	return out_close_report(&o, fd, argv[2]);
}

/* link DIR K OUT: DIR/0.o .. DIR/K-1.o, checked and concatenated */
static int x_link(int argc, char **argv)
{
	static struct out o;
	long k = strtol(argv[1], NULL, 10), u;
	char path[512], *buf;
	uint32_t hdr[2];
	size_t len;
	int fd;

	(void)argc;
	fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		cmd_err("open %s: %s", argv[2], strerror(errno));
		return 1;
	}
	out_init(&o, fd, sizeof(o.buf));
	for (u = 0; u < k && !o.err; u++) {
		snprintf(path, sizeof(path), "%s/%ld.o", argv[0], u);
		buf = slurp(path, &len);
		if (!buf)
			return 1;
		if (len >= sizeof(hdr))
			memcpy(hdr, buf, sizeof(hdr));
		if (len < sizeof(hdr) || hdr[0] != OBJ_MAGIC ||
		    hdr[1] != (uint32_t)u) {
			cmd_err("%s: not the object of unit %ld", path, u);
			return 1;
		}
		out_put(&o, buf, len);
		free(buf);
	}
	return out_close_report(&o, fd, argv[2]);
}

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	int min_args;
} xcmds[] = {
	{ "cat", x_cat, 1 }, { "wc", x_wc, 0 }, { "grep", x_grep, 1 },
	{ "ls", x_ls, 1 }, { "cp", x_cp, 2 }, { "ed", x_ed, 2 },
	{ "rm", x_rm, 1 }, { "cc", x_cc, 4 }, { "link", x_link, 3 },
};

/* shell_load -X LIBDIR PROT CMD ARGS...: @argv starts at LIBDIR */
static int cmd_main(int argc, char **argv)
{
	unsigned int i;

	if (argc < 3) {
		fprintf(stderr, "usage: shell_load -X LIBDIR rx|r CMD ARGS\n");
		return 1;
	}
	cmd_name = argv[2];
	for (i = 0; i < VM_ARRAY_SIZE(xcmds); i++)
		if (!strcmp(xcmds[i].name, argv[2]))
			break;
	if (i == VM_ARRAY_SIZE(xcmds) || argc - 3 < xcmds[i].min_args) {
		cmd_err("unknown command or too few arguments");
		return 1;
	}
	if (load_libs(argv[0], !strcmp(argv[1], "rx")))
		return 2;
	return xcmds[i].fn(argc - 3, argv + 3);
}

/* ------------------------------------------------------------------ */
/* the files, and removing them from a signal handler too               */

static char self[512];		/* this binary, for execve */
static char top[384];		/* our directory in -d */
static char libdir[448], srcdir[448], objdir[448];
static const char *prot = "rx";

struct src {
	char name[16];
	char *text;
	size_t len;
	struct wc wc;		/* of the file */
	struct wc ed;		/* of the file after ed's edit, tag not yet */
	struct wc grep[NPAT];	/* of grep's output */
};

static struct src srcs[NFILE];
static struct wc ls_wc;			/* of ls | wc on srcdir */
static struct wc sdet_obj[NSRC];	/* sdet's object of f<i>.c */
static struct wc *kb_obj;		/* kbuild's object of unit i */

struct ldirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/*
 * rm -r, async-signal-safe (the -T handler calls it): raw getdents64, no
 * malloc, paths on the stack.  No unlinkat on 2.6.3: full paths.  The
 * directory is read again after removing from it, as entries removed
 * while it is read may make getdents skip others.
 */
static int rm_tree(const char *path, int depth)
{
	char buf[2048] __attribute__((aligned(8)));
	char sub[512];
	struct ldirent64 *d;
	size_t pl = strlen(path), nl;
	int fd, pass, off;
	long n;

	if (unlink(path) == 0 || errno == ENOENT)
		return 0;
	if ((errno != EISDIR && errno != EPERM) || depth > 4)
		return -1;
	for (pass = 0; pass < 4; pass++) {
		fd = open(path, O_RDONLY | O_DIRECTORY);
		if (fd < 0)
			return errno == ENOENT ? 0 : -1;
		while ((n = syscall(SYS_getdents64, fd, buf,
				    sizeof(buf))) > 0) {
			for (off = 0; off < n; off += d->d_reclen) {
				d = (struct ldirent64 *)(buf + off);
				if (!strcmp(d->d_name, ".") ||
				    !strcmp(d->d_name, ".."))
					continue;
				nl = strlen(d->d_name);
				if (pl + nl + 2 > sizeof(sub))
					continue;
				memcpy(sub, path, pl);
				sub[pl] = '/';
				memcpy(sub + pl + 1, d->d_name, nl + 1);
				rm_tree(sub, depth + 1);
			}
		}
		close(fd);
		if (rmdir(path) == 0 || errno == ENOENT)
			return 0;
	}
	return -1;
}

/* the users' and the make's process groups, for the -T handler */
static volatile pid_t groups[MAX_USERS + 1];
static volatile int ngroups;

static const int fatal_sigs[] = { SIGALRM, SIGTERM, SIGINT, SIGHUP };
static struct sigaction lib_sa[VM_ARRAY_SIZE(fatal_sigs)];

/*
 * In front of the library's timeout handler: kill the process groups
 * (the commands are the users' children, not ours), reap the leaders,
 * give the commands up to 2 s to be gone (a command in open(O_CREAT)
 * still creates its file after SIGKILL), remove our directory, then let
 * the library print the timeout and the KTAP lines and exit.
 */
static void on_fatal(int sig)
{
	unsigned int i;
	int t, k, alive;

	if (!vm_is_child && top[0]) {
		for (k = 0; k < ngroups; k++)
			if (groups[k] > 0)
				kill(-groups[k], SIGKILL);
		vm_kill_all();
		for (t = 0; t < 200; t++) {
			alive = 0;
			for (k = 0; k < ngroups; k++)
				if (groups[k] > 0 && kill(-groups[k], 0) == 0)
					alive = 1;
			if (!alive)
				break;
			vm_sleep_ms(10);
		}
		rm_tree(top, 0);
	}
	for (i = 0; i < VM_ARRAY_SIZE(fatal_sigs); i++) {
		if (fatal_sigs[i] == sig &&
		    lib_sa[i].sa_handler != SIG_DFL &&
		    lib_sa[i].sa_handler != SIG_IGN)
			lib_sa[i].sa_handler(sig);
	}
	_exit(1);
}

static void install_handlers(void)
{
	struct sigaction sa;
	unsigned int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fatal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < VM_ARRAY_SIZE(fatal_sigs); i++)
		sigaddset(&sa.sa_mask, fatal_sigs[i]);
	for (i = 0; i < VM_ARRAY_SIZE(fatal_sigs); i++)
		sigaction(fatal_sigs[i], &sa, &lib_sa[i]);
}

static int write_file(const char *path, const void *buf, size_t len)
{
	int fd, rc;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		ktap_diag("open %s: %s", path, strerror(errno));
		return -1;
	}
	rc = vm_write_all(fd, buf, len);
	if (rc)
		ktap_diag("write %s: %s", path, strerror(errno));
	if (close(fd) != 0 && !rc) {
		ktap_diag("close %s: %s", path, strerror(errno));
		rc = -1;
	}
	return rc;
}

static int make_dir(const char *path)
{
	if (mkdir(path, 0700) == 0)
		return 0;
	ktap_diag("mkdir %s: %s", path, strerror(errno));
	return -1;
}

static int write_libs(void)
{
	static uint32_t blk[16 * VM_BLK_WORDS];
	char path[512];
	size_t nblk, b, j;
	int l, fd;

	for (l = 0; l < NLIB; l++) {
		snprintf(path, sizeof(path), "%s/lib%d.so", libdir, l);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0) {
			ktap_diag("open %s: %s", path, strerror(errno));
			return -1;
		}
		nblk = (size_t)lib_kb[l] * 1024 / VM_BLK;
		for (b = 0; b < nblk; b += 16) {
			for (j = 0; j < 16; j++)
				vm_fill_blk(blk + j * VM_BLK_WORDS,
					    LIB_SEED + l, b + j, 0);
			if (vm_write_all(fd, blk, sizeof(blk))) {
				ktap_diag("write %s: %s", path,
					  strerror(errno));
				close(fd);
				return -1;
			}
		}
		if (close(fd) != 0) {
			ktap_diag("close %s: %s", path, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* the libraries must still hold what was written: private writes stay */
static int libs_intact(void)
{
	static uint32_t blk[VM_BLK_WORDS];
	uint32_t exp, got;
	char path[512];
	size_t nblk, b;
	long bad;
	int l, fd, rc = 0;

	for (l = 0; l < NLIB && !rc; l++) {
		snprintf(path, sizeof(path), "%s/lib%d.so", libdir, l);
		fd = open(path, O_RDONLY);
		if (fd < 0) {
			ktap_diag("open %s: %s", path, strerror(errno));
			return -1;
		}
		nblk = (size_t)lib_kb[l] * 1024 / VM_BLK;
		for (b = 0; b < nblk; b++) {
			if (vm_pread_all(fd, blk, VM_BLK, (off_t)b * VM_BLK)) {
				ktap_diag("read %s: %s", path,
					  strerror(errno));
				rc = -1;
				break;
			}
			if (vm_check_blk(blk, LIB_SEED + l, b, 0, &bad, &exp,
					 &got)) {
				ktap_diag("%s changed: block %lu word %ld "
					  "expected 0x%08x got 0x%08x", path,
					  (unsigned long)b, bad, exp, got);
				rc = -1;
				break;
			}
		}
		close(fd);
	}
	return rc;
}

/* a kbuild unit: its source, its headers, its heap */
static void kb_unit(long u, int *src, int *hdr, uint32_t *nblk)
{
	int j;

	*src = (int)(u % NSRC);
	for (j = 0; j < KB_HDRS; j++)
		hdr[j] = NSRC + (int)((u + 3 * j) % NHDR);
	*nblk = 256 + vm_pat_base(0xcb, (uint64_t)u, 0) % 769;	/* 1-4 MB */
}

static void expect_obj(struct wc *w, uint32_t unit, const int *files, int n,
		       uint32_t nblk)
{
	static struct out o;
	char *text[8];
	size_t len[8];
	int i;

	for (i = 0; i < n; i++) {
		text[i] = srcs[files[i]].text;
		len[i] = srcs[files[i]].len;
	}
	out_init(&o, -1, sizeof(o.buf));
	cc_emit(&o, unit, text, len, n, nblk, NULL);
	*w = o.wc;
}

/* libraries, sources and directories, and what the commands must print */
static int setup(long users)
{
	static struct out o;
	char path[512], line[64], *copy;
	int i, p, fd, f[2];
	long u;
	size_t want;
	void *m;

	snprintf(libdir, sizeof(libdir), "%s/lib", top);
	snprintf(srcdir, sizeof(srcdir), "%s/src", top);
	snprintf(objdir, sizeof(objdir), "%s/obj", top);
	if (make_dir(top) || make_dir(libdir) || make_dir(srcdir) ||
	    make_dir(objdir))
		return -1;
	for (u = 0; u < users; u++) {
		snprintf(path, sizeof(path), "%s/u%ld", top, u);
		if (make_dir(path))
			return -1;
	}
	if (write_libs())
		return -1;

	for (i = 0; i < NFILE; i++) {
		struct src *s = &srcs[i];

		if (i < NSRC) {
			snprintf(s->name, sizeof(s->name), "f%02d.c", i);
			want = 1024 + vm_pat_base(0x5c, i, 0) % 7168;
		} else {
			snprintf(s->name, sizeof(s->name), "h%02d.h",
				 i - NSRC);
			want = 1024 + vm_pat_base(0x5c, i, 0) % 3072;
		}
		s->text = malloc(want + 256);
		copy = malloc(want + 256);
		if (!s->text || !copy) {
			ktap_diag("out of memory");
			free(copy);
			return -1;
		}
		s->len = gen_text(s->text, want, vm_pat_base(0x7e47, i, 0));
		snprintf(path, sizeof(path), "%s/%.15s", srcdir, s->name);
		if (write_file(path, s->text, s->len)) {
			free(copy);
			return -1;
		}
		memset(&s->wc, 0, sizeof(s->wc));
		wc_add(&s->wc, s->text, s->len);
		memcpy(copy, s->text, s->len);
		ed_text(copy, s->len);
		memset(&s->ed, 0, sizeof(s->ed));
		wc_add(&s->ed, copy, s->len);
		free(copy);
		for (p = 0; p < NPAT; p++) {
			out_init(&o, -1, sizeof(o.buf));
			grep_text(&o, s->text, s->len, pats[p]);
			s->grep[p] = o.wc;
		}
		/* ls's line for it: the names are made in ls's order */
		snprintf(line, sizeof(line), "%.15s %lu\n", s->name,
			 (unsigned long)s->len);
		wc_add(&ls_wc, line, strlen(line));
	}
	for (i = 0; i < NSRC; i++) {
		f[0] = i;
		f[1] = NSRC + i % NHDR;
		expect_obj(&sdet_obj[i], i, f, 2, SDET_CC_BLKS);
	}

	/* a noexec mount refuses PROT_EXEC: map the libraries without */
	snprintf(path, sizeof(path), "%s/lib0.so", libdir);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		ktap_diag("open %s: %s", path, strerror(errno));
		return -1;
	}
	m = mmap(NULL, VM_BLK, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED) {
		ktap_diag("PROT_EXEC mapping in %s refused (%s): the libraries "
			  "are mapped PROT_READ only", top, strerror(errno));
		prot = "r";
	} else {
		munmap(m, VM_BLK);
	}
	close(fd);
	return 0;
}

/* ------------------------------------------------------------------ */
/* the shell side                                                       */

/* a user's or the make's counts, in shared memory */
struct stats {
	uint32_t done;		/* scripts or units */
	uint32_t failed;	/* of which failed */
	uint32_t commands;	/* commands reaped */
	uint32_t cmd_failed;	/* of which exited non-zero */
	uint32_t cmd_signaled;	/* of which a signal killed */
	uint32_t linked;	/* the make's link and its check passed */
	uint32_t link_bytes;	/* what it wrote */
	uint32_t nerr;
	char err[3][200];
};

static char ctx[48];		/* the script or unit, for messages */
static char *const no_env[] = { NULL };
static int quiet_fd = -1;	/* the commands' stderr after 3 errors */

static void sh_err(struct stats *st, const char *fmt, ...) VM_PRINTF(2, 3);
static void sh_err(struct stats *st, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (st->nerr < VM_ARRAY_SIZE(st->err)) {
		n = snprintf(st->err[st->nerr], sizeof(st->err[0]), "%s: ",
			     ctx);
		va_start(ap, fmt);
		vsnprintf(st->err[st->nerr] + n, sizeof(st->err[0]) - n, fmt,
			  ap);
		va_end(ap);
	}
	/*
	 * The first messages are kept: on a kernel that breaks every
	 * command, the rest of the commands' stderr goes to a file (removed
	 * with the others), not to the console.
	 */
	if (++st->nerr == VM_ARRAY_SIZE(st->err) && quiet_fd < 0) {
		char path[512];

		snprintf(path, sizeof(path), "%s/stderr.%d", top,
			 (int)getpid());
		quiet_fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (quiet_fd >= 0)
			fcntl(quiet_fd, F_SETFD, FD_CLOEXEC);
	}
}

struct cmd {
	char *av[MAX_AV];
};

/* this binary in command mode: NAME ARGS..., NULL-terminated */
static void mkcmd(struct cmd *c, const char *name, ...)
{
	va_list ap;
	char *a;
	int n = 0;

	c->av[n++] = self;
	c->av[n++] = "-X";
	c->av[n++] = libdir;
	c->av[n++] = (char *)prot;
	c->av[n++] = (char *)name;
	va_start(ap, name);
	while ((a = va_arg(ap, char *)) && n < MAX_AV - 1)
		c->av[n++] = a;
	va_end(ap);
	c->av[n] = NULL;
}

/* no O_CLOEXEC, no pipe2 on 2.6.3: the flag is set after the fact */
static int pipe_cloexec(int p[2])
{
	if (pipe(p) != 0)
		return -1;
	fcntl(p[0], F_SETFD, FD_CLOEXEC);
	fcntl(p[1], F_SETFD, FD_CLOEXEC);
	return 0;
}

/*
 * fork + execve, stdin from @in and stdout to @out when >= 0: dup2 makes
 * those two inheritable, every other pipe end is close-on-exec.  The
 * command dies with its shell, so that -T, which kills the shell's
 * process group, leaves nothing running.
 */
static pid_t spawn(struct cmd *c, int in, int out)
{
	pid_t parent = getpid(), pid;
	char msg[600];
	int n;

	pid = fork();
	if (pid != 0)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (getppid() != parent)
		_exit(126);
	if ((in >= 0 && dup2(in, 0) < 0) || (out >= 0 && dup2(out, 1) < 0) ||
	    (quiet_fd >= 0 && dup2(quiet_fd, 2) < 0))
		_exit(126);
	execve(self, c->av, no_env);
	n = snprintf(msg, sizeof(msg), "# shell_load: execve %s: %s\n", self,
		     strerror(errno));
	n = write(2, msg, VM_MIN(n, (int)sizeof(msg) - 1));
	(void)n;
	_exit(127);
}

static int check_status(struct stats *st, int s, const char *what)
{
	st->commands++;
	if (WIFSIGNALED(s)) {
		st->cmd_signaled++;
		sh_err(st, "%s killed by signal %d", what, WTERMSIG(s));
		return -1;
	}
	if (!WIFEXITED(s) || WEXITSTATUS(s)) {
		st->cmd_failed++;
		sh_err(st, "%s exited with %d", what,
		       WIFEXITED(s) ? WEXITSTATUS(s) : -1);
		return -1;
	}
	return 0;
}

static int reap(struct stats *st, pid_t pid, const char *what)
{
	pid_t r;
	int s;

	do {
		r = waitpid(pid, &s, 0);
	} while (r < 0 && errno == EINTR);
	if (r < 0) {
		sh_err(st, "waitpid %s: %s", what, strerror(errno));
		return -1;
	}
	return check_status(st, s, what);
}

/* read a command's output to EOF: at most @cap - 1 bytes kept */
static int read_out(int fd, char *out, size_t cap)
{
	size_t len = 0;
	char junk[512];
	ssize_t n;
	int over = 0;

	for (;;) {
		if (len < cap - 1)
			n = read(fd, out + len, cap - 1 - len);
		else
			n = read(fd, junk, sizeof(junk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (len < cap - 1)
			len += n;
		else
			over = 1;
	}
	out[len] = '\0';
	return n < 0 || over ? -1 : 0;
}

/*
 * Run @n commands connected by pipes, as a shell runs "a | b | c"; the
 * last one's output comes back in @out (NUL-terminated) if given, else
 * it goes to our stdout.  Every command started is reaped here.  0 if all
 * exited 0 and the output was read.
 */
static int run(struct stats *st, struct cmd *c, int n, char *out,
	       size_t cap)
{
	pid_t pids[4];
	int i, k, in = -1, wr, p[2], rc = 0;

	for (i = 0; i < n; i++) {
		p[0] = p[1] = -1;
		if ((i < n - 1 || out) && pipe_cloexec(p) != 0) {
			sh_err(st, "pipe: %s", strerror(errno));
			rc = -1;
			break;
		}
		wr = p[1];
		pids[i] = spawn(&c[i], in, wr);
		if (in >= 0)
			close(in);
		if (wr >= 0)
			close(wr);
		in = p[0];
		if (pids[i] < 0) {
			sh_err(st, "fork: %s", strerror(errno));
			rc = -1;
			break;
		}
	}
	if (out) {
		out[0] = '\0';
		if (!rc && read_out(in, out, cap)) {
			sh_err(st, "%s: reading its output failed",
			       c[n - 1].av[4]);
			rc = -1;
		}
	}
	if (in >= 0)
		close(in);
	for (k = 0; k < i; k++)
		if (reap(st, pids[k], c[k].av[4]))
			rc = -1;
	return rc;
}

static int check_wc(struct stats *st, const char *out, const struct wc *want,
		    const char *what)
{
	char w[80];
	struct wc got;

	if (!wc_parse(out, &got) && wc_same(&got, want))
		return 0;
	wc_fmt(w, sizeof(w), want);
	w[strcspn(w, "\n")] = '\0';
	sh_err(st, "%s printed \"%.*s\", want \"%s\"", what,
	       (int)strcspn(out, "\n"), out, w);
	return -1;
}

/*
 * Script @i: which files it works on follows from @i alone.  Every step
 * runs even after one failed, so a script always runs its commands.
 */
static int script(struct stats *st, int u, long i)
{
	int f = (int)((i * 13 + 5) % NSRC);	/* copied, edited, compiled */
	int g = (int)((i * 7 + 3) % NFILE);	/* grepped */
	int pat = (int)(i % NPAT), h = NSRC + f % NHDR, bad = 0;
	char fpath[512], gpath[512], hpath[512], work[512], obj[512];
	char tag[64], num[24], unit[16], nblk[16], out[OUT_MAX];
	struct cmd c[3];
	struct wc want;

	snprintf(fpath, sizeof(fpath), "%s/%s", srcdir, srcs[f].name);
	snprintf(gpath, sizeof(gpath), "%s/%s", srcdir, srcs[g].name);
	snprintf(hpath, sizeof(hpath), "%s/%s", srcdir, srcs[h].name);
	snprintf(work, sizeof(work), "%s/u%d/work.c", top, u);
	snprintf(obj, sizeof(obj), "%s/u%d/work.o", top, u);
	snprintf(num, sizeof(num), "%ld", i);
	snprintf(unit, sizeof(unit), "%d", f);
	snprintf(nblk, sizeof(nblk), "%d", SDET_CC_BLKS);

	mkcmd(&c[0], "cat", fpath, NULL);
	mkcmd(&c[1], "wc", NULL);
	if (run(st, c, 2, out, sizeof(out)) ||
	    check_wc(st, out, &srcs[f].wc, "cat | wc"))
		bad++;

	mkcmd(&c[0], "cat", gpath, NULL);
	mkcmd(&c[1], "grep", pats[pat], NULL);
	mkcmd(&c[2], "wc", NULL);
	if (run(st, c, 3, out, sizeof(out)) ||
	    check_wc(st, out, &srcs[g].grep[pat], "cat | grep | wc"))
		bad++;

	mkcmd(&c[0], "ls", srcdir, NULL);
	mkcmd(&c[1], "wc", NULL);
	if (run(st, c, 2, out, sizeof(out)) ||
	    check_wc(st, out, &ls_wc, "ls | wc"))
		bad++;

	mkcmd(&c[0], "cp", fpath, work, NULL);
	if (run(st, c, 1, NULL, 0))
		bad++;
	mkcmd(&c[0], "ed", work, num, NULL);
	if (run(st, c, 1, NULL, 0))
		bad++;
	/* what ed wrote: the edited file and its tag line */
	want = srcs[f].ed;
	snprintf(tag, sizeof(tag), ED_TAG, i);
	wc_add(&want, tag, strlen(tag));
	mkcmd(&c[0], "wc", work, NULL);
	if (run(st, c, 1, out, sizeof(out)) ||
	    check_wc(st, out, &want, "wc of the edited file"))
		bad++;

	mkcmd(&c[0], "cc", unit, nblk, obj, fpath, hpath, NULL);
	if (run(st, c, 1, out, sizeof(out)) ||
	    check_wc(st, out, &sdet_obj[f], "cc"))
		bad++;
	mkcmd(&c[0], "wc", obj, NULL);
	if (run(st, c, 1, out, sizeof(out)) ||
	    check_wc(st, out, &sdet_obj[f], "wc of the object"))
		bad++;

	mkcmd(&c[0], "rm", work, obj, NULL);
	if (run(st, c, 1, NULL, 0))
		bad++;
	if (access(work, F_OK) == 0 || access(obj, F_OK) == 0) {
		sh_err(st, "rm left %s or %s", work, obj);
		bad++;
	}
	return bad ? -1 : 0;
}

static void user_main(struct stats *st, int u, long users, long n,
		      int prog_fd)
{
	long i;

	for (i = u; i < n; i += users) {
		snprintf(ctx, sizeof(ctx), "user %d script %ld", u, i);
		if (script(st, u, i))
			st->failed++;
		st->done++;
		/* one byte per script: the parent's progress, and its EOF */
		if (write(prog_fd, "s", 1) != 1)
			sh_err(st, "progress pipe: %s", strerror(errno));
	}
	_exit(0);
}

struct kslot {
	pid_t pid;
	int fd;
	long unit;
};

static int start_unit(struct stats *st, long u, struct kslot *ks)
{
	char unit[24], nblk[16], obj[512];
	char path[1 + KB_HDRS][512];
	int src, hdr[KB_HDRS], j, p[2];
	uint32_t nb;
	struct cmd c;

	kb_unit(u, &src, hdr, &nb);
	snprintf(unit, sizeof(unit), "%ld", u);
	snprintf(nblk, sizeof(nblk), "%u", nb);
	snprintf(obj, sizeof(obj), "%s/%ld.o", objdir, u);
	snprintf(path[0], sizeof(path[0]), "%s/%s", srcdir, srcs[src].name);
	for (j = 0; j < KB_HDRS; j++)
		snprintf(path[1 + j], sizeof(path[0]), "%s/%s", srcdir,
			 srcs[hdr[j]].name);
	mkcmd(&c, "cc", unit, nblk, obj, path[0], path[1], path[2], path[3],
	      NULL);
	if (pipe_cloexec(p) != 0) {
		sh_err(st, "pipe: %s", strerror(errno));
		return -1;
	}
	ks->pid = spawn(&c, -1, p[1]);
	close(p[1]);
	if (ks->pid < 0) {
		sh_err(st, "fork: %s", strerror(errno));
		close(p[0]);
		return -1;
	}
	ks->fd = p[0];
	ks->unit = u;
	return 0;
}

/* the link, and wc of what it wrote, checked against the objects */
static void link_check(struct stats *st, struct wc *got, long k)
{
	char kstr[24], out[OUT_MAX], vmlinux[512];
	struct wc sum, linked;
	struct cmd c;
	long u;

	snprintf(ctx, sizeof(ctx), "link");
	snprintf(kstr, sizeof(kstr), "%ld", k);
	snprintf(vmlinux, sizeof(vmlinux), "%s/vmlinux", top);
	mkcmd(&c, "link", objdir, kstr, vmlinux, NULL);
	if (run(st, &c, 1, out, sizeof(out)))
		return;
	if (wc_parse(out, &linked)) {
		sh_err(st, "link printed \"%.*s\"", (int)strcspn(out, "\n"),
		       out);
		return;
	}
	memset(&sum, 0, sizeof(sum));
	for (u = 0; u < k; u++)
		ck_cat(&sum, &got[u]);
	if (!ck_same(&sum, &linked)) {
		sh_err(st, "link wrote %u bytes sums %08x %08x, the objects "
		       "add up to %u bytes %08x %08x", linked.bytes, linked.s1,
		       linked.s2, sum.bytes, sum.s1, sum.s2);
		return;
	}
	snprintf(ctx, sizeof(ctx), "wc vmlinux");
	mkcmd(&c, "wc", vmlinux, NULL);
	if (run(st, &c, 1, out, sizeof(out)) ||
	    check_wc(st, out, &linked, "wc of the link's output"))
		return;
	st->linked = 1;
	st->link_bytes = linked.bytes;
}

/*
 * make -j: up to @jobs cc at a time, the next started as one ends; like
 * make it stops starting units at the first failure.  Then the link.
 */
static void make_main(struct stats *st, struct wc *got, long k, long jobs,
		      int prog_fd)
{
	struct kslot ks[MAX_JOBS];
	char out[OUT_MAX];
	int running = 0, stop = 0, i, s;
	long next = 0;
	pid_t pid;

	for (i = 0; i < jobs; i++)
		ks[i].pid = 0;
	while ((next < k && !stop) || running) {
		for (i = 0; i < jobs && next < k && !stop; i++) {
			if (ks[i].pid)
				continue;
			snprintf(ctx, sizeof(ctx), "unit %ld", next);
			if (start_unit(st, next, &ks[i])) {
				ks[i].pid = 0;
				stop = 1;
				break;
			}
			next++;
			running++;
		}
		if (!running)
			break;
		do {
			pid = waitpid(-1, &s, 0);
		} while (pid < 0 && errno == EINTR);
		if (pid < 0) {
			sh_err(st, "waitpid: %s", strerror(errno));
			stop = 1;
			break;
		}
		for (i = 0; i < jobs; i++)
			if (ks[i].pid == pid)
				break;
		if (i == jobs)
			continue;
		snprintf(ctx, sizeof(ctx), "unit %ld", ks[i].unit);
		/* it has exited: its line is in the pipe, then EOF */
		if (read_out(ks[i].fd, out, sizeof(out))) {
			sh_err(st, "cc: reading its output failed");
			st->failed++;
			stop = 1;
		} else if (check_status(st, s, "cc") ||
			   check_wc(st, out, &kb_obj[ks[i].unit], "cc")) {
			st->failed++;
			stop = 1;
		} else {
			wc_parse(out, &got[ks[i].unit]);
		}
		close(ks[i].fd);
		ks[i].pid = 0;
		running--;
		st->done++;
		if (write(prog_fd, "u", 1) != 1)
			sh_err(st, "progress pipe: %s", strerror(errno));
	}
	if (!stop && next == k)
		link_check(st, got, k);
	_exit(0);
}

/* ------------------------------------------------------------------ */
/* the parent: start the groups, follow, reap, report                   */

struct result {
	uint32_t done, failed, commands, cmd_failed, cmd_signaled, nerr;
	double ms;
	struct rusage ru;
	int ok;
};

/* the children's progress bytes until they all closed the pipe */
static long follow(int fd, long total, const char *what)
{
	char buf[256];
	long done = 0;
	ssize_t n;

	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += n;
		vm_progress("%s: %ld of %ld done", what, done, total);
	}
	return done;
}

/*
 * Fork @n children, each the leader of a process group of its own (so
 * that -T can kill their commands too), run @fn in each; follow their
 * progress bytes and reap them.  Timed from the first fork to the last
 * reap.
 */
static void run_groups(const char *what, int n, long total,
		       void (*fn)(int idx, struct stats *st, int prog_fd),
		       struct stats *st, struct result *r)
{
	pid_t pids[MAX_USERS + 1];
	int pfd[2], i, started = 0, s, e;
	struct rusage ru;
	double t0;

	memset(r, 0, sizeof(*r));
	r->ok = 1;
	if (pipe_cloexec(pfd) != 0) {
		ktap_diag("%s: pipe: %s", what, strerror(errno));
		r->ok = 0;
		return;
	}
	t0 = vm_now_ms();
	for (i = 0; i < n; i++) {
		pid_t pid = vm_fork();

		if (pid == 0) {
			close(pfd[0]);
			setpgid(0, 0);
			fn(i, &st[i], pfd[1]);
			_exit(0);
		}
		if (pid < 0) {
			ktap_diag("%s: fork: %s", what, strerror(errno));
			r->ok = 0;
			break;
		}
		/* also here: no window in which -T misses the group */
		setpgid(pid, pid);
		groups[ngroups++] = pid;
		pids[started++] = pid;
	}
	close(pfd[1]);
	follow(pfd[0], total, what);
	close(pfd[0]);
	for (i = 0; i < started; i++) {
		memset(&ru, 0, sizeof(ru));
		if (vm_wait(pids[i], &s, &ru) != 0) {
			ktap_diag("%s: wait: %s", what, strerror(errno));
			r->ok = 0;
			continue;
		}
		vm_rusage_add(&r->ru, &ru);
		if (!WIFEXITED(s) || WEXITSTATUS(s)) {
			ktap_diag("%s: child %d ended with status 0x%x", what,
				  i, s);
			r->ok = 0;
		}
	}
	r->ms = vm_now_ms() - t0;
	ngroups = 0;
	for (i = 0; i < n; i++) {
		r->done += st[i].done;
		r->failed += st[i].failed;
		r->commands += st[i].commands;
		r->cmd_failed += st[i].cmd_failed;
		r->cmd_signaled += st[i].cmd_signaled;
		r->nerr += st[i].nerr;
		for (e = 0; e < (int)VM_MIN(st[i].nerr, 3u); e++)
			ktap_diag("%s: %s", what, st[i].err[e]);
	}
}

/* @done_key: what r->done counts; @hour_key: what @per_hour counts */
static void figures(const char *pfx, const char *done_key,
		    const char *hour_key, double per_hour,
		    const struct result *r)
{
	char k[64];

	snprintf(k, sizeof(k), "%s_%s", pfx, done_key);
	vm_fig_i(k, r->done, "count");
	snprintf(k, sizeof(k), "%s_commands", pfx);
	vm_fig_i(k, r->commands, "count");
	snprintf(k, sizeof(k), "%s_elapsed_ms", pfx);
	vm_fig_f(k, r->ms, "ms");
	snprintf(k, sizeof(k), "%s_%s_per_hour", pfx, hour_key);
	vm_fig_f(k, per_hour, "per_hour");
	snprintf(k, sizeof(k), "%s_commands_per_s", pfx);
	vm_fig_f(k, r->ms > 0 ? r->commands * 1000.0 / r->ms : 0, "per_s");
	snprintf(k, sizeof(k), "%s_utime_ms", pfx);
	vm_fig_f(k, r->ru.ru_utime.tv_sec * 1e3 +
		 r->ru.ru_utime.tv_usec / 1e3, "ms");
	snprintf(k, sizeof(k), "%s_stime_ms", pfx);
	vm_fig_f(k, r->ru.ru_stime.tv_sec * 1e3 +
		 r->ru.ru_stime.tv_usec / 1e3, "ms");
	snprintf(k, sizeof(k), "%s_minflt", pfx);
	vm_fig_i(k, r->ru.ru_minflt, "count");
	snprintf(k, sizeof(k), "%s_majflt", pfx);
	vm_fig_i(k, r->ru.ru_majflt, "count");
	snprintf(k, sizeof(k), "%s_failed_commands", pfx);
	vm_fig_i(k, r->cmd_failed + r->cmd_signaled, "count");
}

static long g_users, g_scripts, g_units, g_jobs;
static struct wc *kb_got;

static void sdet_child(int idx, struct stats *st, int prog_fd)
{
	user_main(st, idx, g_users, g_scripts, prog_fd);
}

static void kbuild_child(int idx, struct stats *st, int prog_fd)
{
	(void)idx;
	make_main(st, kb_got, g_units, g_jobs, prog_fd);
}

static void *shared(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		ktap_diag("mmap %lu shared bytes: %s", (unsigned long)bytes,
			  strerror(errno));
		return NULL;
	}
	memset(p, 0, bytes);
	return p;
}

static void test_sdet(void)
{
	size_t bytes = sizeof(struct stats) * g_users;
	struct stats *st;
	struct result r;
	int ok;

	vm_phase("sdet");
	st = shared(bytes);
	if (!st) {
		ktap_fail(names[T_SDET], "no shared memory");
		return;
	}
	run_groups("sdet", (int)g_users, g_scripts, sdet_child, st, &r);
	figures("sdet", "scripts", "scripts",
		r.ms > 0 ? r.done * 3600000.0 / r.ms : 0, &r);
	ok = r.ok && r.done == (uint32_t)g_scripts && !r.failed && !r.nerr &&
	     r.commands == (uint32_t)(g_scripts * CMDS_PER_SCRIPT);
	if (libs_intact())
		ok = 0;
	ktap_result(ok, names[T_SDET], "%u scripts (%u failed), %u commands "
		    "(%u exited non-zero, %u killed by a signal), %u errors",
		    r.done, r.failed, r.commands, r.cmd_failed,
		    r.cmd_signaled, r.nerr);
	munmap(st, bytes);
}

static void test_kbuild(void)
{
	size_t bytes = sizeof(struct stats) + sizeof(struct wc) * g_units;
	uint64_t heap_blks = 0;
	int files[1 + KB_HDRS];
	struct stats *st;
	struct result r;
	uint32_t nblk;
	void *sh;
	long u;
	int ok;

	vm_phase("kbuild");
	kb_obj = calloc(g_units, sizeof(*kb_obj));
	sh = shared(bytes);
	if (!kb_obj || !sh) {
		ktap_fail(names[T_KBUILD], "out of memory");
		free(kb_obj);
		if (sh)
			munmap(sh, bytes);
		return;
	}
	/* what each object must be, before the clock starts */
	for (u = 0; u < g_units; u++) {
		kb_unit(u, &files[0], files + 1, &nblk);
		expect_obj(&kb_obj[u], (uint32_t)u, files, 1 + KB_HDRS, nblk);
		heap_blks += nblk;
	}
	st = sh;
	kb_got = (struct wc *)(st + 1);
	run_groups("kbuild", 1, g_units, kbuild_child, st, &r);
	/* SDET's unit for a build: one script, the whole build */
	figures("kbuild", "units", "builds", r.ms > 0 ? 3600000.0 / r.ms : 0,
		&r);
	vm_fig_i("kbuild_heap_mb", (long long)(heap_blks * VM_BLK / VM_MB),
		 "MB");
	vm_fig_i("kbuild_link_bytes", st->link_bytes, "bytes");
	ok = r.ok && r.done == (uint32_t)g_units && !r.failed && !r.nerr &&
	     st->linked && r.commands == (uint32_t)(g_units + 2);
	if (libs_intact())
		ok = 0;
	ktap_result(ok, names[T_KBUILD], "%u units (%u failed), %u commands "
		    "(%u exited non-zero, %u killed by a signal), %u errors, "
		    "link %s", r.done, r.failed, r.commands, r.cmd_failed,
		    r.cmd_signaled, r.nerr, st->linked ? "checked" : "failed");
	munmap(sh, bytes);
	free(kb_obj);
	kb_obj = NULL;
}

/* argv[0] if it holds a '/' (made absolute), else /proc/self/exe */
static int find_self(const char *argv0)
{
	char cwd[256];
	ssize_t n;

	if (strchr(argv0, '/')) {
		if (argv0[0] == '/') {
			snprintf(self, sizeof(self), "%s", argv0);
		} else {
			if (!getcwd(cwd, sizeof(cwd)))
				return -1;
			snprintf(self, sizeof(self), "%s/%s", cwd, argv0);
		}
	} else {
		n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n > 0)
			self[n] = '\0';
		else
			snprintf(self, sizeof(self), "/proc/self/exe");
	}
	return access(self, X_OK);
}

int main(int argc, char **argv)
{
	long users = 4, nscripts = -1, jobs = -1, units = -1, ncpu;
	const struct vm_opt opts[] = {
		{ 'u', VM_OPT_LONG, &users, "N",
		  "sdet: concurrent users (default 4)" },
		{ 'n', VM_OPT_LONG, &nscripts, "N",
		  "sdet: scripts in all, 0 skips (default 2 * mem, at "
		  "most 2048)" },
		{ 'j', VM_OPT_LONG, &jobs, "N",
		  "kbuild: compiles at a time (default 2 * CPUs)" },
		{ 'k', VM_OPT_LONG, &units, "N",
		  "kbuild: compile units, 0 skips (default mem, at most "
		  "1024)" },
		{ 0, 0, NULL, NULL, NULL },
	};
	struct stat st;
	int i, ok, set_ok = 0;
	long lib_total;

	/* command mode: no options, no KTAP, no alarm */
	if (argc >= 2 && !strcmp(argv[1], "-X"))
		return cmd_main(argc - 2, argv + 2);

	/* a 1 GB guest under -icount takes some 20 minutes */
	vm_init("shell_load", argc, argv, opts, summary, 1800);
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu < 1)
		ncpu = 1;
	/*
	 * About 35 s of scripts and 7 s of build in a 256 MB UP guest under
	 * TCG (~5 ms a command).  The work is CPU and process starts, not
	 * memory: past 1 GB it stops growing.
	 */
	if (nscripts < 0)
		nscripts = 2 * VM_MIN(vm_cfg.mem_mb, 1024L);
	if (units < 0)
		units = VM_MIN(vm_cfg.mem_mb, 1024L);
	if (jobs < 0)
		jobs = VM_MIN(2 * ncpu, (long)MAX_JOBS);
	if (users < 1 || users > MAX_USERS || jobs < 1 || jobs > MAX_JOBS ||
	    nscripts > 10000000 || units > 1000000) {
		fprintf(stderr, "shell_load: -u 1..%d, -j 1..%d, -n up to "
			"10000000, -k up to 1000000\n", MAX_USERS, MAX_JOBS);
		return 1;
	}
	g_users = users;
	g_scripts = nscripts;
	g_jobs = jobs;
	g_units = units;

	ktap_header(T_N);
	ktap_names(names);
	vm_fig_i("mem_mb", vm_cfg.mem_mb, "MB");
	vm_fig_i("cpus", ncpu, "count");
	vm_fig_i("users", users, "count");
	vm_fig_i("scripts_planned", nscripts, "count");
	vm_fig_i("commands_per_script", CMDS_PER_SCRIPT, "count");
	vm_fig_i("jobs", jobs, "count");
	vm_fig_i("units_planned", units, "count");
	vm_fig_i("lib_files", NLIB, "count");
	for (i = 0, lib_total = 0; i < NLIB; i++)
		lib_total += lib_kb[i];
	vm_fig_i("lib_kb", lib_total, "kB");
	vm_fig_i("src_files", NFILE, "count");

	vm_phase("setup");
	if (find_self(argv[0]) != 0) {
		ktap_diag("cannot find this binary to execve (%s): %s", self,
			  strerror(errno));
	} else if (strlen(vm_cfg.dir) > 300) {
		ktap_diag("-d %s: too long", vm_cfg.dir);
	} else {
		snprintf(top, sizeof(top), "%s/vmshm_shell.%d", vm_cfg.dir,
			 (int)getpid());
		install_handlers();
		ktap_diag("files in %s, commands: %s -X", top, self);
		set_ok = setup(users) == 0;
	}

	if (!nscripts)
		ktap_skip(names[T_SDET], "-n 0");
	else if (!set_ok)
		ktap_fail(names[T_SDET], "setup failed");
	else
		test_sdet();
	if (!units)
		ktap_skip(names[T_KBUILD], "-k 0");
	else if (!set_ok)
		ktap_fail(names[T_KBUILD], "setup failed");
	else
		test_kbuild();

	vm_phase("cleanup");
	ok = vm_nchildren() == 0;
	vm_kill_all();
	if (top[0] && rm_tree(top, 0) != 0) {
		ktap_diag("could not remove %s: %s", top, strerror(errno));
		ok = 0;
	}
	if (top[0] && lstat(top, &st) == 0) {
		ktap_diag("%s still exists", top);
		ok = 0;
	}
	ktap_result(ok, names[T_CLEANUP], NULL);
	ktap_exit();
}
