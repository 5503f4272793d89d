#include "gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Bytes a table kept for lookups takes (its codes: value and distance) a position: one while
 * its distances fit in a byte, else two; planned at two. Solving a unit holds a 2-byte state
 * word a position and queues positions at 4 bytes each (at most QUEUE_SHARE of the positions
 * at once: every unit of ≤6 Brazilian stayed below 0.6), both divided among the ranks of a
 * split, plus a round of a level's positions put in order (SOLVE_ORDER_ROUND, 4 bytes each);
 * then it builds each slice's finished table (codes and don't-care flag, at most 3 bytes a
 * position; with a split, of the rank's share) while the words of the slices not yet built
 * are still held.
 * A split also holds the updates of a round of SOLVE_EXCHANGE_ROUND positions in flight: about
 * 10 a position (9.4 on the largest ≤6 Brazilian unit), 8 bytes each, up to twice over in the
 * senders' growing buffers, once in the copy sent and once received. */
enum { WORD_BYTES = 2, QUEUE_BYTES = 4, TABLE_BYTES = 3 };
#define EXCHANGE_BYTES (4ull * 8 * 10 * SOLVE_EXCHANGE_ROUND)
#define QUEUE_SHARE 0.75

/* The positions of unit m's slices: *n0 of m, *n1 of its twin (0 if m is its own twin). */
static void unit_slices(Material m, int board, uint64_t *n0, uint64_t *n1)
{
    Slice a, b;
    slice_init(&a, m, board);
    *n0 = a.size;
    *n1 = 0;
    if (!material_equal(m, material_swap(m))) {
        slice_init(&b, material_swap(m), board);
        *n1 = b.size;
    }
}

/* Bytes a rank holds propagating a unit of n positions split over `ranks`. */
static uint64_t propagating_bytes(uint64_t n, int ranks)
{
    return (uint64_t)((WORD_BYTES + QUEUE_BYTES * QUEUE_SHARE) * (double)n) / (uint64_t)ranks +
           QUEUE_BYTES * (uint64_t)SOLVE_ORDER_ROUND + (ranks > 1 ? EXCHANGE_BYTES : 0);
}

/* Bytes of working state for solving unit m in one process. */
static uint64_t solving_bytes(Material m, int board)
{
    uint64_t n0, n1;
    unit_slices(m, board, &n0, &n1);
    uint64_t n = n0 + n1, propagating = propagating_bytes(n, 1);
    uint64_t first = WORD_BYTES * n + TABLE_BYTES * n0;
    uint64_t second = WORD_BYTES * n1 + TABLE_BYTES * n;
    uint64_t tables = first > second ? first : second;
    return propagating > tables ? propagating : tables;
}

/* With a split, a rank keeps no table: it holds its share of the unit being solved (as above,
 * divided among the ranks) and, to write it, its share packed (the values at a quarter of a
 * byte a position, the distances at up to two) and encoded (planned as large again: on rank
 * 0, another rank's encoded share received), beside the probe cache through which it reads
 * every unit it needs. */
#define WRITE_BYTES 4.5

static uint64_t shared_bytes(Material m, int board, int ranks)
{
    uint64_t n0, n1, r = (uint64_t)ranks;
    unit_slices(m, board, &n0, &n1);
    uint64_t n = n0 + n1, most = 0;
    uint64_t phases[4] = {
        propagating_bytes(n, ranks),
        (WORD_BYTES * n + TABLE_BYTES * n0) / r,
        (WORD_BYTES * n1 + TABLE_BYTES * n) / r,
        (uint64_t)(TABLE_BYTES * (double)n + WRITE_BYTES * (double)(n0 > n1 ? n0 : n1)) / r,
    };
    for (int k = 0; k < 4; k++)
        most = phases[k] > most ? phases[k] : most;
    return most + DISK_CACHE_BYTES;
}

/* Updates between ranks, from the largest ≤6 Brazilian unit split over ranks
 * (docs/DISTRIBUTED.md): 72% of the positions decided, 9.4 updates each, 8 bytes an update,
 * all but 1/R of them to another rank. */
