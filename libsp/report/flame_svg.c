/* SPDX-License-Identifier: MIT */
/* The tree of folded stacks as an interactive SVG flame graph. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/json_int.h"
#include "common/opts_int.h"
#include "flame_int.h"
#include "sp/report/demangle.h"

#define FRAME_H 16      /* pixels per frame, one less drawn */
#define PAD 10          /* left and right margins */
#define TOP 54          /* title, subtitle and buttons */
#define BOTTOM 30       /* the details line */
#define CHAR_W 7.2      /* a 12px Verdana character, roughly */
#define WIDTH_MAX 100000

/* The script: zoom, search, details; it reads the frames from the DOM
 * (data-o: first sample, data-n: samples) so one element per frame is
 * all the document holds. */
static const char script[] =
"var W,PAD,INV,frames=[],total=0,zoomed=null,searching=false;\n"
"var details,matched,unzoomBtn,searchBtn;\n"
"function init(){var s=document.documentElement;\n"
" W=+s.getAttribute('data-width');PAD=+s.getAttribute('data-pad');\n"
" INV=s.getAttribute('data-icicle')==='1';\n"
" details=document.getElementById('details');\n"
" matched=document.getElementById('matched');\n"
" unzoomBtn=document.getElementById('unzoom');\n"
" searchBtn=document.getElementById('search');\n"
" var gs=document.querySelectorAll('g.f');\n"
" for(var i=0;i<gs.length;i++){var g=gs[i],r=g.querySelector('rect'),\n"
"  ti=g.querySelector('title').textContent;\n"
"  frames.push({g:g,r:r,t:g.querySelector('text'),info:ti,\n"
"   name:ti.substring(0,ti.lastIndexOf(' (')),o:+g.getAttribute('data-o'),\n"
"   n:+g.getAttribute('data-n'),y:+r.getAttribute('y'),\n"
"   fill:r.getAttribute('fill')});g._i=i;}\n"
" if(frames.length)total=frames[0].n;\n"
" var fg=document.getElementById('frames');\n"
" fg.addEventListener('mouseover',function(e){var f=hit(e);\n"
"  if(f)details.textContent=f.info;});\n"
" fg.addEventListener('mouseout',function(){details.textContent=' ';});\n"
" fg.addEventListener('click',function(e){var f=hit(e);if(f)zoom(f);});\n"
" unzoomBtn.addEventListener('click',unzoom);\n"
" searchBtn.addEventListener('click',function(){\n"
"  if(searching)clearSearch();else askSearch();});\n"
" window.addEventListener('keydown',function(e){\n"
"  if((e.ctrlKey||e.metaKey)&&e.key==='f'){e.preventDefault();askSearch();}\n"
"  else if(e.key==='Escape'){unzoom();clearSearch();}});}\n"
"function hit(e){var g=e.target.closest?e.target.closest('g.f'):null;\n"
" return g?frames[g._i]:null;}\n"
"function deeper(a,b){return INV?a.y>b.y:a.y<b.y;}\n"
"function label(f,w){var c=Math.floor((w-6)/7.2),s=f.name;\n"
" if(c<3)s='';else if(s.length>c)s=s.substring(0,c-2)+'..';\n"
" f.t.textContent=s;}\n"
"function place(f,x,w){f.r.setAttribute('x',x.toFixed(2));\n"
" f.r.setAttribute('width',w.toFixed(2));\n"
" f.t.setAttribute('x',(x+3).toFixed(2));label(f,w);f.g.style.display='';}\n"
"function zoom(z){var full=W-2*PAD,sc=full/z.n;zoomed=z;\n"
" for(var i=0;i<frames.length;i++){var f=frames[i];\n"
"  if(f.o<=z.o&&f.o+f.n>=z.o+z.n&&!deeper(f,z)){place(f,PAD,full);\n"
"   f.g.style.opacity=f===z?'':'0.6';}\n"
"  else if(deeper(f,z)&&f.o>=z.o&&f.o+f.n<=z.o+z.n){\n"
"   place(f,PAD+(f.o-z.o)*sc,f.n*sc);f.g.style.opacity='';}\n"
"  else f.g.style.display='none';}\n"
" unzoomBtn.style.opacity='1';}\n"
"function unzoom(){var sc=(W-2*PAD)/total;zoomed=null;\n"
" for(var i=0;i<frames.length;i++){var f=frames[i];\n"
"  place(f,PAD+f.o*sc,f.n*sc);f.g.style.opacity='';}\n"
" unzoomBtn.style.opacity='0';}\n"
"function askSearch(){var t=prompt('Search frames (regular expression)','');\n"
" if(t)search(t);}\n"
"function search(t){var test,m=[],i,sum=0,end=0;\n"
" try{var re=new RegExp(t);test=function(s){return re.test(s);};}\n"
" catch(err){test=function(s){return s.indexOf(t)>=0;};}\n"
" for(i=0;i<frames.length;i++){var f=frames[i];\n"
"  if(test(f.name)){f.r.setAttribute('fill','rgb(230,0,230)');m.push(f);}\n"
"  else f.r.setAttribute('fill',f.fill);}\n"
" m.sort(function(a,b){return a.o-b.o||b.n-a.n;});\n"
" for(i=0;i<m.length;i++){var e=m[i].o+m[i].n;\n"
"  if(m[i].o>=end){sum+=m[i].n;end=e;}else if(e>end){sum+=e-end;end=e;}}\n"
" searching=true;searchBtn.textContent='Reset Search';\n"
" matched.textContent='Matched: '+(total?100*sum/total:0).toFixed(1)+'%';}\n"
"function clearSearch(){if(!searching)return;searching=false;\n"
" for(var i=0;i<frames.length;i++)frames[i].r.setAttribute('fill',\n"
"  frames[i].fill);\n"
" searchBtn.textContent='Search';matched.textContent=' ';}\n";

