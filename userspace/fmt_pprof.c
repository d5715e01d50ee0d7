// SPDX-License-Identifier: GPL-2.0
/*
 * The pprof profile: profile.proto (proto/, from google/pprof) encoded by
 * protobuf-c, gzipped with zlib, as go tool pprof, Pyroscope and Parca
 * read it.  Sample types are those of Go's heap profiles, in their order
 * (alloc_objects, alloc_space, inuse_objects, inuse_space; the last one is
 * pprof's default):
 *
 *   inuse_*   what the text report shows: outstanding allocations (--slab:
 *             live objects)
 *   alloc_*   every allocation the stack made since tracing started
 *             (--slab: not counted, 0)
 *
 * A location is one return address; the functions inlined at it are its
 * lines, innermost first, as pprof expects.  Mappings: a user frame's object
 * with its build-id (so a profile can be symbolized again elsewhere), a
 * kernel frame's module by name with the running kernel's build-id of it
 * (kbuildid.h; empty where it cannot be known).  --slab samples carry a
 * "cache" label.
 *
 * The growth modes' profiles (RM_GROWTH) count what their text reports
 * count, per (process, user stack): calls and bytes (--brk: grown,
 * --mmap --stacks: mapped; "space" the default), calls (--shm --stacks),
 * faults and, of them, the major and minor ones (--faults; --ffaults by
 * file, each file a location of its own), hits (--usdt).  Their samples
 * carry "comm" and "pid" labels.
 */
#include "fmt.h"

#include <errno.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "kbuildid.h"
#include "profile.pb-c.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__ValueType ValueType;
typedef Perftools__Profiles__Label Label;

/* A key interned in a tree: a string, or a location's address and mapping. */
struct interned {
	const char *s;		/* strings, functions (name '\n' file), mappings (name) */
	uint64_t addr;		/* locations */
	uint64_t id;		/* index (strings) or id (the others) */
};

struct builder {
	Profile p;
	void *strings, *functions, *locations, *mappings;	/* tsearch trees */
	size_t cap_strings, cap_functions, cap_locations, cap_mappings, cap_samples;
	struct interned **nodes;	/* every node, to free */
	size_t nr_nodes, cap_nodes;
	bool kernel;		/* the frames are the kernel's (not a process's) */
	bool failed;
};

static int str_cmp(const void *a, const void *b)
{
	return strcmp(((const struct interned *)a)->s, ((const struct interned *)b)->s);
}

static int loc_cmp(const void *a, const void *b)
{
	const struct interned *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->s, y->s);
}

/* Grows *arr (of elem bytes) so that index n fits. */
static bool grow(struct builder *b, void **arr, size_t *cap, size_t n, size_t elem)
{
	void *grown;
	size_t c;

	if (n < *cap)
		return true;
	c = *cap ? *cap * 2 : 64;
	while (c <= n)
		c *= 2;
	grown = realloc(*arr, c * elem);
	if (!grown) {
		b->failed = true;
		return false;
	}
	*arr = grown;
	*cap = c;
	return true;
}

/*
 * The node for key in tree, added with a copy of key->s and id next_id if
 * new (*added true).  NULL out of memory.
 */
static struct interned *intern(struct builder *b, void **tree, const struct interned *key,
			       int (*cmp)(const void *, const void *), uint64_t next_id,
			       bool *added)
{
	struct interned *n, **found;

	*added = false;
	found = tfind(key, tree, cmp);
	if (found)
		return *found;
	if (!grow(b, (void **)&b->nodes, &b->cap_nodes, b->nr_nodes, sizeof(*b->nodes)))
		return NULL;
	n = calloc(1, sizeof(*n));
	if (n)
		n->s = strdup(key->s);
	if (!n || !n->s || !tsearch(n, tree, cmp)) {
		if (n)
			free((void *)n->s);
		free(n);
		b->failed = true;
		return NULL;
	}
	n->addr = key->addr;
	n->id = next_id;
	b->nodes[b->nr_nodes++] = n;
	*added = true;
	return n;
}

/* The string table index of s. */
static int64_t str_index(struct builder *b, const char *s)
{
	struct interned key = { .s = s ? s : "" }, *n;
	bool added;

	n = intern(b, &b->strings, &key, str_cmp, b->p.n_string_table, &added);
	if (!n)
		return 0;
	if (added) {
		if (!grow(b, (void **)&b->p.string_table, &b->cap_strings, b->p.n_string_table,
			  sizeof(char *)))
			return 0;
		b->p.string_table[b->p.n_string_table++] = (char *)n->s;
	}
	return (int64_t)n->id;
}

