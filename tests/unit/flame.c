/* SPDX-License-Identifier: MIT */
/* Folded stacks into a tree, and the tree as SVG: hand-written inputs
 * whose answers follow from the format (sums, widths, escapes). */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp/report/flame.h"

static struct sp_flame *
parse(const char *text)
{
	struct sp_flame *f = NULL;

	cr_assert_eq(sp_flame_parse(text, strlen(text), &f), 0);
	cr_assert_not_null(f);
	return f;
}

/* Samples of the frame at the ';'-separated path ("" is the root), or
 * UINT64_MAX when there is none. */
static uint64_t
samples(const struct sp_flame *f, const char *path)
{
	char buf[256], *save = NULL, *tok;
	const char *v[32];
	size_t n = 0;
	uint64_t s;

	(void)snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ";", &save); tok != NULL && n < 32;
	    tok = strtok_r(NULL, ";", &save))
		v[n++] = tok;
	return sp_flame_lookup(f, v, n, &s) == 0 ? s : UINT64_MAX;
}

static char *
render(const struct sp_flame *f, const struct sp_flame_svg_opts *o)
{
	char *p = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&p, &len);

	cr_assert_not_null(out);
	cr_assert_eq(sp_flame_svg(f, o, out), 0);
	cr_assert_eq(fclose(out), 0);
	return p;
}

struct box {
	double x, w;
	int y, rgb[3];
};

/* The rectangle of the frame whose title starts with "NAME (". */
static struct box
box_of(const char *svg, const char *name)
{
	char key[256];
	const char *p;
	struct box b;

	(void)snprintf(key, sizeof(key), "<title>%s (", name);
	p = strstr(svg, key);
	cr_assert_not_null(p, "no frame %s", name);
	cr_assert_null(strstr(p + 1, key), "two frames %s", name);
	p = strstr(p, "<rect ");
	cr_assert_not_null(p);
	cr_assert_eq(sscanf(p, "<rect x=\"%lf\" y=\"%d\" width=\"%lf\" "
	    "height=\"15\" fill=\"rgb(%d,%d,%d)\"", &b.x, &b.y, &b.w,
	    &b.rgb[0], &b.rgb[1], &b.rgb[2]), 6, "rect of %s", name);
	return b;
}

static size_t
count(const char *s, const char *what)
{
	size_t n = 0;

	for (; (s = strstr(s, what)) != NULL; s++)
		n++;
	return n;
}

Test(flame, equal_stacks_sum_and_callers_hold_their_callees)
{
	struct sp_flame *f = parse("a;b;c 3\na;b;c 4\na;b 5\na;d 1\n"
	    "x 2\n");

	cr_assert_eq(sp_flame_samples(f), 3 + 4 + 5 + 1 + 2);
	cr_assert_eq(samples(f, "a"), 3 + 4 + 5 + 1);
	cr_assert_eq(samples(f, "a;b"), 3 + 4 + 5);
	cr_assert_eq(samples(f, "a;b;c"), 3 + 4);
	cr_assert_eq(samples(f, "a;d"), 1);
	cr_assert_eq(samples(f, "x"), 2);
	cr_assert_eq(samples(f, "b"), UINT64_MAX, "b only under a");
	cr_assert_eq(sp_flame_frames(f), 5);
	cr_assert_eq(sp_flame_bad_count(f), 0);
	cr_assert_eq(sp_flame_lines(f), 5);
	sp_flame_free(f);
}

Test(flame, every_semicolon_splits_and_backslashes_stay_in_the_name)
{
	/* As flamegraph.pl, inferno and speedscope read them: no escapes. */
	struct sp_flame *f = parse("a;x\\;y;b 2\na;p\\\\;q 1\na;r\\n 4\n"
	    "with spaces;operator() const 5\r\n");
	const char *p1[] = { "a", "x\\", "y", "b" };
	const char *p2[] = { "a", "p\\\\", "q" }, *p3[] = { "a", "r\\n" };
	const char *p4[] = { "with spaces", "operator() const" };
	uint64_t s;

	cr_assert_eq(sp_flame_lookup(f, p1, 4, &s), 0, "\\; splits");
	cr_assert_eq(s, 2);
	cr_assert_eq(sp_flame_lookup(f, p2, 3, &s), 0, "\\\\ kept");
	cr_assert_eq(s, 1);
	cr_assert_eq(sp_flame_lookup(f, p3, 2, &s), 0, "other escapes kept");
	cr_assert_eq(s, 4);
	cr_assert_eq(sp_flame_lookup(f, p4, 2, &s), 0, "blanks in names");
	cr_assert_eq(s, 5);
	cr_assert_eq(sp_flame_frames(f), 1 + 3 + 2 + 1 + 2, "a shared");
	sp_flame_free(f);
}