static const char style[] =
"text{font-family:Verdana,sans-serif;font-size:12px;fill:#000}\n"
"#title{font-size:17px;text-anchor:middle}\n"
"#subtitle{fill:#555;text-anchor:middle}\n"
"#matched{text-anchor:end}\n"
".btn{cursor:pointer;fill:#225}\n"
"#search{text-anchor:end}\n"
"g.f{cursor:pointer}\n"
"g.f text{pointer-events:none}\n"
"g.f:hover rect{stroke:#000;stroke-width:0.5}\n";

struct kid {
	uint32_t parent, idx, len;
	const char *name;
};

struct render {
	const struct sp_flame *f, *before;
	const struct sp_flame_svg_opts *o;
	FILE *out;
	uint32_t *kids;     /* children sorted by name, grouped by parent */
	size_t *first;      /* node i's children: kids[first[i]..first[i+1]) */
	double scale;       /* pixels per sample */
	double maxdelta;    /* largest change of share (diff) */
	int maxdepth;
	unsigned width, height;
	uint64_t btotal;
	/* --diff: layout widths in samples of f, of f's frames (wa) and of
	 * before's (wb); ca: before's frame at the same path in f. */
	uint64_t *wa, *wb;
	uint32_t *ca;
};

static int
by_parent_name(const void *a, const void *b)
{
	const struct kid *x = a, *y = b;
	int c;

	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	c = memcmp(x->name, y->name, x->len < y->len ? x->len : y->len);
	if (c != 0)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

/* Children in name order (flamegraph.pl's order): the same input always
 * draws the same picture. */
static int
sort_children(struct render *r)
{
	const struct sp_flame *f = r->f;
	struct kid *k;
	size_t i, n = f->n;

	k = malloc(n * sizeof(*k));
	r->kids = malloc(n * sizeof(*r->kids));
	r->first = calloc(n + 1, sizeof(*r->first));
	if (k == NULL || r->kids == NULL || r->first == NULL) {
		free(k);
		return -ENOMEM;
	}
	for (i = 1; i < n; i++) {
		k[i - 1].parent = f->node[i].parent;
		k[i - 1].idx = (uint32_t)i;
		k[i - 1].len = f->node[i].name_len;
		k[i - 1].name = sp_flame_name(f, (uint32_t)i);
		r->first[f->node[i].parent + 1]++;
	}
	qsort(k, n - 1, sizeof(*k), by_parent_name);
	for (i = 0; i < n - 1; i++)
		r->kids[i] = k[i].idx;
	for (i = 1; i <= n; i++)
		r->first[i] += r->first[i - 1];
	free(k);
	return 0;
}

static double
absd(double v)
{
	return v < 0 ? -v : v;
}

/* The frame of the BEFORE tree at the same path as node i, or none. */
static uint32_t
before_of(const struct render *r, uint32_t i, uint32_t bparent)
{
	const struct flame_node *n = &r->f->node[i];

	if (r->before == NULL || bparent == FLAME_NONE)
		return FLAME_NONE;
	return spi_flame_child(r->before, bparent, sp_flame_name(r->f, i),
	    n->name_len);
}

/* Change of share of all samples, from was of BEFORE to now, in [-1, 1]. */
static double
change(const struct render *r, uint64_t now, uint64_t was)
{
	return (double)now / (double)r->f->node[0].total -
	    (r->btotal == 0 ? 0 : (double)was / (double)r->btotal);
}

/* Samples of frame b of BEFORE (none: 0). */
static uint64_t
was_of(const struct render *r, uint32_t b)
{
	return b == FLAME_NONE ? 0 : r->before->node[b].total;
}

/* Layout width of f's frame i, in samples of f. */
static uint64_t
wide(const struct render *r, uint32_t i)
{
	return r->wa != NULL ? r->wa[i] : r->f->node[i].total;
}

static uint64_t
add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t
max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* n samples of BEFORE as samples of f, the same share of all. */
static uint64_t
rescale(const struct render *r, uint64_t n)
{
	double v = (double)n * (double)r->f->node[0].total /
	    (double)(r->btotal ? r->btotal : 1) + 0.5;

	return v >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)v;
}

