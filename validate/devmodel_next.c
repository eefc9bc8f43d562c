/*
 * devmodel_next.c - a device model built from the one before
 * (devmodel_build_next): the pieces of device memory successive models
 * share (reference-counted arenas), the interned ids and strings a model
 * starts from, which pools are the same slices as before (whose devices
 * devmodel.c then copies as values, contents shared), and when to build
 * everything again instead.
 */
#include "devmodel_next.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "limits.h"
#include "object.h"
#include "xalloc.h"

/* A piece's arena grows by this much: most pieces hold the devices of
 * one slice or a few. */
#define DM_PIECE_BYTES 16384
/* Pieces a model may hold: every build adds one (none are given back
 * while the chain lasts, see reusable()), and each costs a reference
 * per build. */
#define DM_MAX_PIECES 4096

static struct dm_piece *piece_new(size_t chunk)
{
    struct dm_piece *p = xcalloc(1, sizeof(*p));

    atomic_init(&p->refs, 1);
    atomic_init(&p->bytes, 0);
    arena_init(&p->a, chunk);
    arena_meter(&p->a, &p->bytes);
    return p;
}

/* A devs array, kept from one model to a later one (dm_next_devs). */
struct dm_devblock {
    size_t cap;
    struct dm_device devs[];
};

static void piece_unref(struct dm_piece *p)
{
    if (atomic_fetch_sub(&p->refs, 1) != 1)
        return;
    free(atomic_load(&p->spare));
    arena_meter(&p->a, NULL);
    arena_release(&p->a);
    free(p);
}

/* 1 if a model can be built from prev. A model holds every piece of the
 * one before (a piece is never given back while the chain lasts: an
 * interned string in it may be what a device of another piece points
 * at), so the pieces after the first, the full build's, stand for pools
 * built again, and about as much memory of the first one is garbage:
 * when that is more than half of what is held, or there are too many
 * pieces, the next model is a full build, which starts a new chain and
 * lets the old pieces go with the models that hold them. */
static int reusable(const struct devmodel *prev, int list_attributes)
{
    size_t i, base, later = 0;

    if (!prev || !prev->pieces || prev->list_attributes != list_attributes
        || prev->npieces >= DM_MAX_PIECES
        || (prev->domains_base.cap
            && prev->domains.n > prev->domains_base.n / 2 + 1024))
        return 0;
    base = atomic_load(&prev->pieces[0]->bytes);
    for (i = 1; i < prev->npieces; i++)
        later += atomic_load(&prev->pieces[i]->bytes);
    return later <= base;
}

/* m's interned ids and strings start as prev's, with the same ids and
 * the same addresses (in prev's pieces, which m holds): the devices taken
 * from prev keep theirs. The interned strings of the chain's full build
 * are shared as they are (a value a device of its own has is as many
 * strings as devices), those added since are copied. */
static void seed(struct devmodel *m, const struct devmodel *prev)
{
    const struct strmap *added = &prev->domains;
    size_t i;

    for (i = 0; i < prev->syms.cap; i++)
        if (prev->syms.slots[i].key)
            strmap_put(&m->syms, prev->syms.slots[i].key,
                       prev->syms.slots[i].value);
    m->nsyms = prev->nsyms;
    if (prev->domains_base.cap) {
        m->domains_base = prev->domains_base;
    } else {
        m->domains_base = prev->domains;
        added = &m->domains;        /* (empty) */
    }
    for (i = 0; i < added->cap; i++)
        if (added->slots[i].key)
            strmap_put_borrowed(&m->domains, added->slots[i].key,
                                added->slots[i].value);
}

const struct devmodel *dm_next_begin(struct devmodel *m,
                                     const struct devmodel *prev)
{
    struct dm_piece *own;
    size_t i;

    if (!reusable(prev, m->list_attributes))
        prev = NULL;
    own = piece_new(prev ? DM_PIECE_BYTES : ARENA_RUN_BYTES);
    m->pieces = arena_alloc(m->a, ((prev ? prev->npieces : 0) + 1)
                                  * sizeof(*m->pieces));
    for (i = 0; prev && i < prev->npieces; i++) {
        atomic_fetch_add(&prev->pieces[i]->refs, 1);
        m->pieces[m->npieces++] = prev->pieces[i];
    }
    m->pieces[m->npieces++] = own;
    m->da = &own->a;
    if (prev)
        seed(m, prev);
    else                /* the chain's first: shared by the models after */
        strmap_init(&m->domains, m->da);
    return prev;
}

/* The slot of object o in a table of mask + 1 slots (a power of two) */
static size_t rec_slot(const struct object *o, size_t mask)
{
    return (size_t)(((uint64_t)(uintptr_t)o >> 4) * 0x9e3779b97f4a7c15ull
                    >> 32) & mask;
}

size_t dm_slice_record(const struct devmodel *m, const struct object *o)
{
    size_t s;
    uint32_t v;

    if (!m->rec_of)
        return SIZE_MAX;
    for (s = rec_slot(o, m->rec_mask); (v = m->rec_of[s]) != 0;
         s = (s + 1) & m->rec_mask)
        if (m->slices[v - 1].obj == o)
            return v - 1;
    return SIZE_MAX;
}

/* m's table of its records by object address (the first record of an
 * object given twice) */