static uint64_t function_id(struct builder *b, const struct rm_frame *f)
{
	size_t len = strlen(f->function) + (f->file ? strlen(f->file) : 0) + 2;
	struct interned key = { 0 }, *n;
	Function *fn;
	char *name;
	bool added;

	name = malloc(len);
	if (!name) {
		b->failed = true;
		return 0;
	}
	snprintf(name, len, "%s\n%s", f->function, f->file ? f->file : "");
	key.s = name;
	n = intern(b, &b->functions, &key, str_cmp, b->p.n_function + 1, &added);
	free(name);
	if (!n || !added)
		return n ? n->id : 0;
	if (!grow(b, (void **)&b->p.function, &b->cap_functions, b->p.n_function,
		  sizeof(Function *)))
		return 0;
	fn = calloc(1, sizeof(*fn));
	if (!fn) {
		b->failed = true;
		return 0;
	}
	perftools__profiles__function__init(fn);
	fn->id = n->id;
	fn->name = str_index(b, f->function);
	fn->system_name = fn->name;
	fn->filename = str_index(b, f->file);
	b->p.function[b->p.n_function++] = fn;
	return n->id;
}

/* A kernel frame's module ("kernel" for vmlinux), or a user frame's object. */
static const char *mapping_name(const struct rm_frame *f)
{
	if (f->map_path)
		return f->map_path;
	return f->module ? f->module : "[unknown]";
}

static uint64_t mapping_id(struct builder *b, const struct rm_frame *f)
{
	struct interned key = { .s = mapping_name(f) }, *n;
	Mapping *m;
	bool added;

	n = intern(b, &b->mappings, &key, str_cmp, b->p.n_mapping + 1, &added);
	if (!n)
		return 0;
	if (added) {
		if (!grow(b, (void **)&b->p.mapping, &b->cap_mappings, b->p.n_mapping,
			  sizeof(Mapping *)))
			return 0;
		m = calloc(1, sizeof(*m));
		if (!m) {
			b->failed = true;
			return 0;
		}
		perftools__profiles__mapping__init(m);
		m->id = n->id;
		m->filename = str_index(b, key.s);
		if (b->kernel) {
			char id[KBUILDID_HEX_LEN];

			/* Once per module and profile: "" if not known. */
			kbuildid_of(f->module, id, sizeof(id));
			m->build_id = str_index(b, id);
		} else {
			m->build_id = str_index(b, f->build_id);
		}
		m->has_functions = true;
		m->has_filenames = m->has_line_numbers = m->has_inline_frames =
			f->map_path != NULL;
		if (f->map_path) {
			m->memory_start = f->map_start;
			m->memory_limit = f->map_limit;
			m->file_offset = f->map_offset;
		} else {
			/* A kernel module: the range of its frames seen. */
			m->memory_start = f->addr;
			m->memory_limit = f->addr + 1;
		}
		b->p.mapping[b->p.n_mapping++] = m;
	} else if (!f->map_path) {
		m = b->p.mapping[n->id - 1];
		if (f->addr < m->memory_start)
			m->memory_start = f->addr;
		if (f->addr >= m->memory_limit)
			m->memory_limit = f->addr + 1;
	}
	return n->id;
}

/* The location of frames[0..n) (one address: inlined calls, then the function). */
static uint64_t location_id(struct builder *b, const struct rm_frame *frames, size_t n)
{
	const struct rm_frame *f = &frames[n - 1];
	/* A location without an address (a stack's note) is known by its name. */
	struct interned key = { .s = f->addr ? mapping_name(f) : f->function, .addr = f->addr };
	struct interned *node;
	Location *loc;
	bool added;

	node = intern(b, &b->locations, &key, loc_cmp, b->p.n_location + 1, &added);
	if (!node || !added)
		return node ? node->id : 0;
	if (!grow(b, (void **)&b->p.location, &b->cap_locations, b->p.n_location,
		  sizeof(Location *)))
		return 0;
	loc = calloc(1, sizeof(*loc));
	if (!loc) {
		b->failed = true;
		return 0;
	}
	perftools__profiles__location__init(loc);
	b->p.location[b->p.n_location++] = loc;
	loc->id = node->id;
	loc->address = f->addr;
	loc->mapping_id = f->addr ? mapping_id(b, f) : 0;
	loc->line = calloc(n, sizeof(*loc->line));
	if (!loc->line) {
		b->failed = true;
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		Line *l;

		if (!frames[i].function)
			continue;
		l = calloc(1, sizeof(*l));
		if (!l) {
			b->failed = true;
			return 0;
		}
		perftools__profiles__line__init(l);
		l->function_id = function_id(b, &frames[i]);
		l->line = frames[i].line;
		loc->line[loc->n_line++] = l;
	}
	return node->id;
}

/* A value type: what a sample's value counts, in what unit. */
struct vtype {
	const char *type, *unit;
};