/*
 * --diff draws frames found only in BEFORE too (blue, "0 samples"), as
 * wide as their share of BEFORE, after their siblings: a frame is as
 * wide as the larger of its shares and of its children side by side.
 * A child always comes after its parent in a tree's node array (it is
 * added below an existing frame), so one backward pass adds up children.
 */
static int
layout(struct render *r)
{
	const struct sp_flame *a = r->f, *b = r->before;
	uint32_t *cp = malloc(a->n * sizeof(*cp)), p;
	size_t i;

	r->wa = calloc(a->n, sizeof(*r->wa));
	r->wb = calloc(b->n, sizeof(*r->wb));
	r->ca = malloc(b->n * sizeof(*r->ca));
	if (cp == NULL || r->wa == NULL || r->wb == NULL || r->ca == NULL) {
		free(cp);
		return -ENOMEM;
	}
	cp[0] = r->ca[0] = 0;
	for (i = 1; i < a->n; i++)
		cp[i] = before_of(r, (uint32_t)i, cp[a->node[i].parent]);
	for (i = 1; i < b->n; i++)
		r->ca[i] = (p = r->ca[b->node[i].parent]) == FLAME_NONE ?
		    FLAME_NONE : spi_flame_child(a, p, sp_flame_name(b,
		    (uint32_t)i), b->node[i].name_len);
	for (i = b->n; i-- > 0;) {
		r->wb[i] = max_u64(r->wb[i], rescale(r, b->node[i].total));
		p = i > 0 ? b->node[i].parent : FLAME_NONE;
		if (p != FLAME_NONE)
			r->wb[p] = add_sat(r->wb[p], r->wb[i]);
		if (p != FLAME_NONE && r->ca[i] == FLAME_NONE &&
		    r->ca[p] != FLAME_NONE)
			r->wa[r->ca[p]] = add_sat(r->wa[r->ca[p]], r->wb[i]);
	}
	for (i = a->n; i-- > 0;) {
		r->wa[i] = max_u64(max_u64(r->wa[i], a->node[i].total),
		    cp[i] == FLAME_NONE ? 0 : rescale(r, b->node[cp[i]].total));
		if (i > 0)
			r->wa[a->node[i].parent] = add_sat(
			    r->wa[a->node[i].parent], r->wa[i]);
	}
	free(cp);
	return 0;
}

/*
 * A frame to draw: f's frame i (its BEFORE frame b), or with ghost set
 * BEFORE's frame i, found only there.
 */
struct at {
	int ghost;
	uint32_t i, b;
};

/* Name, samples now and in BEFORE, and layout width of frame x. */
static void
facts(const struct render *r, struct at x, const char **name, uint32_t *len,
    uint64_t *now, uint64_t *was, uint64_t *width)
{
	const struct sp_flame *t = x.ghost ? r->before : r->f;

	*name = sp_flame_name(t, x.i);
	*len = t->node[x.i].name_len;
	*now = x.ghost ? 0 : r->f->node[x.i].total;
	*was = x.ghost ? r->before->node[x.i].total : was_of(r, x.b);
	*width = x.ghost ? r->wb[x.i] : wide(r, x.i);
}

