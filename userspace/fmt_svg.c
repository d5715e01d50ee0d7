// SPDX-License-Identifier: GPL-2.0
/*
 * --svg FILE: a flame graph of the report, one self-contained SVG file
 * (its script and style inside: no network, no external script), as
 * flamegraph.pl draws them: the root at the bottom, each box a function,
 * as wide as the bytes (--sort size) or allocations (--sort count) of the
 * stacks through it, in flamegraph.pl's memory palette (greens and blues).
 *
 * In a browser: a click zooms on a box (its callers stay, dimmed, full
 * width; "Reset Zoom" or a click on the root zooms out), "Search" asks for
 * a regular expression and colours the matching boxes with the share they
 * hold, and each box's tooltip and the status line give its bytes,
 * allocations and percent.  A growth mode's graph (RM_GROWTH) is as wide
 * as its text report's ranking: bytes (--brk, --mmap --stacks), calls
 * (--shm --stacks), faults (--faults, --ffaults) or hits (--usdt), each
 * stack under its process's name.  For tests and links, "#zoom=NAME" and
 * "#search=REGEX" after the file's URL do the same on load.
 */
#include "fmt.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define SVG_WIDTH	1200
#define SVG_PAD		10
#define SVG_FRAME_H	16
#define SVG_TOP		36	/* title and buttons */
#define SVG_BOTTOM	30	/* the status line */

struct svg_node {
	char *name;
	uint64_t bytes, count, major;
	size_t first_child, next_sibling;	/* 0: none (node 0 is the root) */
	unsigned int depth;
};

struct svg_tree {
	struct svg_node *nodes;
	size_t nr, cap;
	unsigned int max_depth;
};

static size_t add_child(struct svg_tree *t, size_t parent, const char *name)
{
	size_t prev = 0;

	for (size_t c = t->nodes[parent].first_child; c; c = t->nodes[c].next_sibling) {
		if (!strcmp(t->nodes[c].name, name))
			return c;
		prev = c;
	}
	if (t->nr == t->cap) {
		size_t cap = t->cap * 2;
		struct svg_node *n = realloc(t->nodes, cap * sizeof(*n));

		if (!n)
			return 0;
		t->nodes = n;
		t->cap = cap;
	}
	memset(&t->nodes[t->nr], 0, sizeof(t->nodes[t->nr]));
	t->nodes[t->nr].name = strdup(name);
	if (!t->nodes[t->nr].name)
		return 0;
	t->nodes[t->nr].depth = t->nodes[parent].depth + 1;
	if (t->nodes[t->nr].depth > t->max_depth)
		t->max_depth = t->nodes[t->nr].depth;
	/* Children in the order first seen: the report's, biggest first. */
	if (prev)
		t->nodes[prev].next_sibling = t->nr;
	else
		t->nodes[parent].first_child = t->nr;
	return t->nr++;
}

/* The child of parent named name, with s's numbers added; 0 out of memory. */
static size_t count_child(struct svg_tree *t, size_t parent, const char *name,
			  const struct rm_stack *s)
{
	size_t node = add_child(t, parent, name);

	if (node) {
		t->nodes[node].bytes += s->bytes;
		t->nodes[node].count += s->count;
		t->nodes[node].major += s->major;
	}
	return node;
}

/* Adds one stack (root first) to the tree; false out of memory. */
static bool add_stack(struct svg_tree *t, const struct rm_stack *s)
{
	char name[512];
	size_t node = 0;

	t->nodes[0].bytes += s->bytes;
	t->nodes[0].count += s->count;
	t->nodes[0].major += s->major;
	/* A growth mode's stacks under their process's name, as --folded has them. */
	if (s->comm) {
		node = count_child(t, node, fmt_frame_name(&(struct rm_frame){ .function = s->comm },
							   name, sizeof(name)), s);
		if (!node)
			return false;
	}
	if (s->cache) {
		node = count_child(t, node, fmt_frame_name(&(struct rm_frame){ .function = s->cache },
							   name, sizeof(name)), s);
		if (!node)
			return false;
	}
	if (!s->nr_frames) {
		node = count_child(t, node, s->note ? s->note : "[no stack]", s);
		if (!node)
			return false;
	}
	for (size_t f = s->nr_frames; f-- > 0;) {
		node = count_child(t, node, fmt_frame_name(&s->frames[f], name, sizeof(name)), s);
		if (!node)
			return false;
	}
	return true;
}