Test(flame, fractional_counts_add_up_exactly)
{
	struct sp_flame *f = parse("a;b 1.5\na;c 2\na;b 0.25\nd 3.\n"
	    "e 0.1234567891\n");
	char *svg;
	struct sp_flame_svg_opts o;

	cr_assert_eq(sp_flame_bad_count(f), 0);
	cr_assert_eq(sp_flame_decimals(f), 9, "at most 9 decimals");
	cr_assert_eq(sp_flame_samples(f), 6873456789ull);
	cr_assert_eq(samples(f, "a;b"), 1750000000ull);
	cr_assert_eq(samples(f, "a"), 3750000000ull);
	cr_assert_eq(samples(f, "d"), 3000000000ull);
	cr_assert_eq(samples(f, "e"), 123456789ull, "the 10th decimal dropped");
	sp_flame_svg_defaults(&o);
	svg = render(f, &o);
	cr_assert_not_null(strstr(svg, "<title>b (1.75 samples, "));
	cr_assert_not_null(strstr(svg, "<title>c (2 samples, "));
	cr_assert_not_null(strstr(svg, "<title>e (0.123456789 samples, "));
	free(svg);
	sp_flame_free(f);
	f = parse("a 18446744073709551615\nb 0.5\nf .5\nc 1.x\n");
	cr_assert_eq(sp_flame_samples(f), UINT64_MAX, "integers keep 64 bits");
	cr_assert_eq(sp_flame_decimals(f), 0);
	cr_assert_eq(sp_flame_bad_count(f), 3);
	cr_assert_not_null(strstr(sp_flame_bad(f, 0)->why, "total"));
	cr_assert_str_eq(sp_flame_bad(f, 1)->why, "count is not a number");
	cr_assert_str_eq(sp_flame_bad(f, 2)->why, "count is not a number");
	sp_flame_free(f);
}

Test(flame, a_spool_is_not_folded_text)
{
	static const char spool[] = "\x89SPOOL\r\n\x01\0\0\0junk";
	struct sp_flame *f = NULL;

	cr_assert_eq(sp_flame_parse(spool, sizeof(spool) - 1, &f),
	    -SP_EFORMAT);
	cr_assert_null(f);
	f = parse("x;\x89SPOOL 1\n");
	cr_assert_eq(sp_flame_samples(f), 1, "only as the first line");
	sp_flame_free(f);
}

Test(flame, bad_lines_are_counted_with_line_numbers_and_reasons)
{
	struct sp_flame *f = parse("a;b 1\nnocount\na;b x1\n\na;;b 3\n 5\n"
	    "a 18446744073709551616\na;\\0 2\nc 7");
	static const struct { uint64_t line; const char *why; } want[] = {
		{ 2, "no sample count" }, { 3, "not a number" },
		{ 5, "empty frame name" }, { 6, "empty stack" },
		{ 7, "overflows 64 bits" },
	};
	const struct sp_flame_bad *b;
	size_t i;

	cr_assert_eq(sp_flame_bad_count(f), 5);
	for (i = 0; i < 5; i++) {
		b = sp_flame_bad(f, i);
		cr_assert_not_null(b);
		cr_assert_eq(b->line, want[i].line, "bad %zu: line %" PRIu64,
		    i, b->line);
		cr_assert_not_null(strstr(b->why, want[i].why), "line %" PRIu64
		    ": %s", b->line, b->why);
	}
	cr_assert_null(sp_flame_bad(f, 5));
	cr_assert_eq(sp_flame_samples(f), 1 + 2 + 7, "good lines still count");
	cr_assert_eq(sp_flame_lines(f), 9);
	sp_flame_free(f);
}

Test(flame, zero_counts_add_nothing_and_totals_cannot_overflow)
{
	struct sp_flame *f = parse("a;b 0\n");

	cr_assert_eq(sp_flame_samples(f), 0);
	cr_assert_eq(sp_flame_frames(f), 0);
	cr_assert_eq(sp_flame_bad_count(f), 0);
	sp_flame_free(f);
	f = parse("a 18446744073709551615\nb 1\nc 0\n");
	cr_assert_eq(sp_flame_samples(f), UINT64_MAX);
	cr_assert_eq(sp_flame_bad_count(f), 1);
	cr_assert_eq(sp_flame_bad(f, 0)->line, 2);
	cr_assert_not_null(strstr(sp_flame_bad(f, 0)->why, "total"));
	cr_assert_eq(samples(f, "b"), UINT64_MAX, "no frame for a bad line");
	sp_flame_free(f);
}