/*
 * The children of x one by one (*k starts at 0): f's in name order, then
 * BEFORE's found only there.  Returns 0 after the last.
 */
static int
next_kid(const struct render *r, struct at x, size_t *k, uint32_t *d,
    struct at *c)
{
	size_t n = x.ghost ? 0 : r->first[x.i + 1] - r->first[x.i];
	uint32_t bp = x.ghost ? x.i : x.b;

	if (*k < n) {
		c->ghost = 0;
		c->i = r->kids[r->first[x.i] + (*k)++];
		c->b = before_of(r, c->i, x.b);
		return 1;
	}
	if (r->before == NULL || bp == FLAME_NONE)
		return 0;
	*d = *k == n ? r->before->node[bp].child : r->before->node[*d].next;
	for (*k = n + 1; *d != FLAME_NONE; *d = r->before->node[*d].next)
		if (x.ghost || r->ca[*d] == FLAME_NONE) {
			c->ghost = 1;
			c->i = *d;
			c->b = FLAME_NONE;
			return 1;
		}
	return 0;
}

/* Whether x is wide enough to draw. */
static int
shown(const struct render *r, struct at x)
{
	const char *name;
	uint32_t len;
	uint64_t now, was, width;

	facts(r, x, &name, &len, &now, &was, &width);
	return (double)width * r->scale >= r->o->minwidth;
}

/* Depth of the deepest frame drawn and the largest change. */
static void
measure(struct render *r, struct at x, int depth)
{
	const char *name;
	uint32_t len, d = FLAME_NONE;
	uint64_t now, was, width;
	size_t k = 0;
	double ch;
	struct at c;

	facts(r, x, &name, &len, &now, &was, &width);
	if (depth > r->maxdepth)
		r->maxdepth = depth;
	if (r->before != NULL && (ch = absd(change(r, now, was))) >
	    r->maxdelta)
		r->maxdelta = ch;
	while (next_kid(r, x, &k, &d, &c))
		if (shown(r, c))
			measure(r, c, depth + 1);
}

static uint64_t
fnv(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	return h ^ h >> 31;
}

/* hue in degrees [0, 360), s and l in [0, 1] (CSS Color 4's HSL). */
static void
hsl(unsigned h, double s, double l, int rgb[3])
{
	static const int ci[6] = { 0, 1, 1, 2, 2, 0 }, xi[6] = { 1, 0, 2, 1,
	    0, 2 };
	double c = (1 - absd(2 * l - 1)) * s, hp = (double)(h % 360) / 60;
	double x = c * (1 - absd(hp - 2 * (int)(hp / 2) - 1)), m = l - c / 2;
	double v[3] = { 0, 0, 0 };
	int sector = (int)hp % 6, k;

	v[ci[sector]] = c;
	v[xi[sector]] = x;
	for (k = 0; k < 3; k++)
		rgb[k] = (int)((v[k] + m) * 255 + 0.5);
}

/* What --colors module keys on: "mod`func" (perf script, bcc),
 * "mod+0xoff" (an unsymbolized frame), "func [mod]"; else nothing. */
static size_t
module_of(const char *s, size_t len, const char **mod)
{
	const char *p, *q;

	if ((p = memchr(s, '`', len)) != NULL) {
		*mod = s;
		return (size_t)(p - s);
	}
	for (p = s; (p = memchr(p, '+', len - (size_t)(p - s))) != NULL; p++)
		if ((size_t)(s + len - p) > 2 && p[1] == '0' && p[2] == 'x') {
			*mod = s;
			return (size_t)(p - s);
		}
	if (len > 3 && s[len - 1] == ']' &&
	    (q = memchr(s, '[', len)) != NULL && q > s && q[-1] == ' ') {
		*mod = q + 1;
		return (size_t)(s + len - 1 - (q + 1));
	}
	return 0;
}

size_t
sp_flame_module_frames(const struct sp_flame *f)
{
	size_t i, n = 0;

	for (i = 1; i < f->n; i++)
		n += memchr(sp_flame_name(f, (uint32_t)i), '`',
		    f->node[i].name_len) != NULL;
	return n;
}

