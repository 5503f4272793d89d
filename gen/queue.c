#include "queue.h"

#include <stdlib.h>
#include <string.h>

#include "../core/memory.h"

/* An empty queue block, NULL if memory ran out. */
static QBlock *block_new(Solver *s)
{
    omp_set_lock(&s->blocks);
    QBlock *b = s->spare;
    if (b) {
        s->spare = b->next;
    } else {
        void **slabs = realloc(s->slabs, (s->nslabs + 1) * sizeof *slabs);
        QBlock *slab = slabs ? mem_huge(QSLAB * sizeof *slab) : NULL;
        if (slabs)
            s->slabs = slabs;
        if (slab) {
            s->slabs[s->nslabs++] = slab;
            for (int k = 1; k < QSLAB; k++) {
                slab[k].next = s->spare;
                s->spare = &slab[k];
            }
            b = &slab[0];
        }
    }
    omp_unset_lock(&s->blocks);
    return b;
}

/* Every queue block goes back to memory (the slabs they are carved from). */
void queue_release(Solver *s)
{
    for (size_t k = 0; k < s->nslabs; k++)
        mem_release(s->slabs[k]);
    free(s->slabs);
    s->slabs = NULL;
    s->nslabs = 0;
    s->spare = NULL;
}

/* Block b, its level done, is free for another. */
void queue_block_done(Solver *s, QBlock *b)
{
    omp_set_lock(&s->blocks);
    b->next = s->spare;
    s->spare = b;
    omp_unset_lock(&s->blocks);
}

/* Queues position i of `part` at `level` (if cand, only flagged as waiting on an exit: see QUEUED). */
void queue_pend(Solver *s, int level, int part, int cand, uint64_t i)
{
    Queue *q = &s->queues[omp_get_thread_num()];
    if (level > MAX_DTW) {
        s->failed = true;
        return;
    }
    if (level >= q->n) {
        int n = level + 64;
        QBlock **l = realloc(q->level, (size_t)n * (size_t)s->lanes * sizeof *l);
        if (!l) {
            s->failed = true;
            return;
        }
        for (size_t k = (size_t)q->n * (size_t)s->lanes; k < (size_t)n * (size_t)s->lanes; k++)
            l[k] = NULL;
        q->level = l;
        q->n = n;
    }
    int lane = lane_of(s, part, i);
    QBlock **head = queue_head(s, q, level, lane);
    if (!*head || (*head)->n == QBLOCK) {
        QBlock *b = block_new(s);
        if (!b) {
            s->failed = true;
            return;
        }
        b->next = *head;
        b->lane = lane;
        b->n = 0;
        *head = b;
    }
    (*head)->v[(*head)->n++] = QUEUED(cand, i - lane_base(s, lane));
    q->pushed++;
}

/* The highest level from `from` on with positions to propagate, in any thread's queue; -1 if
 * none. */
int queue_top_level(const Solver *s, int from)
{
    int top = -1;
    for (int t = 0; t < s->threads; t++)
        for (int l = s->queues[t].n - 1; l >= from && l > top; l--)
            for (int lane = 0; lane < s->lanes; lane++)
                if (*queue_head(s, &s->queues[t], l, lane)) {
                    top = l;
                    break;
                }
    return top;
}

/* Puts the entries of blocks b[0..nb) (ORDER_ROUND at most) in order into r->v: a counting
 * sort, run by every thread of the enclosing parallel region (two passes and a prefix sum
 * between them; each thread takes the same blocks in both passes). r->count holds counters
 * for as many threads as the region has. */
void queue_round_order(const Solver *s, Round *r, QBlock *const *b, size_t nb)
{
    int team = omp_get_num_threads(), shift = s->lane_bits - ORDER_SHIFT;
    size_t keys = (size_t)s->lanes << shift;
    uint32_t *count = r->count + (size_t)omp_get_thread_num() * keys;
    memset(count, 0, keys * sizeof *count);
#pragma omp for schedule(static)
    for (size_t k = 0; k < nb; k++) {
        uint32_t *c = count + ((size_t)b[k]->lane << shift);
        for (uint32_t j = 0; j < b[k]->n; j++)
            c[QUEUED_OFFSET(b[k]->v[j]) >> ORDER_SHIFT]++;
    }
#pragma omp single
    {
        uint32_t sum = 0;
        for (size_t key = 0; key < keys; key++) {
            if (key % ((size_t)1 << shift) == 0)
                r->start[key >> shift] = sum;
            for (int t = 0; t < team; t++) {
                uint32_t n = r->count[(size_t)t * keys + key];
                r->count[(size_t)t * keys + key] = sum;
                sum += n;
            }
        }
        r->start[s->lanes] = sum;
    }
#pragma omp for schedule(static)
    for (size_t k = 0; k < nb; k++) {
        uint32_t *c = count + ((size_t)b[k]->lane << shift);
        for (uint32_t j = 0; j < b[k]->n; j++)
            r->v[c[QUEUED_OFFSET(b[k]->v[j]) >> ORDER_SHIFT]++] = b[k]->v[j];
    }
}

/* Sorts v[0..n) by the low ORDER_SHIFT bits of their index: a radix sort, tmp holding n
 * entries. */
static void sort_low_bits(uint32_t *v, size_t n, uint32_t *tmp)
{
    _Static_assert(ORDER_SHIFT == 16, "two passes of 8 bits");
    if (n < 32) {
        for (size_t k = 1; k < n; k++) {
            uint32_t x = v[k];
            size_t j = k;
            for (; j > 0 && (v[j - 1] & 0xffff) > (x & 0xffff); j--)
                v[j] = v[j - 1];
            v[j] = x;
        }
        return;
    }
    for (int shift = 0; shift < 16; shift += 8) {
        size_t count[256] = {0};
        for (size_t k = 0; k < n; k++)
            count[v[k] >> shift & 0xff]++;
        size_t sum = 0;
        for (int b = 0; b < 256; b++) {
            size_t c = count[b];
            count[b] = sum;
            sum += c;
        }
        for (size_t k = 0; k < n; k++)
            tmp[count[v[k] >> shift & 0xff]++] = v[k];
        uint32_t *t = v;
        v = tmp;
        tmp = t;
    }
}

/* Puts v[0..n) (tmp holding n entries), entries of one lane in order of the high bits of their
 * offset (round_order), in order of offset, so that positions with the same men come one after
 * the other. */
void queue_sort_by_index(uint32_t *v, size_t n, uint32_t *tmp)
{
    for (size_t a = 0, b; a < n; a = b) {
        uint64_t high = QUEUED_OFFSET(v[a]) >> ORDER_SHIFT;
        for (b = a + 1; b < n && QUEUED_OFFSET(v[b]) >> ORDER_SHIFT == high; b++)
            ;
        sort_low_bits(v + a, b - a, tmp);
    }
}