Test(flame, many_bad_lines_keep_the_first_ones)
{
	char text[512] = "";
	struct sp_flame *f;
	int i;

	for (i = 0; i < 20; i++)
		(void)strcat(text, "junk\n");
	f = parse(text);
	cr_assert_eq(sp_flame_bad_count(f), 20);
	cr_assert_eq(sp_flame_bad(f, SP_FLAME_BAD_KEEP - 1)->line,
	    SP_FLAME_BAD_KEEP);
	cr_assert_null(sp_flame_bad(f, SP_FLAME_BAD_KEEP));
	sp_flame_free(f);
}

Test(flame, pieces_of_any_size_parse_like_the_whole)
{
	static const char text[] = "a;b;c 3\nlong\\;name;b 4\nbad\na;b 5";
	struct sp_flame *f;
	size_t piece, i, n = strlen(text);

	for (piece = 1; piece <= n; piece++) {
		cr_assert_eq(sp_flame_new(&f), 0);
		for (i = 0; i < n; i += piece)
			cr_assert_eq(sp_flame_feed(f, text + i, n - i < piece ?
			    n - i : piece), 0);
		cr_assert_eq(sp_flame_end(f), 0);
		cr_assert_eq(sp_flame_samples(f), 12, "piece %zu", piece);
		cr_assert_eq(samples(f, "a;b"), 8, "piece %zu", piece);
		cr_assert_eq(sp_flame_bad_count(f), 1);
		cr_assert_eq(sp_flame_bad(f, 0)->line, 3);
		sp_flame_free(f);
	}
}

Test(flame, long_lines_and_deep_stacks_are_bad_lines)
{
	size_t n = SP_FLAME_LINE_MAX + 100, i;
	char *text = malloc(n + 64);
	struct sp_flame *f;

	cr_assert_not_null(text);
	/* Line 1: too long; line 2: exactly the frame limit; line 3: one
	 * frame more. */
	memset(text, 'x', n);
	i = n;
	text[i++] = '\n';
	cr_assert_eq(sp_flame_new(&f), 0);
	cr_assert_eq(sp_flame_feed(f, text, i), 0);
	for (i = 0; i < 2 * SP_FLAME_DEPTH_MAX; i += 2) {
		text[i] = 'f';
		text[i + 1] = ';';
	}
	memcpy(text + i - 1, " 1\n", 3);
	cr_assert_eq(sp_flame_feed(f, text, i + 2), 0);
	memcpy(text + i - 1, ";f 1\n", 5);
	cr_assert_eq(sp_flame_feed(f, text, i + 4), 0);
	cr_assert_eq(sp_flame_end(f), 0);
	cr_assert_eq(sp_flame_bad_count(f), 2);
	cr_assert_eq(sp_flame_bad(f, 0)->line, 1);
	cr_assert_not_null(strstr(sp_flame_bad(f, 0)->why, "longer"));
	cr_assert_eq(sp_flame_bad(f, 1)->line, 3);
	cr_assert_not_null(strstr(sp_flame_bad(f, 1)->why, "frames"));
	cr_assert_eq(sp_flame_samples(f), 1);
	cr_assert_eq(sp_flame_frames(f), SP_FLAME_DEPTH_MAX);
	sp_flame_free(f);
	free(text);
}

Test(flame, widths_are_proportional_to_samples)
{
	struct sp_flame *f = parse("a;b 3\na;c 1\nd 4\n");
	struct sp_flame_svg_opts o;
	struct box all, a, b, c, d;
	double full = 1000 - 2 * 10;	/* width less the margins */
	char *svg;

	sp_flame_svg_defaults(&o);
	o.width = 1000;
	svg = render(f, &o);
	all = box_of(svg, "all");
	a = box_of(svg, "a");
	b = box_of(svg, "b");
	c = box_of(svg, "c");
	d = box_of(svg, "d");
	cr_assert_float_eq(all.w, full, 0.01);
	cr_assert_float_eq(a.w, full * 4 / 8, 0.01);
	cr_assert_float_eq(b.w, full * 3 / 8, 0.01);
	cr_assert_float_eq(c.w, full * 1 / 8, 0.01);
	cr_assert_float_eq(d.w, full * 4 / 8, 0.01);
	/* Children left to right in name order, inside their parent. */
	cr_assert_float_eq(a.x, all.x, 0.01);
	cr_assert_float_eq(b.x, a.x, 0.01);
	cr_assert_float_eq(c.x, b.x + b.w, 0.01);
	cr_assert_float_eq(d.x, a.x + a.w, 0.01);
	cr_assert_not_null(strstr(svg, "<title>b (3 samples, 37.50%)"));
	cr_assert_eq(count(svg, "<g class=\"f\""), 5);
	cr_assert_eq(count(svg, "<script"), 1, "the script is inline");
	cr_assert_null(strstr(svg, "src="), "nothing is fetched");
	cr_assert_null(strstr(svg, "href="), "nothing is fetched");
	free(svg);
	sp_flame_free(f);
}