static int
has(const char *s, size_t len, const char *what)
{
	size_t n = strlen(what), i;

	for (i = 0; n <= len && i <= len - n; i++)
		if (memcmp(s + i, what, n) == 0)
			return 1;
	return 0;
}

static int
ends(const char *s, size_t len, const char *what)
{
	size_t n = strlen(what);

	return n <= len && memcmp(s + len - n, what, n) == 0;
}

/* --colors lang: 0 native, 1 Python, 2 kernel, 3 JIT. */
static int
lang_of(const char *s, size_t len)
{
	if (has(s, len, ".py") || (len >= 4 && memcmp(s, "py::", 4) == 0))
		return 1;
	if (has(s, len, "[kernel") || ends(s, len, "[k]"))
		return 2;
	if (ends(s, len, "[jit]") || ends(s, len, "[j]") ||
	    has(s, len, "[anon"))
		return 3;
	return 0;
}

static void
color(const struct render *r, const char *s, size_t len, double d,
    int rgb[3])
{
	static const unsigned lang_hue[4] = { 0, 110, 45, 185 };
	const char *mod;
	size_t ml;
	uint64_t h = fnv(s, len);
	double v = (double)(h & 0xff) / 255, ratio;
	int c;

	if (r->before != NULL) {
		if (absd(d) <= 1e-12) {
			rgb[0] = rgb[1] = rgb[2] = 235;
			return;
		}
		ratio = r->maxdelta > 0 ? absd(d) / r->maxdelta : 0;
		c = 235 - (int)(0.5 + 175 * ratio);
		rgb[0] = d > 0 ? 255 : c;
		rgb[1] = c;
		rgb[2] = d < 0 ? 255 : c;
		return;
	}
	switch (r->o->colors) {
	case SP_FLAME_MODULE:
		if ((ml = module_of(s, len, &mod)) == 0) {
			rgb[0] = rgb[1] = rgb[2] = 190 + (int)(30 * v);
			return;
		}
		hsl((unsigned)(fnv(mod, ml) % 360), 0.65, 0.55 + 0.15 * v, rgb);
		return;
	case SP_FLAME_LANG:
		hsl(lang_hue[lang_of(s, len)] + (unsigned)(h >> 16 & 15), 0.75,
		    0.5 + 0.15 * (double)(h >> 8 & 0xff) / 255, rgb);
		return;
	default:
		rgb[0] = 205 + (int)(50 * v);
		rgb[1] = (int)(230 * (double)(h >> 8 & 0xff) / 255);
		rgb[2] = (int)(55 * (double)(h >> 16 & 0xff) / 255);
	}
}

/* Length of the valid UTF-8 sequence at s[i..len) (spi_utf8_len) that
 * XML 1.0 §2.2 allows as a character, or 0. */
static size_t
xml_char(const unsigned char *s, size_t len, size_t i)
{
	size_t n;

	if (s[i] < 0x80)
		return s[i] >= 0x20 || s[i] == '\t' ? 1 : 0;
	n = spi_utf8_len(s, len, i);
	/* U+FFFE and U+FFFF are not XML characters. */
	if (n == 3 && s[i] == 0xef && s[i + 1] == 0xbf && s[i + 2] >= 0xbe)
		return 0;
	return n;
}

/* Writes s[0..len) XML-escaped, at most max characters (then ".."). */
static void
xml_put(FILE *out, const char *str, size_t len, size_t max)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, n, chars = 0;

	while (i < len) {
		if (chars == max) {
			(void)fputs("..", out);
			return;
		}
		chars++;
		n = xml_char(s, len, i);
		if (n == 0) {
			(void)fputs("\xef\xbf\xbd", out);	/* U+FFFD */
			i++;
			continue;
		}
		switch (s[i]) {
		case '&': (void)fputs("&amp;", out); break;
		case '<': (void)fputs("&lt;", out); break;
		case '>': (void)fputs("&gt;", out); break;
		case '"': (void)fputs("&quot;", out); break;
		case '\'': (void)fputs("&apos;", out); break;
		default: (void)fwrite(s + i, 1, n, out);
		}
		i += n;
	}
}

/* Characters of s, counting each invalid byte as one (as xml_put). */
static size_t
xml_chars(const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, n, chars = 0;

	for (; i < len; i += n ? n : 1, chars++)
		n = xml_char(s, len, i);
	return chars;
}