static const struct vtype heap_types[] = {
	{ "alloc_objects", "count" }, { "alloc_space", "bytes" },
	{ "inuse_objects", "count" }, { "inuse_space", "bytes" },
};
static const struct vtype bytes_calls_types[] = { { "calls", "count" }, { "space", "bytes" } };
static const struct vtype calls_types[] = { { "calls", "count" } };
static const struct vtype faults_types[] = {
	{ "faults", "count" }, { "major_faults", "count" }, { "minor_faults", "count" },
};
static const struct vtype hits_types[] = { { "hits", "count" } };

/*
 * The model's sample types.  The default is the last one (Go's heap
 * profiles' convention) but for faults: all of them.
 */
static const struct vtype *sample_types(const struct report_model *m, size_t *n)
{
#define TYPES(t) (*n = MT_ARRAY_SIZE(t), t)
	switch (m->counts) {
	case RM_COUNTS_BYTES_CALLS:
		return TYPES(bytes_calls_types);
	case RM_COUNTS_CALLS:
		return TYPES(calls_types);
	case RM_COUNTS_FAULTS:
		return TYPES(faults_types);
	case RM_COUNTS_HITS:
		return TYPES(hits_types);
	default:
		return TYPES(heap_types);
	}
#undef TYPES
}

/* A stack's values, in sample_types()' order. */
static size_t sample_values(const struct report_model *m, const struct rm_stack *s, int64_t *v)
{
	switch (m->counts) {
	case RM_COUNTS_BYTES_CALLS:
		v[0] = (int64_t)s->count;
		v[1] = (int64_t)s->bytes;
		return 2;
	case RM_COUNTS_CALLS:
	case RM_COUNTS_HITS:
		v[0] = (int64_t)s->count;
		return 1;
	case RM_COUNTS_FAULTS:
		v[0] = (int64_t)s->count;
		v[1] = (int64_t)s->major;
		v[2] = (int64_t)(s->count - s->major);
		return 3;
	default:
		v[0] = (int64_t)s->total_allocs;
		v[1] = (int64_t)s->total_bytes;
		v[2] = (int64_t)s->count;
		v[3] = (int64_t)s->bytes;
		return 4;
	}
}

static Label *add_label(struct builder *b, Sample *smp, const char *key)
{
	Label *l = calloc(1, sizeof(*l));

	if (!l) {
		b->failed = true;
		return NULL;
	}
	perftools__profiles__label__init(l);
	l->key = str_index(b, key);
	smp->label[smp->n_label++] = l;
	return l;
}

static void add_sample(struct builder *b, const struct report_model *m, const struct rm_stack *s)
{
	Sample *smp;
	Label *l;

	if (!grow(b, (void **)&b->p.sample, &b->cap_samples, b->p.n_sample, sizeof(Sample *)))
		return;
	smp = calloc(1, sizeof(*smp));
	if (!smp) {
		b->failed = true;
		return;
	}
	perftools__profiles__sample__init(smp);
	b->p.sample[b->p.n_sample++] = smp;
	smp->location_id = calloc(s->nr_frames ? s->nr_frames : 1, sizeof(uint64_t));
	smp->value = calloc(4, sizeof(int64_t));
	/* At most two labels: cache or note, or comm and pid. */
	smp->label = calloc(2, sizeof(*smp->label));
	if (!smp->location_id || !smp->value || !smp->label) {
		b->failed = true;
		return;
	}
	smp->n_value = sample_values(m, s, smp->value);
	/* No frames: the note says why, as a location of its own, so that the
	 * sample counts in the totals as in the text report. */
	if (!s->nr_frames) {
		struct rm_frame note = { .function = s->note ? s->note : "[no stack]" };

		smp->location_id[smp->n_location_id++] = location_id(b, &note, 1);
	}
	/* Leaf first; the frames of one address make one location. */
	for (size_t i = 0; i < s->nr_frames;) {
		size_t n = 1;

		while (i + n < s->nr_frames && s->frames[i + n].addr == s->frames[i].addr &&
		       s->frames[i + n - 1].inlined)
			n++;
		smp->location_id[smp->n_location_id++] = location_id(b, &s->frames[i], n);
		i += n;
	}
	if (s->comm) {
		l = add_label(b, smp, "comm");
		if (l)
			l->str = str_index(b, s->comm);
		l = add_label(b, smp, "pid");
		if (l)
			l->num = s->pid;
	} else if (s->cache || s->note) {
		l = add_label(b, smp, s->cache ? "cache" : "note");
		if (l)
			l->str = str_index(b, s->cache ? s->cache : s->note);
	}
}

static ValueType *value_type(struct builder *b, const char *type, const char *unit)
{
	ValueType *v = calloc(1, sizeof(*v));

	if (!v) {
		b->failed = true;
		return NULL;
	}
	perftools__profiles__value_type__init(v);
	v->type = str_index(b, type);
	v->unit = str_index(b, unit);
	return v;
}