Test(flame, names_and_the_title_are_xml_escaped)
{
	struct sp_flame *f = parse("main;<&>\"' 1\nmain;bad\xff\x01utf8 1\n");
	struct sp_flame_svg_opts o;
	char *svg;

	sp_flame_svg_defaults(&o);
	o.title = "a < b & \"c\"";
	svg = render(f, &o);
	cr_assert_not_null(strstr(svg,
	    "<title>&lt;&amp;&gt;&quot;&apos; (1 samples"));
	cr_assert_not_null(strstr(svg, ">a &lt; b &amp; &quot;c&quot;</text>"));
	cr_assert_not_null(strstr(svg, "<title>bad\xef\xbf\xbd\xef\xbf\xbd"
	    "utf8 (1 samples"), "invalid UTF-8 and controls as U+FFFD");
	cr_assert_null(strstr(svg, "<&>"));
	cr_assert_null(strstr(svg, "\xff"));
	free(svg);
	sp_flame_free(f);
}

Test(flame, icicle_hangs_callees_below_flame_stacks_them_above)
{
	struct sp_flame *f = parse("a;b;c 2\n");
	struct sp_flame_svg_opts o;
	struct box r, a, b, c;
	char *svg;

	sp_flame_svg_defaults(&o);
	svg = render(f, &o);
	r = box_of(svg, "all");
	a = box_of(svg, "a");
	b = box_of(svg, "b");
	c = box_of(svg, "c");
	cr_assert(r.y > a.y && a.y > b.y && b.y > c.y, "flame: root lowest");
	cr_assert_eq(r.y - a.y, 16);
	cr_assert_not_null(strstr(svg, ">Flame Graph</text>"));
	free(svg);
	o.icicle = 1;
	svg = render(f, &o);
	r = box_of(svg, "all");
	a = box_of(svg, "a");
	b = box_of(svg, "b");
	c = box_of(svg, "c");
	cr_assert(r.y < a.y && a.y < b.y && b.y < c.y, "icicle: root on top");
	cr_assert_eq(a.y - r.y, 16);
	cr_assert_not_null(strstr(svg, "data-icicle=\"1\""));
	cr_assert_not_null(strstr(svg, ">Icicle Graph</text>"));
	free(svg);
	sp_flame_free(f);
}

Test(flame, diff_colours_grown_red_shrunk_blue_equal_grey)
{
	struct sp_flame *before = parse("a;b 10\na;c 10\n");
	struct sp_flame *after = parse("a;b 30\na;c 10\n");
	struct sp_flame_svg_opts o;
	struct box a, b, c;
	char *svg;

	sp_flame_svg_defaults(&o);
	o.before = before;
	svg = render(after, &o);
	a = box_of(svg, "a");
	b = box_of(svg, "b");
	c = box_of(svg, "c");
	cr_assert(b.rgb[0] == 255 && b.rgb[2] < 200 && b.rgb[1] == b.rgb[2],
	    "b grew from 50%% to 75%%: red, got %d,%d,%d", b.rgb[0], b.rgb[1],
	    b.rgb[2]);
	cr_assert(c.rgb[2] == 255 && c.rgb[0] < 200 && c.rgb[0] == c.rgb[1],
	    "c shrank from 50%% to 25%%: blue, got %d,%d,%d", c.rgb[0],
	    c.rgb[1], c.rgb[2]);
	cr_assert(a.rgb[0] == a.rgb[1] && a.rgb[1] == a.rgb[2],
	    "a stayed at 100%%: grey");
	cr_assert_not_null(strstr(svg, "<title>b (30 samples, 75.00%, before "
	    "10 samples, change +25.00%)"));
	free(svg);
	sp_flame_free(before);
	sp_flame_free(after);
}

