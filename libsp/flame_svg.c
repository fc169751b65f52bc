/* SPDX-License-Identifier: MIT */
/* The tree of folded stacks as an interactive SVG flame graph. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "flame_int.h"

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
	return sp_flame_child(r->before, bparent, sp_flame_name(r->f, i),
	    n->name_len);
}

/* Change of node i's share of all samples since BEFORE, in [-1, 1]. */
static double
delta(const struct render *r, uint32_t i, uint32_t b)
{
	double after = (double)r->f->node[i].total /
	    (double)r->f->node[0].total;
	double was = b == FLAME_NONE || r->btotal == 0 ? 0 :
	    (double)r->before->node[b].total / (double)r->btotal;

	return after - was;
}

/* Depth of the deepest frame drawn and the largest change. */
static void
measure(struct render *r, uint32_t i, uint32_t b, int depth)
{
	size_t k;
	double d;
	uint32_t c;

	if (depth > r->maxdepth)
		r->maxdepth = depth;
	if (r->before != NULL && (d = absd(delta(r, i, b))) > r->maxdelta)
		r->maxdelta = d;
	for (k = r->first[i]; k < r->first[i + 1]; k++) {
		c = r->kids[k];
		if ((double)r->f->node[c].total * r->scale >= r->o->minwidth)
			measure(r, c, before_of(r, c, b), depth + 1);
	}
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
color(const struct render *r, uint32_t i, uint32_t b, int rgb[3])
{
	static const unsigned lang_hue[4] = { 0, 110, 45, 185 };
	const char *s = sp_flame_name(r->f, i), *mod;
	size_t len = r->f->node[i].name_len, ml;
	uint64_t h = fnv(s, len);
	double v = (double)(h & 0xff) / 255, d, ratio;
	int c;

	if (r->before != NULL) {
		d = delta(r, i, b);
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

/* Length of the valid UTF-8 sequence at s[i..len) (Unicode 15 §3.9,
 * table 3-7) that XML 1.0 §2.2 allows as a character, or 0. */
static size_t
xml_char(const unsigned char *s, size_t len, size_t i)
{
	unsigned c = s[i], lo = 0x80, hi = 0xbf;
	size_t n, k;

	if (c < 0x80)
		return c >= 0x20 || c == '\t' ? 1 : 0;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;	/* no surrogates */
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (n > len - i || s[i + 1] < lo || s[i + 1] > hi)
		return 0;
	for (k = 2; k < n; k++)
		if (s[i + k] < 0x80 || s[i + k] > 0xbf)
			return 0;
	/* U+FFFE and U+FFFF are not XML characters. */
	if (c == 0xef && s[i + 1] == 0xbf && s[i + 2] >= 0xbe)
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

static void
frame(struct render *r, uint32_t i, uint32_t b, int depth, uint64_t off)
{
	const struct flame_node *n = &r->f->node[i];
	const char *name = sp_flame_name(r->f, i);
	double x = PAD + (double)off * r->scale;
	double w = (double)n->total * r->scale, fit = (w - 6) / CHAR_W;
	int y = r->o->icicle ? TOP + depth * FRAME_H :
	    TOP + (r->maxdepth - depth) * FRAME_H;
	size_t chars;
	int rgb[3];

	color(r, i, b, rgb);
	(void)fprintf(r->out, "<g class=\"f\" data-o=\"%" PRIu64 "\" "
	    "data-n=\"%" PRIu64 "\"><title>", off, n->total);
	xml_put(r->out, name, n->name_len, SIZE_MAX);
	(void)fprintf(r->out, " (%" PRIu64 " samples, %.2f%%", n->total,
	    100.0 * (double)n->total / (double)r->f->node[0].total);
	if (r->before != NULL)
		(void)fprintf(r->out, ", before %" PRIu64 " samples, change "
		    "%+.2f%%", b == FLAME_NONE ? 0 : r->before->node[b].total,
		    100 * delta(r, i, b));
	(void)fprintf(r->out, ")</title><rect x=\"%.2f\" y=\"%d\" "
	    "width=\"%.2f\" height=\"%d\" fill=\"rgb(%d,%d,%d)\"/>"
	    "<text x=\"%.2f\" y=\"%d\">", x, y, w, FRAME_H - 1, rgb[0],
	    rgb[1], rgb[2], x + 3, y + FRAME_H - 4);
	chars = xml_chars(name, n->name_len);
	if (fit >= 3)
		xml_put(r->out, name, n->name_len, (double)chars > fit ?
		    (size_t)fit - 2 : SIZE_MAX);
	(void)fputs("</text></g>\n", r->out);
}

/* Frames depth-first, children in name order left to right. */
static void
frames(struct render *r, uint32_t i, uint32_t b, int depth, uint64_t off)
{
	uint32_t c;
	size_t k;

	frame(r, i, b, depth, off);
	for (k = r->first[i]; k < r->first[i + 1]; k++) {
		c = r->kids[k];
		if ((double)r->f->node[c].total * r->scale >= r->o->minwidth)
			frames(r, c, before_of(r, c, b), depth + 1, off);
		off += r->f->node[c].total;
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
	o->width = 1200;
	o->colors = SP_FLAME_HOT;
	o->minwidth = 0.1;
}

int
sp_flame_svg(const struct sp_flame *f, const struct sp_flame_svg_opts *o,
    FILE *out)
{
	struct render r;
	int err;

	memset(&r, 0, sizeof(r));
	r.width = o->width ? o->width : 1200;
	if (r.width < 2 * PAD + 10 || r.width > WIDTH_MAX ||
	    !(o->minwidth >= 0) || o->colors > SP_FLAME_LANG)
		return -SP_EUSAGE;
	if (f->node[0].total == 0)
		return -SP_ENOTFOUND;
	r.f = f;
	r.o = o;
	r.out = out;
	r.before = o->before;
	r.btotal = r.before != NULL ? r.before->node[0].total : 0;
	r.scale = (double)(r.width - 2 * PAD) / (double)f->node[0].total;
	if ((err = sort_children(&r)) == 0) {
		measure(&r, 0, r.before != NULL ? 0 : FLAME_NONE, 0);
		r.height = TOP + (unsigned)(r.maxdepth + 1) * FRAME_H + BOTTOM;
		header(&r);
		frames(&r, 0, r.before != NULL ? 0 : FLAME_NONE, 0, 0);
		(void)fputs("</g>\n</svg>\n", out);
		if (fflush(out) != 0 || ferror(out))
			err = -EIO;
	}
	free(r.kids);
	free(r.first);
	return err;
}
