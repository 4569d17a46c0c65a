// SPDX-License-Identifier: GPL-2.0
/* Result tables (text, Markdown, tidy CSV), statistics over runs, cell formats, system helpers. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

void table_init(struct table *t, const char *id, const char *title, int name_cols,
		const char *const *cols)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->id, sizeof(t->id), "%s", id);
	snprintf(t->title, sizeof(t->title), "%s", title);
	t->name_cols = name_cols;
	while (cols[t->ncols] && t->ncols < BT_COLS) {
		snprintf(t->col[t->ncols], BT_CELL, "%s", cols[t->ncols]);
		t->ncols++;
	}
}

void table_add(struct table *t, const char *const *cells)
{
	int i;

	if (t->nrows == t->cap) {
		int cap = t->cap ? t->cap * 2 : 16;
		struct bt_row *rows = realloc(t->rows, cap * sizeof(*rows));

		if (!rows)
			return;	/* a lost row, not a crash: the table says less */
		t->rows = rows;
		t->cap = cap;
	}
	for (i = 0; i < t->ncols; i++)
		snprintf(t->rows[t->nrows].cell[i], BT_CELL, "%s", cells[i] ? cells[i] : "");
	t->nrows++;
}

void table_note(struct table *t, const char *fmt, ...)
{
	size_t used = strlen(t->notes);
	va_list ap;

	if (used + 2 >= sizeof(t->notes))
		return;
	if (used)
		t->notes[used++] = '\n';
	va_start(ap, fmt);
	vsnprintf(t->notes + used, sizeof(t->notes) - used, fmt, ap);
	va_end(ap);
}

void table_free(struct table *t)
{
	free(t->rows);
	t->rows = NULL;
	t->nrows = t->cap = 0;
}

/* Display width: UTF-8 continuation bytes take no column. */
static int width_of(const char *s)
{
	int w = 0;

	for (; *s; s++)
		if ((*s & 0xc0) != 0x80)
			w++;
	return w;
}

static void pad(FILE *f, const char *s, int width, bool right)
{
	int n = width - width_of(s);

	if (right)
		fprintf(f, "%*s%s", n > 0 ? n : 0, "", s);
	else
		fprintf(f, "%s%*s", s, n > 0 ? n : 0, "");
}

void table_print_text(FILE *f, const struct table *t)
{
	int w[BT_COLS] = { 0 }, i, r;

	for (i = 0; i < t->ncols; i++) {
		w[i] = width_of(t->col[i]);
		for (r = 0; r < t->nrows; r++)
			if (width_of(t->rows[r].cell[i]) > w[i])
				w[i] = width_of(t->rows[r].cell[i]);
	}
	fprintf(f, "\n== %s ==\n", t->title);
	for (i = 0; i < t->ncols; i++) {
		pad(f, t->col[i], w[i], i >= t->name_cols);
		fputs(i + 1 < t->ncols ? "  " : "\n", f);
	}
	for (r = 0; r < t->nrows; r++)
		for (i = 0; i < t->ncols; i++) {
			pad(f, t->rows[r].cell[i], w[i], i >= t->name_cols);
			fputs(i + 1 < t->ncols ? "  " : "\n", f);
		}
	if (t->notes[0])
		fprintf(f, "%s\n", t->notes);
}

static void md_cell(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputs("\\|", f);
		else
			fputc(*s, f);
	}
}

void table_print_md(FILE *f, const struct table *t)
{
	int i, r;

	fprintf(f, "\n### %s\n\n|", t->title);
	for (i = 0; i < t->ncols; i++) {
		fputc(' ', f);
		md_cell(f, t->col[i]);
		fputs(" |", f);
	}
	fputs("\n|", f);
	for (i = 0; i < t->ncols; i++)
		fputs(i < t->name_cols ? " --- |" : " ---: |", f);
	fputc('\n', f);
	for (r = 0; r < t->nrows; r++) {
		fputc('|', f);
		for (i = 0; i < t->ncols; i++) {
			fputc(' ', f);
			md_cell(f, t->rows[r].cell[i]);
			fputs(" |", f);
		}
		fputc('\n', f);
	}
	if (t->notes[0])
		fprintf(f, "\n%s\n", t->notes);
}