/* n samples of tree t, in its unit: "3", or "1.5" with decimals. */
static void
put_samples(FILE *out, const struct sp_flame *t, uint64_t n)
{
	uint64_t m = flame_pow10(t->decimals), frac = n % m;
	int digits = (int)t->decimals;

	for (; digits > 0 && frac % 10 == 0; digits--)
		frac /= 10;
	if (digits == 0)
		(void)fprintf(out, "%" PRIu64, n / m);
	else
		(void)fprintf(out, "%" PRIu64 ".%0*" PRIu64, n / m, digits,
		    frac);
}

/* What frame name[0..*len) is shown as: demangled when the options
 * have it. */
static const char *
shown_name(const struct render *r, const char *name, uint32_t *len)
{
	const char *t;
	size_t n;

	t = sp_demangle_get(r->o->demangle, name, *len, &n);
	if (t == NULL || n > UINT32_MAX)
		return name;
	*len = (uint32_t)n;
	return t;
}

static void
frame(struct render *r, struct at x, int depth, uint64_t off)
{
	const char *name, *unit = r->o->countname != NULL ? r->o->countname :
	    "samples";
	uint32_t len;
	uint64_t now, was, width;
	double px = PAD + (double)off * r->scale, w, fit;
	int y = r->o->icicle ? TOP + depth * FRAME_H :
	    TOP + (r->maxdepth - depth) * FRAME_H;
	size_t chars;
	int rgb[3];

	facts(r, x, &name, &len, &now, &was, &width);
	name = shown_name(r, name, &len);
	w = (double)width * r->scale;
	fit = (w - 6) / CHAR_W;
	color(r, name, len, r->before != NULL ? change(r, now, was) : 0, rgb);
	(void)fprintf(r->out, "<g class=\"f\" data-o=\"%" PRIu64 "\" "
	    "data-n=\"%" PRIu64 "\"><title>", off, width);
	xml_put(r->out, name, len, SIZE_MAX);
	(void)fputs(" (", r->out);
	put_samples(r->out, r->f, now);
	(void)fputc(' ', r->out);
	xml_put(r->out, unit, strlen(unit), SIZE_MAX);
	(void)fprintf(r->out, ", %.2f%%",
	    100.0 * (double)now / (double)r->f->node[0].total);
	if (r->before != NULL) {
		(void)fputs(", before ", r->out);
		put_samples(r->out, r->before, was);
		(void)fputc(' ', r->out);
		xml_put(r->out, unit, strlen(unit), SIZE_MAX);
		(void)fprintf(r->out, ", change %+.2f%%",
		    100 * change(r, now, was));
	}
	(void)fprintf(r->out, ")</title><rect x=\"%.2f\" y=\"%d\" "
	    "width=\"%.2f\" height=\"%d\" fill=\"rgb(%d,%d,%d)\"/>"
	    "<text x=\"%.2f\" y=\"%d\">", px, y, w, FRAME_H - 1, rgb[0],
	    rgb[1], rgb[2], px + 3, y + FRAME_H - 4);
	chars = xml_chars(name, len);
	if (fit >= 3)
		xml_put(r->out, name, len, (double)chars > fit ?
		    (size_t)fit - 2 : SIZE_MAX);
	(void)fputs("</text></g>\n", r->out);
}

/* Frames depth-first, children in name order left to right (those only
 * in BEFORE after them). */
static void
frames(struct render *r, struct at x, int depth, uint64_t off)
{
	const char *name;
	uint32_t len, d = FLAME_NONE;
	uint64_t now, was, width;
	size_t k = 0;
	struct at c;

	frame(r, x, depth, off);
	while (next_kid(r, x, &k, &d, &c)) {
		if (shown(r, c))
			frames(r, c, depth + 1, off);
		facts(r, c, &name, &len, &now, &was, &width);
		off = add_sat(off, width);
	}
}