/* The hue of a fill in degrees (the RGB to HSL of CSS Color 4). */
static double
hue(const struct box *b)
{
	double r = b->rgb[0], g = b->rgb[1], bl = b->rgb[2], h;
	double max = r > g ? (r > bl ? r : bl) : (g > bl ? g : bl);
	double min = r < g ? (r < bl ? r : bl) : (g < bl ? g : bl);

	cr_assert(max > min, "a grey fill has no hue");
	if (max == r)
		h = 60 * (g - bl) / (max - min);
	else if (max == g)
		h = 60 * ((bl - r) / (max - min) + 2);
	else
		h = 60 * ((r - g) / (max - min) + 4);
	return h < 0 ? h + 360 : h;
}

Test(flame, lang_colours_give_each_kind_its_hue)
{
	static const struct { const char *name; double lo, hi; } want[] = {
		{ "native_fn", 0, 20 }, { "memcpy", 0, 20 },
		{ "py::handler:/srv/app.py", 105, 130 },
		{ "app.py:run", 105, 130 },
		{ "sys_read_[k]", 40, 65 }, { "do_syscall [kernel.kallsyms]", 40,
		    65 },
		{ "code [jit]", 180, 205 }, { "[anon]", 180, 205 },
	};
	struct sp_flame *f = parse("native_fn;py::handler:/srv/app.py;"
	    "app.py:run;sys_read_[k];do_syscall [kernel.kallsyms] 1\n"
	    "native_fn;code [jit];[anon];memcpy 1\n");
	struct sp_flame_svg_opts o;
	struct box b;
	size_t i;
	double h;
	char *svg;

	sp_flame_svg_defaults(&o);
	o.colors = SP_FLAME_LANG;
	svg = render(f, &o);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		b = box_of(svg, want[i].name);
		h = hue(&b);
		cr_assert(h >= want[i].lo && h <= want[i].hi, "%s: hue %.0f, "
		    "want %.0f-%.0f", want[i].name, h, want[i].lo, want[i].hi);
	}
	free(svg);
	sp_flame_free(f);
}

Test(flame, module_colours_follow_the_module_part)
{
	struct sp_flame *f = parse("libc.so.6`malloc;libc.so.6`memcpy;"
	    "app+0x1200;app+0x1300;plain 1\n");
	struct sp_flame_svg_opts o;
	struct box m1, m2, a1, a2, p;
	char *svg;

	sp_flame_svg_defaults(&o);
	o.colors = SP_FLAME_MODULE;
	svg = render(f, &o);
	m1 = box_of(svg, "libc.so.6`malloc");
	m2 = box_of(svg, "libc.so.6`memcpy");
	a1 = box_of(svg, "app+0x1200");
	a2 = box_of(svg, "app+0x1300");
	p = box_of(svg, "plain");
	cr_assert_float_eq(hue(&m1), hue(&m2), 3, "one module, one hue");
	cr_assert_float_eq(hue(&a1), hue(&a2), 3, "one module, one hue");
	cr_assert(p.rgb[0] == p.rgb[1] && p.rgb[1] == p.rgb[2],
	    "no module: grey");
	free(svg);
	sp_flame_free(f);
}

Test(flame, frames_below_minwidth_are_left_out)
{
	char text[20000] = "";
	struct sp_flame *f;
	struct sp_flame_svg_opts o;
	char *svg;
	int i;

	/* 1000 one-sample stacks and a 1000-sample one: at width 1200 each
	 * small one is 0.59 px wide. */
	for (i = 0; i < 1000; i++)
		(void)sprintf(text + strlen(text), "m;f%d 1\n", i);
	(void)strcat(text, "m;big 1000\n");
	f = parse(text);
	sp_flame_svg_defaults(&o);
	svg = render(f, &o);
	cr_assert_eq(count(svg, "<g class=\"f\""), 2 + 1001);
	free(svg);
	o.minwidth = 1;
	svg = render(f, &o);
	cr_assert_eq(count(svg, "<g class=\"f\""), 2 + 1);
	free(svg);
	sp_flame_free(f);
}

Test(flame, an_empty_profile_and_bad_options_are_refused)
{
	struct sp_flame *f = parse("\n\n");
	struct sp_flame_svg_opts o;
	FILE *out = fopen("/dev/null", "w");

	cr_assert_not_null(out);
	sp_flame_svg_defaults(&o);
	cr_assert_eq(sp_flame_svg(f, &o, out), -SP_ENOTFOUND);
	sp_flame_free(f);
	f = parse("a 1\n");
	o.width = 5;
	cr_assert_eq(sp_flame_svg(f, &o, out), -SP_EUSAGE);
	o.width = 0;
	o.minwidth = -1;
	cr_assert_eq(sp_flame_svg(f, &o, out), -SP_EUSAGE);
	(void)fclose(out);
	sp_flame_free(f);
}