static void put_xml(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		default:
			/* Control characters are not allowed in XML 1.0. */
			fputc((unsigned char)*s < 0x20 ? ' ' : *s, out);
		}
	}
}

/* flamegraph.pl's "mem" palette, the shade fixed by the name's hash. */
static void palette(const char *name, char *buf, size_t len)
{
	uint32_t h = 2166136261u;

	for (const char *p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	snprintf(buf, len, "rgb(0,%u,%u)", 190 + (h >> 8) % 51, (h >> 16) % 211);
}

static void put_node(FILE *out, const struct svg_tree *t, const struct report_model *m,
		     size_t i, double fx, unsigned int height)
{
	const struct svg_node *n = &t->nodes[i];
	const struct svg_node *root = &t->nodes[0];
	uint64_t total = m->sort == MT_SORT_COUNT ? root->count : root->bytes;
	uint64_t v = m->sort == MT_SORT_COUNT ? n->count : n->bytes;
	double fw = total ? (double)v / (double)total : 0;
	double y = height - SVG_BOTTOM - (n->depth + 1) * SVG_FRAME_H;
	double w = fw * (SVG_WIDTH - 2 * SVG_PAD);
	char color[32];

	palette(n->name, color, sizeof(color));
	fprintf(out, "<g class=\"f\" fx=\"%.9f\" fw=\"%.9f\" depth=\"%u\"><title>", fx, fw,
		n->depth);
	put_xml(out, n->name);
	switch (m->counts) {
	case RM_COUNTS_BYTES_CALLS:
		fprintf(out, " (%" PRIu64 " bytes, %" PRIu64 " calls, %.2f%%)</title>", n->bytes,
			n->count, 100.0 * fw);
		break;
	case RM_COUNTS_CALLS:
		fprintf(out, " (%" PRIu64 " calls, %.2f%%)</title>", n->count, 100.0 * fw);
		break;
	case RM_COUNTS_FAULTS:
		fprintf(out, " (%" PRIu64 " faults, %" PRIu64 " major, %.2f%%)</title>", n->count,
			n->major, 100.0 * fw);
		break;
	case RM_COUNTS_HITS:
		fprintf(out, " (%" PRIu64 " hits, %.2f%%)</title>", n->count, 100.0 * fw);
		break;
	default:
		fprintf(out, " (%" PRIu64 " bytes, %" PRIu64 " allocations, %.2f%%)</title>",
			n->bytes, n->count, 100.0 * fw);
	}
	fprintf(out, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"%s\" "
		"rx=\"2\" ry=\"2\"/><text x=\"%.2f\" y=\"%.1f\">", SVG_PAD + fx * (SVG_WIDTH -
		2 * SVG_PAD), y, w, SVG_FRAME_H - 1, color, SVG_PAD + fx * (SVG_WIDTH -
		2 * SVG_PAD) + 3, y + SVG_FRAME_H - 5);
	put_xml(out, n->name);
	fputs("</text></g>\n", out);
	/* Children left to right, in the report's order. */
	for (size_t c = n->first_child; c; c = t->nodes[c].next_sibling) {
		put_node(out, t, m, c, fx, height);
		fx += total ? (double)(m->sort == MT_SORT_COUNT ? t->nodes[c].count :
				       t->nodes[c].bytes) / (double)total : 0;
	}
}

/* The script: zoom, search, tooltips; plain DOM, no library. */
static const char svg_script[] =
"var W = " "1180" ", PAD = 10, frames, details, unzoomBtn, searchBtn, matchedText, zoomed = null;\n"
"function name(g) { return g.querySelector('title').textContent.replace(/ \\([0-9]+ [a-z]+(, [0-9]+ [a-z]+)*, [0-9.]+%\\)$/, ''); }\n"
"function num(g, a) { return parseFloat(g.getAttribute(a)); }\n"
"function fit(g) {\n"
"  var r = g.querySelector('rect'), t = g.querySelector('text'), w = parseFloat(r.getAttribute('width'));\n"
"  var s = name(g), n = Math.floor((w - 6) / 7);\n"
"  t.setAttribute('x', parseFloat(r.getAttribute('x')) + 3);\n"
"  t.textContent = n < 3 ? '' : s.length <= n ? s : s.substring(0, n - 2) + '..';\n"
"}\n"
"function place(g, x, w) {\n"
"  var r = g.querySelector('rect');\n"
"  r.setAttribute('x', PAD + x * W); r.setAttribute('width', w * W); fit(g);\n"
"}\n"
"function zoom(z) {\n"
"  var zx = num(z, 'fx'), zw = num(z, 'fw'), zd = num(z, 'depth');\n"
"  zoomed = z;\n"
"  for (var i = 0; i < frames.length; i++) {\n"
"    var g = frames[i], x = num(g, 'fx'), w = num(g, 'fw'), d = num(g, 'depth');\n"
"    g.classList.remove('parent'); g.style.display = '';\n"
"    if (d < zd && x <= zx + 1e-12 && x + w >= zx + zw - 1e-12) {\n"
"      g.classList.add('parent'); place(g, 0, 1);\n"
"    } else if (d >= zd && x >= zx - 1e-12 && x + w <= zx + zw + 1e-12 && zw > 0) {\n"
"      place(g, (x - zx) / zw, w / zw);\n"
"    } else {\n"
"      g.style.display = 'none';\n"
"    }\n"
"  }\n"
"  unzoomBtn.classList.toggle('hide', zd == 0);\n"
"  document.documentElement.setAttribute('data-zoomed', name(z));\n"
"}\n"
"function unzoom() { zoom(frames[0]); document.documentElement.removeAttribute('data-zoomed'); }\n"
"function search(re) {\n"
"  var rx, spans = [], total = 0;\n"
"  try { rx = new RegExp(re); } catch (e) { return; }\n"
"  for (var i = 0; i < frames.length; i++) {\n"
"    var g = frames[i], r = g.querySelector('rect');\n"
"    if (!r.hasAttribute('data-fill')) r.setAttribute('data-fill', r.getAttribute('fill'));\n"
"    if (rx.test(name(g)) && num(g, 'depth') > 0) {\n"
"      r.setAttribute('fill', 'rgb(230,0,230)'); g.classList.add('match');\n"
"      spans.push([num(g, 'fx'), num(g, 'fx') + num(g, 'fw')]);\n"
"    } else {\n"
"      r.setAttribute('fill', r.getAttribute('data-fill')); g.classList.remove('match');\n"
"    }\n"
"  }\n"
"  spans.sort(function (a, b) { return a[0] - b[0]; });\n"
"  for (var i = 0, end = -1; i < spans.length; i++) {\n"
"    var s = Math.max(spans[i][0], end);\n"
"    if (spans[i][1] > s) { total += spans[i][1] - s; end = spans[i][1]; }\n"
"  }\n"
"  matchedText.textContent = 'Matched: ' + (100 * total).toFixed(2) + '%';\n"
"  searchBtn.textContent = 'Reset Search';\n"
"  document.documentElement.setAttribute('data-matched', (100 * total).toFixed(2));\n"
"}\n"
"function resetSearch() {\n"
"  for (var i = 0; i < frames.length; i++) {\n"
"    var r = frames[i].querySelector('rect');\n"
"    if (r.hasAttribute('data-fill')) r.setAttribute('fill', r.getAttribute('data-fill'));\n"
"    frames[i].classList.remove('match');\n"
"  }\n"
"  matchedText.textContent = ''; searchBtn.textContent = 'Search';\n"
"  document.documentElement.removeAttribute('data-matched');\n"
"}\n"
"function init() {\n"
"  frames = document.querySelectorAll('#frames > g');\n"
"  details = document.getElementById('details');\n"
"  unzoomBtn = document.getElementById('unzoom');\n"
"  searchBtn = document.getElementById('search');\n"
"  matchedText = document.getElementById('matched');\n"
"  for (var i = 0; i < frames.length; i++) {\n"
"    var g = frames[i];\n"
"    fit(g);\n"
"    g.addEventListener('click', function (e) { zoom(e.currentTarget); });\n"
"    g.addEventListener('mouseover', function (e) {\n"
"      details.textContent = e.currentTarget.querySelector('title').textContent; });\n"
"    g.addEventListener('mouseout', function () { details.textContent = ' '; });\n"
"  }\n"
"  unzoomBtn.addEventListener('click', unzoom);\n"
"  searchBtn.addEventListener('click', function () {\n"
"    if (searchBtn.textContent != 'Search') { resetSearch(); return; }\n"
"    var re = prompt('Search (regular expression):', ''); if (re) search(re); });\n"
"  var h = decodeURIComponent(location.hash.substring(1)), m;\n"
"  if ((m = /^zoom=(.*)$/.exec(h))) {\n"
"    for (var i = 0; i < frames.length; i++)\n"
"      if (name(frames[i]) == m[1]) {\n"
"        frames[i].dispatchEvent(new MouseEvent('click', { bubbles: true })); break; }\n"
"  } else if ((m = /^search=(.*)$/.exec(h))) {\n"
"    search(m[1]);\n"
"  }\n"
"  document.documentElement.setAttribute('data-ready', frames.length);\n"
"}\n"
"window.addEventListener('load', init);\n";

static const char *svg_title(const struct report_model *m)
{
	if (m->title)
		return m->title;
	if (m->mode == RM_SLAB)
		return m->sort == MT_SORT_COUNT ? "Live slab objects" : "Live slab bytes";
	return m->sort == MT_SORT_COUNT ? "Outstanding allocations" :
	       "Outstanding bytes";
}

int fmt_svg(FILE *out, const struct report_model *m, struct mt_err *err)
{
	struct svg_tree t = { .cap = 256 };
	unsigned int height;
	int ret = 0;

	t.nodes = calloc(t.cap, sizeof(*t.nodes));
	if (!t.nodes || !(t.nodes[0].name = strdup("all"))) {
		free(t.nodes);
		return mt_errf(err, ENOMEM, "out of memory drawing the flame graph");
	}
	t.nr = 1;
	for (size_t i = 0; i < m->nr_stacks && !ret; i++)
		if (!add_stack(&t, &m->stacks[i]))
			ret = mt_errf(err, ENOMEM, "out of memory drawing the flame graph");
	height = SVG_TOP + SVG_BOTTOM + (t.max_depth + 1) * SVG_FRAME_H + SVG_PAD;
	if (!ret) {
		fprintf(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
			"<svg version=\"1.1\" width=\"%d\" height=\"%u\" viewBox=\"0 0 %d %u\" "
			"xmlns=\"http://www.w3.org/2000/svg\">\n", SVG_WIDTH, height, SVG_WIDTH,
			height);
		fputs("<style>text { font-family: 'DejaVu Sans Mono', monospace; font-size: 12px; "
		      "fill: rgb(0,0,0); } #frames text { pointer-events: none; } "
		      "g.f:hover rect { stroke: rgb(0,0,0); stroke-width: 0.5; cursor: pointer; } "
		      "g.parent { opacity: 0.5; } .hide { display: none; } "
		      "#unzoom, #search { cursor: pointer; } #title { font-size: 17px; }"
		      "</style>\n<script><![CDATA[\n", out);
		fputs(svg_script, out);
		fputs("]]></script>\n", out);
		fprintf(out, "<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" "
			"fill=\"rgb(240,245,250)\"/>\n<text id=\"title\" x=\"%d\" y=\"24\" "
			"text-anchor=\"middle\">", SVG_WIDTH / 2);
		fprintf(out, "%s, %s, %s (memtrace-read)</text>\n", svg_title(m),
			rmodel_name(m), m->timestamp);
		fprintf(out, "<text id=\"unzoom\" x=\"%d\" y=\"24\" class=\"hide\">Reset Zoom</text>\n"
			"<text id=\"search\" x=\"%d\" y=\"24\">Search</text>\n"
			"<text id=\"details\" x=\"%d\" y=\"%u\"> </text>\n"
			"<text id=\"matched\" x=\"%d\" y=\"%u\"> </text>\n<g id=\"frames\">\n",
			SVG_PAD, SVG_WIDTH - 110, SVG_PAD, height - 10, SVG_WIDTH - 160, height - 10);
		put_node(out, &t, m, 0, 0, height);
		fputs("</g>\n</svg>\n", out);
		if (ferror(out))
			ret = mt_errf(err, EIO, "cannot write the flame graph");
	}
	for (size_t i = 0; i < t.nr; i++)
		free(t.nodes[i].name);
	free(t.nodes);
	return ret;
}