static void
header(const struct render *r)
{
	const struct sp_flame_svg_opts *o = r->o;
	const char *title = o->title != NULL ? o->title :
	    o->icicle ? "Icicle Graph" : "Flame Graph";

	(void)fprintf(r->out, "<?xml version=\"1.0\" encoding=\"UTF-8\" "
	    "standalone=\"no\"?>\n<svg version=\"1.1\" width=\"%u\" "
	    "height=\"%u\" viewBox=\"0 0 %u %u\" "
	    "xmlns=\"http://www.w3.org/2000/svg\" onload=\"init()\" "
	    "data-width=\"%u\" data-pad=\"%d\" data-icicle=\"%d\">\n",
	    r->width, r->height, r->width, r->height, r->width, PAD,
	    o->icicle ? 1 : 0);
	(void)fprintf(r->out, "<defs><linearGradient id=\"bg\" x1=\"0\" "
	    "y1=\"0\" x2=\"0\" y2=\"1\"><stop stop-color=\"#eeeeee\" "
	    "offset=\"5%%\"/><stop stop-color=\"%s\" offset=\"95%%\"/>"
	    "</linearGradient></defs>\n<style>\n%s</style>\n"
	    "<script><![CDATA[\n%s]]></script>\n", r->before != NULL ?
	    "#e8e8ee" : "#eeeeb0", style, script);
	(void)fprintf(r->out, "<rect x=\"0\" y=\"0\" width=\"%u\" "
	    "height=\"%u\" fill=\"url(#bg)\"/>\n<text id=\"title\" "
	    "x=\"%u\" y=\"22\">", r->width, r->height, r->width / 2);
	xml_put(r->out, title, strlen(title), SIZE_MAX);
	(void)fprintf(r->out, "</text>\n<text id=\"subtitle\" x=\"%u\" "
	    "y=\"40\">%s</text>\n", r->width / 2, r->before != NULL ?
	    "red: share of samples grew, blue: shrank" : "");
	(void)fprintf(r->out, "<text id=\"unzoom\" class=\"btn\" x=\"%d\" "
	    "y=\"40\" style=\"opacity:0\">Reset Zoom</text>\n<text "
	    "id=\"search\" class=\"btn\" x=\"%u\" y=\"40\">Search</text>\n"
	    "<text id=\"details\" x=\"%d\" y=\"%u\"> </text>\n<text "
	    "id=\"matched\" x=\"%u\" y=\"%u\"> </text>\n<g id=\"frames\">\n",
	    PAD, r->width - PAD, PAD, r->height - 10, r->width - PAD,
	    r->height - 10);
}

void
sp_flame_svg_defaults(struct sp_flame_svg_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->sz = sizeof(*o);
	o->width = 1200;
	o->colors = SP_FLAME_HOT;
	o->minwidth = 0.1;
}

/* sz 0: the struct of 0.5.0, whose last field is demangle (frozen: a
 * field added later lies past it). */
#define FLAME_SVG_OPTS_SZ0 SPI_OPTS_END(struct sp_flame_svg_opts, demangle)

int
sp_flame_svg(const struct sp_flame *f, const struct sp_flame_svg_opts *given,
    FILE *out)
{
	struct sp_flame_svg_opts o;
	struct render r;
	struct at root;
	int err = 0;

	memset(&r, 0, sizeof(r));
	if (spi_opts_copy(&o, sizeof(o), given, FLAME_SVG_OPTS_SZ0,
	    "sp_flame_svg_opts", NULL) < 0)
		return -SP_EUSAGE;
	r.width = o.width ? o.width : 1200;
	if (r.width < 2 * PAD + 10 || r.width > WIDTH_MAX ||
	    !(o.minwidth >= 0) || o.colors > SP_FLAME_LANG)
		return -SP_EUSAGE;
	if (f->node[0].total == 0)
		return -SP_ENOTFOUND;
	r.f = f;
	r.o = &o;
	r.out = out;
	r.before = o.before;
	r.btotal = r.before != NULL ? r.before->node[0].total : 0;
	root.ghost = 0;
	root.i = 0;
	root.b = r.before != NULL ? 0 : FLAME_NONE;
	if (r.before != NULL)
		err = layout(&r);
	if (err == 0)
		r.scale = (double)(r.width - 2 * PAD) / (double)wide(&r, 0);
	if (err == 0 && (err = sort_children(&r)) == 0) {
		measure(&r, root, 0);
		r.height = TOP + (unsigned)(r.maxdepth + 1) * FRAME_H + BOTTOM;
		header(&r);
		frames(&r, root, 0, 0);
		(void)fputs("</g>\n</svg>\n", out);
		if (fflush(out) != 0 || ferror(out))
			err = -EIO;
	}
	free(r.kids);
	free(r.first);
	free(r.wa);
	free(r.wb);
	free(r.ca);
	return err;
}