#define DECIDED_SHARE 0.72
#define UPDATES_PER_DECIDED 9.4

void gen_split_plan(const Material *units, int n, const bool *on_disk, int board, int ranks, uint64_t *bytes,
                    uint64_t *traffic)
{
    double crossing = 0;
    *bytes = 0;
    for (int u = 0; u < n; u++) {
        if (on_disk[u])
            continue;
        uint64_t b = shared_bytes(units[u], board, ranks);
        *bytes = b > *bytes ? b : *bytes;
        crossing += (double)gen_unit_size(units[u], board) * DECIDED_SHARE * UPDATES_PER_DECIDED * 8 *
                    (double)(ranks - 1) / ranks;
    }
    *traffic = (uint64_t)crossing;
}

/* The drop schedule of units [0, n): a unit on disk is loaded if a unit to solve, or a unit
 * loaded, needs it; every unit held is dropped after the last unit that needs it. */
static void plan_schedule(const Material *units, int n, const bool *on_disk, GenPlan *plan)
{
    for (int d = 0; d < n; d++) {
        plan->load[d] = false;
        plan->free_after[d] = on_disk[d] ? -1 : d;
    }
    /* A unit to solve needs its dependencies; a dependency loaded from disk needs the units
     * its captures lead to, to restore its don't-care values. Needs point to earlier units. */
    for (int u = n - 1; u >= 0; u--) {
        if (on_disk[u] && !plan->load[u])
            continue;
        for (int d = 0; d < u; d++)
            if (gen_unit_needs(units[u], units[d])) {
                plan->load[d] |= on_disk[d];
                if (plan->free_after[d] < u)
                    plan->free_after[d] = u;
            }
    }
}

/* The most bytes held at once following plan's schedule for units [0, n); *kept_end: the bytes
 * still held after unit n-1. */
static uint64_t plan_peak(const Material *units, int n, const bool *on_disk, int board, const GenPlan *plan,
                          uint64_t *kept_end)
{
    uint64_t peak = 0, kept = 0;
    for (int u = 0; u < n; u++) {
        uint64_t size = gen_unit_size(units[u], board);
        if (plan->free_after[u] >= 0) {
            /* Loading unpacks beside the table, about as much again as solving's state. */
            uint64_t working = on_disk[u] ? GEN_KEPT_BYTES * size : solving_bytes(units[u], board);
            if (kept + working + GEN_KEPT_BYTES * size > peak)
                peak = kept + working + GEN_KEPT_BYTES * size;
            kept += GEN_KEPT_BYTES * size;
        }
        for (int d = 0; d <= u; d++)
            if (plan->free_after[d] == u)
                kept -= GEN_KEPT_BYTES * gen_unit_size(units[d], board);
    }
    if (kept_end)
        *kept_end = kept;
    return peak;
}

void gen_plan(const Material *units, int n, const bool *on_disk, int board, GenPlan *plan)
{
    plan_schedule(units, n, on_disk, plan);
    plan->lean_from = n;
    plan->peak_bytes = plan_peak(units, n, on_disk, board, plan, NULL);
}

bool gen_lean_holds(const Material *units, const GenPlan *plan, int u, int d)
{
    int top = material_pieces(units[u]);
    return u >= plan->lean_from && d < plan->lean_from && material_pieces(units[d]) == top - 1 &&
           gen_unit_needs(units[u], units[d]);
}

/* The last top unit to solve (not on disk) that promotes into top unit d, or -1 if none or if
 * d is on disk itself. */
static int last_promoting(const Material *units, int n, const bool *on_disk, int d)
{
    int last = -1;
    if (on_disk[d])
        return -1;
    for (int u = d + 1; u < n; u++)
        if (!on_disk[u] && gen_unit_needs(units[u], units[d]))
            last = u;
    return last;
}