/* The nodes are freed from b->nodes. */
static void free_nothing(void *node)
{
	(void)node;
}

static void free_profile(struct builder *b)
{
	Profile *p = &b->p;

	for (size_t i = 0; i < p->n_sample; i++) {
		for (size_t l = 0; l < p->sample[i]->n_label; l++)
			free(p->sample[i]->label[l]);
		free(p->sample[i]->label);
		free(p->sample[i]->location_id);
		free(p->sample[i]->value);
		free(p->sample[i]);
	}
	for (size_t i = 0; i < p->n_location; i++) {
		for (size_t l = 0; l < p->location[i]->n_line; l++)
			free(p->location[i]->line[l]);
		free(p->location[i]->line);
		free(p->location[i]);
	}
	for (size_t i = 0; i < p->n_function; i++)
		free(p->function[i]);
	for (size_t i = 0; i < p->n_mapping; i++)
		free(p->mapping[i]);
	for (size_t i = 0; i < p->n_sample_type; i++)
		free(p->sample_type[i]);
	free(p->sample);
	free(p->location);
	free(p->function);
	free(p->mapping);
	free(p->sample_type);
	free(p->period_type);
	free(p->string_table);
	tdestroy(b->strings, free_nothing);
	tdestroy(b->functions, free_nothing);
	tdestroy(b->locations, free_nothing);
	tdestroy(b->mappings, free_nothing);
	for (size_t i = 0; i < b->nr_nodes; i++) {
		free((void *)b->nodes[i]->s);
		free(b->nodes[i]);
	}
	free(b->nodes);
}

/* Deflates buf into out as one gzip member. */
static int write_gzip(FILE *out, const uint8_t *buf, size_t len, struct mt_err *err)
{
	uint8_t chunk[16384];
	z_stream z;
	int zret;

	memset(&z, 0, sizeof(z));
	/* 15 + 16: a gzip header and trailer rather than zlib's. */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return mt_errf(err, ENOMEM, "zlib: cannot start compressing");
	z.next_in = (uint8_t *)buf;
	z.avail_in = (uInt)len;
	do {
		z.next_out = chunk;
		z.avail_out = sizeof(chunk);
		zret = deflate(&z, Z_FINISH);
		if (zret == Z_STREAM_ERROR)
			break;
		if (fwrite(chunk, 1, sizeof(chunk) - z.avail_out, out) != sizeof(chunk) - z.avail_out) {
			deflateEnd(&z);
			return mt_errf(err, EIO, "cannot write the profile");
		}
	} while (zret != Z_STREAM_END);
	deflateEnd(&z);
	return zret == Z_STREAM_END ? 0 : mt_errf(err, EIO, "zlib: compressing failed");
}

int fmt_pprof(FILE *out, const struct report_model *m, struct mt_err *err)
{
	const struct vtype *types, *dflt;
	struct builder b;
	struct timespec now;
	uint8_t *buf = NULL;
	size_t len, nr_types;
	int ret;

	memset(&b, 0, sizeof(b));
	b.kernel = m->mode != RM_USER_LEAKS && m->mode != RM_GROWTH;
	types = sample_types(m, &nr_types);
	perftools__profiles__profile__init(&b.p);
	str_index(&b, "");	/* string_table[0] is "" */
	b.p.sample_type = calloc(nr_types, sizeof(*b.p.sample_type));
	if (!b.p.sample_type)
		b.failed = true;
	for (size_t i = 0; i < nr_types && !b.failed; i++)
		b.p.sample_type[b.p.n_sample_type++] = value_type(&b, types[i].type, types[i].unit);
	dflt = m->counts == RM_COUNTS_FAULTS ? &types[0] : &types[nr_types - 1];
	if (m->mode == RM_GROWTH)
		b.p.period_type = value_type(&b, dflt->type, dflt->unit);
	else
		b.p.period_type = value_type(&b, "space", "bytes");
	/* Sampled: values are the module's estimates already. */
	b.p.period = 1;
	b.p.default_sample_type = str_index(&b, dflt->type);
	clock_gettime(CLOCK_REALTIME, &now);
	b.p.time_nanos = (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec;
	for (size_t i = 0; i < m->nr_stacks && !b.failed; i++)
		add_sample(&b, m, &m->stacks[i]);
	if (b.failed) {
		free_profile(&b);
		return mt_errf(err, ENOMEM, "out of memory building the profile");
	}
	len = perftools__profiles__profile__get_packed_size(&b.p);
	buf = malloc(len ? len : 1);
	if (!buf) {
		free_profile(&b);
		return mt_errf(err, ENOMEM, "out of memory encoding the profile");
	}
	perftools__profiles__profile__pack(&b.p, buf);
	free_profile(&b);
	ret = write_gzip(out, buf, len, err);
	free(buf);
	return ret;
}