static void csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void table_print_csv_header(FILE *f)
{
	fputs("table,row,column,value,min,max\n", f);
}

void table_print_csv(FILE *f, const struct table *t)
{
	int i, r, k;

	for (r = 0; r < t->nrows; r++) {
		char row_name[BT_COLS * BT_CELL] = "";

		for (k = 0; k < t->name_cols; k++) {
			if (k)
				strcat(row_name, " | ");
			strcat(row_name, t->rows[r].cell[k]);
		}
		for (i = t->name_cols; i < t->ncols; i++) {
			const char *c = t->rows[r].cell[i];
			char v[BT_CELL], lo[BT_CELL], hi[BT_CELL], tail;

			csv_field(f, t->id);
			fputc(',', f);
			csv_field(f, row_name);
			fputc(',', f);
			csv_field(f, t->col[i]);
			fputc(',', f);
			/* "med (min-max)": three numbers */
			if (sscanf(c, "%95[0-9.eE+] (%95[0-9.eE+]-%95[0-9.eE+]%c", v, lo, hi,
				   &tail) == 4 && tail == ')') {
				fprintf(f, "%s,%s,%s\n", v, lo, hi);
			} else {
				csv_field(f, c);
				fputs(",,\n", f);
			}
		}
	}
}

/* ---- statistics ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void st3_of(struct st3 *s, const double *v, int n)
{
	double *tmp;

	memset(s, 0, sizeof(*s));
	s->med = s->min = s->max = NAN;
	if (n <= 0)
		return;
	tmp = malloc(n * sizeof(*tmp));
	if (!tmp)
		return;
	memcpy(tmp, v, n * sizeof(*tmp));
	qsort(tmp, n, sizeof(*tmp), cmp_double);
	s->n = n;
	s->min = tmp[0];
	s->max = tmp[n - 1];
	s->med = n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
	free(tmp);
}

const char *st3_fmt(char *buf, size_t size, const struct st3 *s, int decimals)
{
	if (!s->n || isnan(s->med))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.*f (%.*f-%.*f)", decimals, s->med, decimals, s->min,
			 decimals, s->max);
	return buf;
}

const char *ratio_fmt(char *buf, size_t size, double a, double b)
{
	if (isnan(a) || isnan(b) || b <= 0)
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.2fx", a / b);
	return buf;
}

double median_of(const double *v, int n)
{
	struct st3 s;

	st3_of(&s, v, n);
	return s.med;
}

double paired(const double *a, const double *b, int n, bool ratio)
{
	double v[MAX_ROUNDS];
	int i;

	for (i = 0; i < n && i < MAX_ROUNDS; i++)
		v[i] = ratio ? (b[i] > 0 ? a[i] / b[i] : NAN) : a[i] - b[i];
	return median_of(v, i);
}

char *fmtf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return buf;
}

const char *pow10_name(__u32 n, char *buf, size_t size)
{
	int e = 0;
	__u32 m = n;

	while (m >= 10 && m % 10 == 0) {
		m /= 10;
		e++;
	}
	if (m == 1 && e >= 3)
		snprintf(buf, size, "10^%d", e);
	else
		snprintf(buf, size, "%u", n);
	return buf;
}

/* ---- small system helpers ---- */

void bench_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("bench: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

void progress(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("  .. ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

long long mem_available_kb(void)
{
	char line[256];
	long long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %lld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/*
 * The maps of the last step are freed by the kernel after their close (RCU,
 * workqueues): meanwhile that work competes for the CPUs and makes MemAvailable
 * deltas lie. A quarter-second step that frees under 4 MiB is quiet enough.
 */
void settle_memory(void)
{
	long long prev = mem_available_kb(), cur;
	double t0 = now_s();

	for (;;) {
		usleep(250000);
		cur = mem_available_kb();
		if (cur - prev < 4096 || now_s() - t0 > 60)
			break;
		prev = cur;
	}
}

long long map_memlock(int fd)
{
	char path[64], line[256];
	long long bytes = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "memlock: %lld", &bytes) == 1)
			break;
	fclose(f);
	return bytes;
}