void gen_plan_lean(const Material *units, int n, const bool *on_disk, int board, uint64_t budget, GenPlan *plan)
{
    int top = material_pieces(units[n - 1]), first = 0;
    while (material_pieces(units[first]) < top)
        first++;
    plan->lean_from = first;   /* (gen_lean_holds reads it below) */
    plan->lean_kept = 0;
    bool solving = false;
    for (int u = first; u < n; u++)
        solving |= !on_disk[u];
    /* The smaller units: the usual schedule among them, except that the units of fewer than
     * top - 1 pieces stay to the end (the top units, and the top - 1 units they reload, need
     * them) and are all loaded if a top unit is to be solved. */
    plan_schedule(units, first, on_disk, plan);
    for (int d = 0; d < first; d++)
        if (material_pieces(units[d]) < top - 1 && (plan->free_after[d] >= 0 || solving)) {
            plan->load[d] |= on_disk[d];
            plan->free_after[d] = n - 1;
        }
    uint64_t small;
    plan->peak_bytes = plan_peak(units, first, on_disk, board, plan, &small);
    /* The top units: each solved with the top - 1 units it needs held (loaded again if need
     * be), the top units it promotes into read from disk, and dropped once written. */
    uint64_t need[DB_MAX_MATERIALS] = {0}, kept[DB_MAX_MATERIALS] = {0};
    for (int u = first; u < n; u++) {
        plan->load[u] = false;
        plan->free_after[u] = on_disk[u] ? -1 : u;
        if (on_disk[u])
            continue;
        uint64_t held = 0, largest = 0;
        for (int d = 0; d < first; d++)
            if (gen_lean_holds(units, plan, u, d)) {
                uint64_t size = gen_unit_size(units[d], board);
                held += GEN_KEPT_BYTES * size;
                largest = size > largest ? size : largest;
            }
        need[u] = small + held + GEN_KEPT_BYTES * largest + solving_bytes(units[u], board) + DISK_CACHE_BYTES;
    }
    /* Within the budget, a top unit solved here is instead kept until the last top unit that
     * promotes into it: that one then looks its exits up in memory rather than through the
     * probe cache (a tenth to a sixth of its initialisation, docs/PERFORMANCE.md). The
     * earliest units are kept first. */
    for (int d = first; d < n && budget > 0; d++) {
        int last = last_promoting(units, n, on_disk, d);
        if (last < 0)
            continue;
        uint64_t bytes = GEN_KEPT_BYTES * gen_unit_size(units[d], board);
        bool fits = true;
        for (int u = d + 1; u <= last && fits; u++)
            fits = on_disk[u] || need[u] + kept[u] + bytes <= budget;
        if (!fits)
            continue;
        for (int u = d + 1; u <= last; u++)
            kept[u] += bytes;
        plan->free_after[d] = last;
        plan->lean_kept++;
    }
    for (int u = first; u < n; u++)
        if (need[u] + kept[u] > plan->peak_bytes)
            plan->peak_bytes = need[u] + kept[u];
}

static uint64_t memory_limit;   /* gen_set_memory_limit; 0: none */

void gen_set_memory_limit(uint64_t bytes)
{
    memory_limit = bytes;
}

uint64_t gen_memory_limit(void)
{
    return memory_limit;
}

uint64_t gen_keep_budget(void)
{
    return gen_memory_size() / 16 * 15;
}

uint64_t gen_memory_size(void)
{
    uint64_t have = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGE_SIZE);
    return memory_limit && memory_limit < have ? memory_limit : have;
}