static void index_records(struct devmodel *m)
{
    size_t cap = 16, r, s;

    if (m->nslice_recs >= UINT32_MAX / 2)
        return;             /* (no table: nothing found in m) */
    while (cap < 2 * m->nslice_recs)
        cap *= 2;
    m->rec_of = arena_alloc(m->a, cap * sizeof(*m->rec_of));
    m->rec_mask = cap - 1;
    for (r = 0; r < m->nslice_recs; r++) {
        const struct object *o = m->slices[r].obj;
        for (s = rec_slot(o, m->rec_mask); m->rec_of[s]
             && m->slices[m->rec_of[s] - 1].obj != o;
             s = (s + 1) & m->rec_mask)
            ;
        if (!m->rec_of[s])
            m->rec_of[s] = (uint32_t)(r + 1);
    }
}

/* 1 if slice o, the ord-th of its pool, is that pool's ord-th in before
 * too (*at: its record there, whose pool0 is that pool). */
static int same_slice(const struct devmodel *before, const struct object *o,
                      size_t ord, size_t *at)
{
    *at = dm_slice_record(before, o);
    return *at != SIZE_MAX && before->slices[*at].ord == ord;
}

void dm_next_slices(struct devmodel *m, const struct devmodel *before,
                    const struct object *const *objs, size_t n,
                    const size_t *opool, const struct dm_facts *const *facts,
                    struct dm_next_reuse *reuse)
{
    size_t i, p, r = 0, np = m->npools;
    unsigned char *ok = NULL;
    size_t *cnt, *was = NULL;   /* per pool: its entry in before */

    memset(reuse, 0, sizeof(*reuse));
    for (i = 0; i < n; i++)
        r += opool[i] != 0;
    m->slices = arena_alloc(m->a, (r + 1) * sizeof(*m->slices));
    m->nslice_recs = r;
    cnt = arena_alloc(m->a, (np + 1) * sizeof(*cnt));
    m->pool_nslices = cnt;
    if (before) {
        ok = arena_alloc(m->a, np + 1);
        memset(ok, 1, np);
        was = arena_alloc(m->a, (np + 1) * sizeof(*was));
        reuse->rec = arena_alloc(m->a, (r + 1) * sizeof(*reuse->rec));
    }
    for (i = 0, r = 0; i < n; i++) {
        struct dm_slice *rec = &m->slices[r];
        if (!opool[i])
            continue;
        p = opool[i] - 1;
        rec->obj = objs[i];
        rec->f = *facts[i];
        rec->ord = cnt[p]++;
        rec->pool = SIZE_MAX;
        rec->pool0 = p;
        if (ok && ok[p] && !same_slice(before, objs[i], rec->ord,
                                       &reuse->rec[r]))
            ok[p] = 0;
        else if (ok && ok[p])
            was[p] = before->slices[reuse->rec[r]].pool0;
        r++;
    }
    index_records(m);
    if (!before)
        return;
    /* and the pool has no other slice there (every pool has one here,
     * and the same objects are of the same pool there) */
    for (p = 0; p < np; p++)
        ok[p] = ok[p] && before->pool_nslices[was[p]] == cnt[p];
    reuse->pool = ok;
}

/* Adds d's interned ids to count, or takes them (by -1). */
static void count_syms(size_t *count, const struct dm_device *d, size_t by)
{
    size_t k;

    for (k = 0; k < d->cel.nattrs; k++)
        count[d->attr_sym[k]] += by;
    for (k = 0; k < d->cel.ncaps; k++)
        count[d->cap_sym[k]] += by;
}

void dm_next_finish(struct devmodel *m, const struct devmodel *before,
                    const unsigned char *taken, const unsigned char *reused)
{
    struct dm_piece *own = m->pieces[m->npieces - 1];
    size_t *count = arena_alloc(m->a, (m->nsyms + 1) * sizeof(*count));
    size_t i, k;

    /* nothing built: the piece is not kept */
    if (m->npieces > 1 && !atomic_load(&own->bytes)) {
        piece_unref(own);
        m->npieces--;
        m->da = m->a;
        m->pool_index.arena = m->a;     /* (a table shared, read only) */
    }
    m->symcount = count;
    if (!before) {
        for (i = 0; i < m->ndevs; i++)
            count_syms(count, &m->devs[i], 1);
        return;
    }
    memcpy(count, before->symcount, before->nsyms * sizeof(*count));
    for (i = 0; i < before->nslice_recs; i++)
        for (k = 0; !taken[i] && k < before->slices[i].n; k++)
            count_syms(count, &before->devs[before->slices[i].first + k],
                       (size_t)-1);
    for (i = 0; i < m->nslice_recs; i++)
        for (k = 0; k < m->slices[i].n; k++)
            if (!reused[m->slices[i].first + k])
                count_syms(count, &m->devs[m->slices[i].first + k], 1);
}

struct dm_device *dm_next_devs(struct devmodel *m, size_t n)
{
    struct dm_devblock *d = atomic_exchange(&m->pieces[0]->spare, NULL);

    if (d && d->cap < n) {
        free(d);
        d = NULL;
    }
    if (!d) {
        d = xmalloc(sizeof(*d) + n * sizeof(d->devs[0]));
        d->cap = n;
    }
    m->devblock = d;
    return d->devs;
}

void dm_next_release(struct devmodel *m)
{
    size_t i;

    /* the devs array to the chain's first piece, for the next model (one
     * is kept: the larger) */
    if (m->devblock && m->npieces) {
        struct dm_devblock *old = atomic_exchange(&m->pieces[0]->spare,
                                                  m->devblock);
        if (old && old->cap > m->devblock->cap)
            old = atomic_exchange(&m->pieces[0]->spare, old);
        free(old);
        m->devblock = NULL;
    }

    for (i = 0; i < m->npieces; i++)
        piece_unref(m->pieces[i]);
    m->npieces = 0;
    m->pieces = NULL;
}