int gen_plan_summary(const Variant *v, int pieces, const char *dir, int ranks, bool low_memory, GenPlanSummary *out)
{
    Material units[DB_MAX_MATERIALS];
    int n = gen_units(pieces, v->rules.board_size, units), board = v->rules.board_size;
    GenPlan *plan = malloc(sizeof *plan);
    if (!plan)
        return DAMAS_ERR_NOMEM;
    bool on_disk[DB_MAX_MATERIALS] = {false};
    *out = (GenPlanSummary){.units = n, .memory_bytes = gen_memory_size()};
    for (int u = 0; u < n; u++) {
        on_disk[u] = dir && store_unit_exists(dir, units[u]);
        out->on_disk += on_disk[u];
        uint64_t size = gen_unit_size(units[u], board);
        out->positions += size;
        out->largest_unit = size > out->largest_unit ? size : out->largest_unit;
    }
    gen_plan(units, n, on_disk, board, plan);
    out->usual_bytes = plan->peak_bytes;
    gen_split_plan(units, n, on_disk, board, ranks, &out->split_bytes, &out->split_traffic);
    gen_plan_lean(units, n, on_disk, board, 0, plan);
    out->lean_bytes = plan->peak_bytes;
    for (int d = plan->lean_from; d < n; d++)
        out->top_units += last_promoting(units, n, on_disk, d) >= 0;
    gen_plan_lean(units, n, on_disk, board, gen_keep_budget(), plan);
    out->lean_keep_bytes = plan->peak_bytes;
    out->lean_kept = plan->lean_kept;
    out->lean = gen_lean_chosen(low_memory, out->usual_bytes, out->lean_bytes, out->memory_bytes);
    out->fits = (out->lean ? out->lean_bytes : out->usual_bytes) <= out->memory_bytes;
    free(plan);
    return DAMAS_OK;
}

int gen_memory_fits(const Variant *v, int pieces, uint64_t need, const char *how, char *err, size_t errlen)
{
    uint64_t have = gen_memory_size();
    if (need > have) {
        snprintf(err, errlen,
                 "%s up to %d pieces needs about %.1f GiB of memory with this generator%s; %s %.1f GiB",
                 v->name, pieces, (double)need / (1 << 30), how,
                 memory_limit && memory_limit == have ? "the limit (--max-memory) is" : "this machine has",
                 (double)have / (1 << 30));
        return DAMAS_ERR_RANGE;
    }
    return DAMAS_OK;
}

int gen_check_memory(const Variant *v, int pieces, int ranks, int node_ranks, bool split, const bool *on_disk,
                     char *err, size_t errlen)
{
    Material units[DB_MAX_MATERIALS];
    int n = gen_units(pieces, v->rules.board_size, units);
    char how[96];
    if (split) {
        /* --max-memory caps each process; without it, the node's ranks share its memory. */
        uint64_t peak, traffic, share = memory_limit ? 1 : (uint64_t)node_ranks;
        gen_split_plan(units, n, on_disk, v->rules.board_size, ranks, &peak, &traffic);
        snprintf(how, sizeof how, " (%.2f GiB a rank, %d of the %d ranks on this machine)", (double)peak / (1 << 30),
                 node_ranks, ranks);
        return gen_memory_fits(v, pieces, peak * share, how, err, errlen);
    }
    /* A rank keeps every unit it has needed: in the worst case, all. */
    uint64_t solving = 0, positions = 0;
    for (int u = 0; u < n; u++) {
        uint64_t bytes = solving_bytes(units[u], v->rules.board_size);
        positions += gen_unit_size(units[u], v->rules.board_size);
        solving = bytes > solving ? bytes : solving;
    }
    snprintf(how, sizeof how, " (each MPI rank keeps every table it has used), %d ranks on this machine", node_ranks);
    uint64_t share = memory_limit ? 1 : (uint64_t)node_ranks;
    return gen_memory_fits(v, pieces, (GEN_KEPT_BYTES * positions + solving) * share, how, err, errlen);
}

uint64_t gen_load_bytes(const char *dir, int board)
{
    Material units[DB_MAX_MATERIALS];
    int n = gen_units(DB_MAX_PIECES, board, units);
    uint64_t need = 0, largest = 0;
    for (int u = 0; u < n; u++)
        if (store_unit_exists(dir, units[u])) {
            uint64_t size = gen_unit_size(units[u], board);
            need += GEN_KEPT_BYTES * size;
            largest = size > largest ? size : largest;
        }
    return need + GEN_KEPT_BYTES * largest;
}

bool gen_load_fits(const char *dir, int board)
{
    return gen_load_bytes(dir, board) <= gen_memory_size();
}
