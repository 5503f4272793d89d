#include "movegen.h"

#include <stdlib.h>

#include "board.h"
#include "variant.h"

#define INLINE static inline __attribute__((always_inline))

/* The padded layouts of core/board.h as constants, so the compiler folds the geometry. */
#define ALL8 (((1ull << 35) - 1) & ~((1ull << 8) | (1ull << 17) | (1ull << 26)))
#define ALL10 (((1ull << 54) - 1) & ~((1ull << 10) | (1ull << 21) | (1ull << 32) | (1ull << 43)))

/* Geometry and side-dependent sets for one generation call. W is a compile-time constant
 * in each specialisation (4 for 8x8, 5 for 10x10). Scalars only, no array: the compiler keeps
 * them in registers, where a copy of an array in the struct went through the stack (a wide
 * load of narrow stores, which waits for them). */
typedef struct {
    Bitboard all;
    Bitboard far_row;    /* where the side to move's men are crowned */
    int w;               /* W: a step is -(W+1), -W, W or W+1 */
    bool white;          /* White to move: its men step towards square 0 */
} Geo;

INLINE Geo geo_make(int W, int side)
{
    Geo g;
    g.all = W == 4 ? ALL8 : ALL10;
    g.w = W;
    g.white = side == WHITE;
    int bits = W == 4 ? 35 : 54;
    g.far_row = side == WHITE ? (1ull << W) - 1 : ((1ull << W) - 1) << (bits - W);
    return g;
}

/* Direction i of 4: the two forward steps of the side to move's men (-(W+1) and -W for
 * White, W and W+1 for Black), then the two back. */
INLINE int step(const Geo *g, int i)
{
    bool towards_0 = g->white == (i < 2);
    return towards_0 ? (i & 1) - (g->w + 1) : g->w + (i & 1);
}

INLINE Bitboard shift(const Geo *g, Bitboard b, int d)
{
    return (d > 0 ? b << d : b >> -d) & g->all;
}

INLINE bool on(Bitboard set, int s)
{
    return (unsigned)s < 64 && ((set >> s) & 1);
}

/* rays[W - 4][sq][k]: the squares beyond sq, to the board's edge, in direction k = 0..3 (steps
 * -(W+1), -W, W, W+1), so that a flying king finds the first piece on a ray with one bit scan. */
static Bitboard rays[2][64][4];

__attribute__((constructor)) static void rays_init(void)
{
    for (int W = 4; W <= 5; W++) {
        Bitboard all = W == 4 ? ALL8 : ALL10;
        int steps[4] = {-(W + 1), -W, W, W + 1};
        for (int sq = 0; sq < 64; sq++)
            for (int k = 0; k < 4; k++)
                for (int s = sq + steps[k]; on(all, sq) && on(all, s); s += steps[k])
                    rays[W - 4][sq][k] |= 1ull << s;
    }
}

/* The step of ray direction k, as rays[][][k] is laid out. */
INLINE int ray_step(const Geo *g, int k)
{
    return k < 2 ? k - (g->w + 1) : g->w + k - 2;
}

/* The first square beyond sq on ray k that is not in `empty` (a piece), or 64 when the ray
 * is empty to the board's edge. */
INLINE int ray_first(const Geo *g, int sq, int k, Bitboard empty)
{
    Bitboard stops = rays[g->w - 4][sq][k] & ~empty;
    if (!stops)
        return 64;
    return k < 2 ? 63 - __builtin_clzll(stops) : __builtin_ctzll(stops);
}

/* The ray direction k of step d. */
INLINE int ray_of(const Geo *g, int d)
{
    return d < 0 ? (d == -g->w ? 1 : 0) : (d == g->w ? 2 : 3);
}

/* As ray_first, along step d. */
INLINE int first_stop(const Geo *g, int sq, int d, Bitboard empty)
{
    return ray_first(g, sq, ray_of(g, d), empty);
}

/* ---- capture sequences ---- */

typedef struct {
    const Rules *r;
    Geo g;
    MergeRule merge;
    Bitboard them;       /* enemy pieces; captured ones stay until the move ends */
    Bitboard victims;    /* enemy pieces a man may take */
    Bitboard kings;
    Bitboard empty;      /* empty squares, the mover's own start square included */
    int from;
    bool start_king;
    MoveList *list;
    int first;           /* index of the first capture in list */
    int piece_first;     /* index of the first capture by the piece at `from` */
    uint64_t best;       /* capture-law key of the moves kept so far */
    bool track;          /* add to `seen` the squares a flying king's jumps depend on */
    Bitboard seen;
} Cap;

/* State of a sequence in progress. */
typedef struct {
    Bitboard taken;
    int n;               /* pieces taken */
    int nk;              /* kings taken */
    uint32_t king_jumps; /* bit 31-i set when jump i took a king */
    uint32_t order;      /* hash of the order of capture */
} Seq;

INLINE Bitboard empty_now(const Cap *c, Bitboard taken)
{
    return c->r->remove_at_once ? c->empty | taken : c->empty;
}

INLINE Seq seq_take(const Cap *c, const Seq *from, int victim)
{
    Seq s = *from;
    bool king = on(c->kings, victim);
    s.taken |= 1ull << victim;
    s.nk += king;
    if (king)
        s.king_jumps |= 1u << (31 - s.n);
    s.n++;
    s.order = s.order * 0x9E3779B1u + (uint32_t)victim + 1;
    return s;
}

/* The capture law as one number: a larger key is a sequence the law prefers. */
INLINE uint64_t law_key(const Cap *c, const Seq *s)
{
    const Rules *r = c->r;
    return (r->law_most_pieces ? (uint64_t)s->n << 56 : 0) |
           (r->law_king_first && c->start_king ? 1ull << 55 : 0) |
           (r->law_most_kings ? (uint64_t)s->nk << 48 : 0) |
           (r->law_earliest_kings ? s->king_jumps : 0);
}

static void record(Cap *c, int to, const Seq *s, bool promotes)
{
    uint64_t key = law_key(c, s);
    MoveList *l = c->list;
    if (key < c->best)
        return;
    if (key > c->best) {
        l->count = c->first;
        c->piece_first = c->first;
        c->best = key;
    }
    uint8_t flags = promotes ? MOVE_PROMOTES : 0;
    /* One capture has one path; from two on (a flying king's intermediate landing squares)
     * several paths can share from, to and captured set. */
    if (s->n >= 2)
        for (int i = c->piece_first; i < l->count; i++) {
            const Move *m = &l->moves[i];
            if (m->to == to && m->captured == s->taken && m->flags == flags &&
                (c->merge == MERGE_CAPTURED_SET || m->order == s->order))
                return;
        }
    if (l->count == MOVELIST_MAX) {
        l->overflow = true;
        return;
    }
    l->moves[l->count++] = (Move){s->taken, s->order, (uint8_t)c->from, (uint8_t)to, flags};
}

/* Adds to c->seen the squares of the ray from sq along step d up to square v (a piece, or 64
 * when the ray is empty) and the one beyond it: the squares a flying king's look along the
 * ray and the test behind the piece depend on. Only jumps found are added: a piece of the
 * side to move put on a square where no jump was found cannot make one (it only blocks). */
static void see_ray(Cap *c, int sq, int d, int v)
{
    Bitboard ray = rays[c->g.w - 4][sq][ray_of(&c->g, d)];
    int end = v == 64 ? -1 : v + d;
    if (end >= 0 && end < 63)
        ray &= d > 0 ? (2ull << end) - 1 : ~((1ull << end) - 1);
    c->seen |= ray;
}

/* The first square a king at sq meets along direction i: the next one, or (flying) the first
 * piece on the ray. */
INLINE int king_sees(const Cap *c, int sq, int i, Bitboard empty)
{
    int d = step(&c->g, i);
    return c->r->flying_kings ? first_stop(&c->g, sq, d, empty) : sq + d;
}

/* The directions (bit i for direction i) in which a king at sq can take a piece next, in a
 * sequence that has taken `taken`. `came` is the direction of the jump that landed it here
 * (-1 at the start): back along it the piece just taken blocks (unless taken pieces vanish at
 * once); ahead along it (and back, when they vanish), every landing square of that jump sees
 * the same pieces, so only the first one (`ahead`) looks there — the others would find the
 * same sequences, which record() would drop as repeats. Inline, so that the many landing
 * squares from which a capture does not go on cost no call. */
INLINE unsigned king_jumps(Cap *c, int sq, Bitboard taken, int came, bool ahead)
{
    Bitboard empty = empty_now(c, taken);
    unsigned dirs = 0;
    for (int i = 0; i < 4; i++) {
        if (came >= 0 && (i == came || i == 3 - came) && (!ahead || (i != came && !c->r->remove_at_once)))
            continue;
        int v = king_sees(c, sq, i, empty);
        /* The first piece on the ray must be an enemy not yet taken: a taken one blocks. */
        bool takes = on(c->them & ~taken, v) && on(empty, v + step(&c->g, i));
        dirs |= (unsigned)takes << i;
        if (c->track && takes && c->r->flying_kings)
            see_ray(c, sq, step(&c->g, i), v);
    }
    return dirs;
}

/* A king at sq continues the sequence s with a jump in each direction of `dirs` (king_jumps).
 * Records every complete sequence. */
static void king_continue(Cap *c, int sq, const Seq *s, bool promoted, unsigned dirs)
{
    const bool flying = c->r->flying_kings;
    Bitboard empty = empty_now(c, s->taken);
    for (; dirs; dirs &= dirs - 1) {
        int i = __builtin_ctz(dirs), d = step(&c->g, i), v = king_sees(c, sq, i, empty);
        Seq next = seq_take(c, s, v);
        if (flying && c->track)   /* the landing squares, to the first piece beyond v */
            see_ray(c, v, d, first_stop(&c->g, v, d, empty));
        /* Among several landing squares, only those from which the capture goes on. */
        bool goes_on = false;
        for (int l = v + d; on(empty, l); l += d) {
            unsigned more = king_jumps(c, l, next.taken, i, l == v + d);
            if (more) {
                king_continue(c, l, &next, promoted, more);
                goes_on = true;
            }
            if (!flying)
                break;
        }
        if (!goes_on)
            for (int l = v + d; on(empty, l); l += d) {
                record(c, l, &next, promoted);
                if (!flying)
                    break;
            }
    }
}

/* A man at sq continues the sequence s: records every complete sequence; returns whether any
 * capture was possible from sq. */
static bool man_continue(Cap *c, int sq, const Seq *s)
{
    Bitboard empty = empty_now(c, s->taken);
    int ndirs = c->r->men_capture_backward ? 4 : 2;
    bool any = false;
    for (int i = 0; i < ndirs; i++) {
        int d = step(&c->g, i);
        int v = sq + d, l = sq + 2 * d;
        if (!on(c->victims & ~s->taken, v) || !on(empty, l))
            continue;
        any = true;
        Seq next = seq_take(c, s, v);
        if (on(c->g.far_row, l)) {
            if (c->r->promotion == PROMOTE_STOP) {
                record(c, l, &next, true);
                continue;
            }
            if (c->r->promotion == PROMOTE_CONTINUE_KING) {
                unsigned dirs = king_jumps(c, l, next.taken, i, true);
                if (dirs)
                    king_continue(c, l, &next, true, dirs);
                else
                    record(c, l, &next, true);
                continue;
            }
        }
        if (!man_continue(c, l, &next))
            record(c, l, &next, on(c->g.far_row, l));
    }
    return any;
}

INLINE Cap cap_make(const Position *pos, const Rules *r, Geo g, MergeRule merge, MoveList *list)
{
    int us = pos->side, them = us ^ 1;
    Cap c;
    c.r = r;
    c.g = g;
    c.merge = merge;
    c.them = pos->pieces[them];
    c.victims = r->men_capture_kings ? c.them : c.them & ~pos->kings;
    c.kings = pos->kings;
    c.empty = ~(pos->pieces[us] | c.them) & g.all;
    c.list = list;
    c.first = list->count;
    c.piece_first = list->count;
    c.best = 0;
    c.track = false;
    c.seen = 0;
    return c;
}

/* ---- detection and quiet moves, whole-board with shifts ---- */

/* The men of the side to move that can capture. */
INLINE Bitboard men_capturers(const Position *pos, const Rules *r, Geo g)
{
    int us = pos->side;
    Bitboard them = pos->pieces[us ^ 1];
    Bitboard empty = ~(pos->pieces[us] | them) & g.all;
    Bitboard men = pos->pieces[us] & ~pos->kings;
    Bitboard victims = r->men_capture_kings ? them : them & ~pos->kings;
    Bitboard found = 0;
    int ndirs = r->men_capture_backward ? 4 : 2;
    for (int i = 0; i < ndirs; i++) {
        int d = step(&g, i);
        found |= men & shift(&g, victims & shift(&g, empty, -d), -d);
    }
    return found;
}

/* The men of the side to move that can capture, and all its kings if any king can. */
INLINE Bitboard capturers(const Position *pos, const Rules *r, Geo g)
{
    int us = pos->side;
    Bitboard them = pos->pieces[us ^ 1];
    Bitboard empty = ~(pos->pieces[us] | them) & g.all;
    Bitboard kings = pos->pieces[us] & pos->kings;
    Bitboard found = men_capturers(pos, r, g);
    if (r->flying_kings) {
        /* A king at a time: the first piece on each ray, found with one bit scan. */
        for (Bitboard k = kings; k; k &= k - 1) {
            int sq = __builtin_ctzll(k);
            for (int i = 0; i < 4; i++) {
                int v = ray_first(&g, sq, i, empty);
                if (on(them, v) && on(empty, v + ray_step(&g, i)))
                    return found | kings;
            }
        }
        return found;
    }
    for (int i = 0; kings && i < 4; i++) {
        int d = step(&g, i);
        if (shift(&g, shift(&g, kings, d) & them, d) & empty)
            return found | kings;
    }
    return found;
}

/* Every legal capture of the piece at sq into c's list. */
INLINE void piece_captures(Cap *c, int sq, bool king)
{
    Seq s = {0, 0, 0, 0, 0};
    c->from = sq;
    c->start_king = king;
    c->piece_first = c->list->count;
    c->empty |= 1ull << sq;
    if (king)
        king_continue(c, sq, &s, false, king_jumps(c, sq, 0, -1, true));
    else
        man_continue(c, sq, &s);
    c->empty &= ~(1ull << sq);
}

/* Every legal capture of the pieces in `capturers` (those able to capture) into list. */
INLINE void gen_captures(const Position *pos, const Rules *r, Geo g, Bitboard capturers, MergeRule merge,
                         MoveList *list)
{
    Cap c = cap_make(pos, r, g, merge, list);
    for (Bitboard b = capturers; b; b &= b - 1) {
        int sq = __builtin_ctzll(b);
        piece_captures(&c, sq, on(pos->kings, sq));
    }
}

INLINE int count_quiet(const Position *pos, const Rules *r, Geo g)
{
    int us = pos->side;
    Bitboard empty = ~(pos->pieces[0] | pos->pieces[1]) & g.all;
    Bitboard men = pos->pieces[us] & ~pos->kings, kings = pos->pieces[us] & pos->kings;
    int n = pos_count(shift(&g, men, step(&g, 0)) & empty) + pos_count(shift(&g, men, step(&g, 1)) & empty);
    if (r->flying_kings) {
        /* A king at a time: on each ray, the empty squares before the first piece. */
        for (Bitboard k = kings; k; k &= k - 1) {
            int sq = __builtin_ctzll(k);
            for (int i = 0; i < 4; i++) {
                Bitboard ray = rays[g.w - 4][sq][i], stops = ray & ~empty;
                if (stops)
                    ray &= i < 2 ? ~(((Bitboard)2 << (63 - __builtin_clzll(stops))) - 1)
                                 : (stops & -stops) - 1;
                n += pos_count(ray);
            }
        }
        return n;
    }
    for (int i = 0; kings && i < 4; i++)
        n += pos_count(shift(&g, kings, step(&g, i)) & empty);
    return n;
}

INLINE void gen_quiet(const Position *pos, const Rules *r, Geo g, MoveList *list)
{
    int us = pos->side;
    Bitboard empty = ~(pos->pieces[0] | pos->pieces[1]) & g.all;
    Bitboard men = pos->pieces[us] & ~pos->kings, kings = pos->pieces[us] & pos->kings;
    Move *m = list->moves + list->count;
    Move *end = list->moves + MOVELIST_MAX;
    for (int i = 0; i < 2; i++) {
        int d = step(&g, i);
        for (Bitboard t = shift(&g, men, d) & empty; t && m < end; t &= t - 1) {
            int to = __builtin_ctzll(t);
            *m++ = (Move){0, 0, (uint8_t)(to - d), (uint8_t)to, on(g.far_row, to) ? MOVE_PROMOTES : 0};
        }
    }
    for (Bitboard b = kings; b; b &= b - 1) {
        int from = __builtin_ctzll(b);
        for (int i = 0; i < 4; i++) {
            int d = step(&g, i);
            for (int to = from + d; on(empty, to) && m < end; to += d) {
                *m++ = (Move){0, 0, (uint8_t)from, (uint8_t)to, 0};
                if (!r->flying_kings)
                    break;
            }
        }
    }
    if (m == end)
        list->overflow = true;
    list->count = (int)(m - list->moves);
}

/* Empties list and puts the legal captures in it; true if they are the only legal moves. */
INLINE bool captures_only(const Position *pos, const Rules *r, Geo g, MergeRule merge, MoveList *list)
{
    list->count = 0;
    list->overflow = false;
    Bitboard from = capturers(pos, r, g);
    if (!from)
        return false;
    gen_captures(pos, r, g, from, merge, list);
    return !r->optional_capture;
}

INLINE int generate(const Position *pos, const Rules *r, int W, MergeRule merge, MoveList *list)
{
    Geo g = geo_make(W, pos->side);
    if (!captures_only(pos, r, g, merge, list))
        gen_quiet(pos, r, g, list);
    return list->count;
}

/* The promotions of a position whose side to move has no capture it must make, appended to
 * list; returns the number of its other moves. */
INLINE int quiet_exits(const Position *pos, const Rules *r, Geo g, MoveList *list)
{
    Bitboard empty = ~(pos->pieces[0] | pos->pieces[1]) & g.all;
    Bitboard men = pos->pieces[pos->side] & ~pos->kings;
    int promotions = 0;
    for (int i = 0; i < 2; i++) {
        int d = step(&g, i);
        for (Bitboard t = shift(&g, men, d) & empty & g.far_row; t; t &= t - 1, promotions++) {
            int to = __builtin_ctzll(t);
            list->moves[list->count++] = (Move){0, 0, (uint8_t)(to - d), (uint8_t)to, MOVE_PROMOTES};
        }
    }
    return count_quiet(pos, r, g) - promotions;
}

INLINE int exits(const Position *pos, const Rules *r, int W, MoveList *list)
{
    Geo g = geo_make(W, pos->side);
    if (captures_only(pos, r, g, MERGE_CAPTURED_SET, list))
        return 0;
    return quiet_exits(pos, r, g, list);
}

/* ---- a flying king's captures, kept for positions that differ only in the kings of the side
 * to move (consecutive indices of a slice: a solver's initialisation) ---- */

enum { KING_CACHE_MOVES = 24 };

struct MovegenKingCache {
    Bitboard men, them, their_kings;   /* the frame: every piece but the side to move's kings */
    int side;
    Bitboard known;                    /* squares whose entry holds the frame's */
    struct {
        Bitboard seen;                 /* the squares its captures depend on (see_ray) */
        uint64_t key;                  /* capture-law key of its moves */
        int n;                         /* moves; -1 if more than KING_CACHE_MOVES */
        Move moves[KING_CACHE_MOVES];
    } at[64];                          /* by square: the captures of a king there alone */
};

MovegenKingCache *movegen_king_cache_new(void)
{
    return calloc(1, sizeof(MovegenKingCache));
}

void movegen_king_cache_free(MovegenKingCache *kc)
{
    free(kc);
}

/* Fills kc's entry for a king of the side to move at sq: its captures with the side's other
 * kings off the board, and the squares they depend on. */
static void king_cache_fill(MovegenKingCache *kc, const Position *pos, const Rules *r, Geo g, int sq)
{
    Position alone = *pos;
    Bitboard others = (pos->pieces[pos->side] & pos->kings) & ~(1ull << sq);
    alone.pieces[pos->side] &= ~others;
    alone.kings &= ~others;
    MoveList list;
    list.count = 0;
    list.overflow = false;
    Cap c = cap_make(&alone, r, g, MERGE_CAPTURED_SET, &list);
    c.track = true;
    piece_captures(&c, sq, true);
    kc->at[sq].seen = c.seen;
    kc->at[sq].key = c.best;
    kc->at[sq].n = list.overflow || list.count > KING_CACHE_MOVES ? -1 : list.count;
    for (int i = 0; i < kc->at[sq].n; i++)
        kc->at[sq].moves[i] = list.moves[i];
    kc->known |= 1ull << sq;
}

/* exits() with the kings' captures from kc, when every king's entry holds (no other king of
 * ours on a square its captures depend on); otherwise exits() itself. */
INLINE int exits_cached(const Position *pos, const Rules *r, int W, MoveList *list, MovegenKingCache *kc)
{
    Geo g = geo_make(W, pos->side);
    int us = pos->side;
    Bitboard kings = pos->pieces[us] & pos->kings, men = pos->pieces[us] & ~pos->kings;
    Bitboard them = pos->pieces[us ^ 1], their_kings = pos->kings & them;
    if (kc->side != us || kc->men != men || kc->them != them || kc->their_kings != their_kings) {
        kc->side = us;
        kc->men = men;
        kc->them = them;
        kc->their_kings = their_kings;
        kc->known = 0;
    }
    bool kings_take = false;
    for (Bitboard b = kings; b; b &= b - 1) {
        int sq = __builtin_ctzll(b);
        if (!((kc->known >> sq) & 1))
            king_cache_fill(kc, pos, r, g, sq);
        if (kc->at[sq].n < 0 || (kc->at[sq].seen & kings & ~(1ull << sq)))
            return exits(pos, r, W, list);
        kings_take |= kc->at[sq].n > 0;
    }
    list->count = 0;
    list->overflow = false;
    Bitboard men_take = men_capturers(pos, r, g);
    if (!men_take && !kings_take)
        return quiet_exits(pos, r, g, list);
    Cap c = cap_make(pos, r, g, MERGE_CAPTURED_SET, list);
    for (Bitboard b = men_take; b; b &= b - 1)
        piece_captures(&c, __builtin_ctzll(b), false);
    /* The kings' moves, under the capture law as record() applies it. */
    for (Bitboard b = kings_take ? kings : 0; b; b &= b - 1) {
        int sq = __builtin_ctzll(b);
        if (kc->at[sq].n == 0 || kc->at[sq].key < c.best)
            continue;
        if (kc->at[sq].key > c.best) {
            list->count = 0;
            c.best = kc->at[sq].key;
        }
        for (int i = 0; i < kc->at[sq].n; i++)
            list->moves[list->count++] = kc->at[sq].moves[i];
    }
    return r->optional_capture ? quiet_exits(pos, r, g, list) : 0;
}

INLINE int count(const Position *pos, const Rules *r, int W, MergeRule merge)
{
    Geo g = geo_make(W, pos->side);
    Bitboard from = capturers(pos, r, g);
    if (!from)
        return count_quiet(pos, r, g);
    MoveList list;
    list.count = 0;
    gen_captures(pos, r, g, from, merge, &list);
    return list.count + (r->optional_capture ? count_quiet(pos, r, g) : 0);
}

INLINE int unmoves(const Position *pos, const Rules *r, int W, bool legal_only, MoveList *list)
{
    int mover = pos->side ^ 1;
    Geo g = geo_make(W, mover);
    Bitboard empty = ~(pos->pieces[0] | pos->pieces[1]) & g.all;
    Bitboard men = pos->pieces[mover] & ~pos->kings, kings = pos->pieces[mover] & pos->kings;
    list->count = 0;
    list->overflow = false;
    for (int i = 0; i < 2; i++) {
        int d = step(&g, i);
        for (Bitboard from = shift(&g, men, -d) & empty; from; from &= from - 1) {
            int f = __builtin_ctzll(from);
            list->moves[list->count++] = (Move){0, 0, (uint8_t)f, (uint8_t)(f + d), 0};
        }
    }
    for (Bitboard b = kings; b; b &= b - 1) {
        int to = __builtin_ctzll(b);
        for (int i = 0; i < 4; i++) {
            int d = step(&g, i);
            for (int from = to + d; on(empty, from) && list->count < MOVELIST_MAX; from += d) {
                list->moves[list->count++] = (Move){0, 0, (uint8_t)from, (uint8_t)to, 0};
                if (!r->flying_kings)
                    break;
            }
        }
    }
    if (!legal_only || r->optional_capture)
        return list->count;
    int kept = 0;
    for (int i = 0; i < list->count; i++) {
        Position before;
        movegen_unmake(pos, &list->moves[i], &before);
        if (!capturers(&before, r, geo_make(W, mover)))
            list->moves[kept++] = list->moves[i];
    }
    return list->count = kept;
}

void movegen_unmake(const Position *pos, const Move *m, Position *before)
{
    int mover = pos->side ^ 1;
    bool king = (pos->kings >> m->to) & 1;
    Bitboard both = (1ull << m->from) | (1ull << m->to);
    *before = *pos;
    before->pieces[mover] ^= both;
    if (king)
        before->kings ^= both;
    before->side = mover;
    before->hash ^= pos_piece_key(mover, king, m->from) ^ pos_piece_key(mover, king, m->to) ^ pos_side_key();
}

/* The only per-board specialisation: the compiler folds W into every shift. */
#define BY_BOARD(v, call8, call10) ((v)->rules.board_size == 8 ? (call8) : (call10))

int movegen_moves_merged(const Position *pos, const Variant *v, MergeRule merge, MoveList *list)
{
    return BY_BOARD(v, generate(pos, &v->rules, 4, merge, list), generate(pos, &v->rules, 5, merge, list));
}

int movegen_moves(const Position *pos, const Variant *v, MoveList *list)
{
    return movegen_moves_merged(pos, v, MERGE_CAPTURED_SET, list);
}

int movegen_count(const Position *pos, const Variant *v, MergeRule merge)
{
    return BY_BOARD(v, count(pos, &v->rules, 4, merge), count(pos, &v->rules, 5, merge));
}

int movegen_unmoves(const Position *pos, const Variant *v, bool legal_only, MoveList *list)
{
    return BY_BOARD(v, unmoves(pos, &v->rules, 4, legal_only, list), unmoves(pos, &v->rules, 5, legal_only, list));
}

int movegen_exits(const Position *pos, const Variant *v, MoveList *list)
{
    return BY_BOARD(v, exits(pos, &v->rules, 4, list), exits(pos, &v->rules, 5, list));
}

int movegen_exits_cached(const Position *pos, const Variant *v, MoveList *list, MovegenKingCache *kc)
{
    if (!v->rules.flying_kings || !kc || __builtin_popcountll(pos->pieces[pos->side] & pos->kings) < 2)
        return movegen_exits(pos, v, list);
    return BY_BOARD(v, exits_cached(pos, &v->rules, 4, list, kc), exits_cached(pos, &v->rules, 5, list, kc));
}

INLINE int quiet_count(const Position *pos, const Rules *r, int W)
{
    Geo g = geo_make(W, pos->side);
    return capturers(pos, r, g) ? -1 : count_quiet(pos, r, g);
}

int movegen_quiet_count(const Position *pos, const Variant *v)
{
    return BY_BOARD(v, quiet_count(pos, &v->rules, 4), quiet_count(pos, &v->rules, 5));
}

bool movegen_has_capture(const Position *pos, const Variant *v)
{
    return BY_BOARD(v, capturers(pos, &v->rules, geo_make(4, pos->side)),
                    capturers(pos, &v->rules, geo_make(5, pos->side))) != 0;
}

/* ---- paths of a capture, for notation (not a hot path) ---- */

typedef struct {
    const Rules *r;
    Geo g;
    const Move *m;
    Bitboard kings, empty;
    const int *via;
    int nvia;
    bool exact;
    int *path;
    int max;
} PathSearch;

/* Depth-first over the jumps that take only pieces of m->captured. `king`: the piece moves
 * as a king now (from the start, or crowned mid-capture under PROMOTE_CONTINUE_KING). */
static int path_dfs(const PathSearch *p, int sq, bool king, Bitboard taken, int len, int matched)
{
    if (len >= p->max)
        return 0;
    p->path[len++] = sq;
    if (matched < p->nvia && sq == p->via[matched])
        matched++;
    else if (p->exact && len > 1 && taken != p->m->captured)
        return 0;
    if (taken == p->m->captured) {
        bool ends_king = king || on(p->g.far_row, sq);
        bool want_king = on(p->kings, p->m->from) || (p->m->flags & MOVE_PROMOTES);
        return sq == p->m->to && matched == p->nvia && ends_king == want_king ? len : 0;
    }
    if (!king && on(p->g.far_row, sq) && p->r->promotion == PROMOTE_STOP)
        return 0;
    bool flying = king && p->r->flying_kings;
    Bitboard empty = p->r->remove_at_once ? p->empty | taken : p->empty;
    int ndirs = king || p->r->men_capture_backward ? 4 : 2;
    for (int i = 0; i < ndirs; i++) {
        int d = step(&p->g, i);
        int v = sq + d;
        if (flying)
            while (on(empty, v))
                v += d;
        if (!on(p->m->captured & ~taken, v))
            continue;
        for (int l = v + d; on(empty, l); l += d) {
            bool crowned = king || (on(p->g.far_row, l) && p->r->promotion == PROMOTE_CONTINUE_KING);
            int n = path_dfs(p, l, crowned, taken | (1ull << v), len, matched);
            if (n)
                return n;
            if (!flying)
                break;
        }
    }
    return 0;
}

int movegen_capture_path(const Position *pos, const Variant *v, const Move *m, const int *via, int nvia,
                         bool exact, int *path, int max)
{
    PathSearch p;
    p.r = &v->rules;
    p.g = geo_make(v->rules.board_size / 2, pos->side);
    p.m = m;
    p.kings = pos->kings;
    p.empty = (~(pos->pieces[0] | pos->pieces[1]) & p.g.all) | (1ull << m->from);
    p.via = via;
    p.nvia = nvia;
    p.exact = exact;
    p.path = path;
    p.max = max;
    if (!m->captured) {
        if (max < 2 || nvia > 0)
            return 0;
        path[0] = m->from;
        path[1] = m->to;
        return 2;
    }
    return path_dfs(&p, m->from, on(pos->kings, m->from), 0, 0, 0);
}

uint64_t movegen_perft(Position *pos, const Variant *v, int depth, MergeRule merge)
{
    if (depth <= 0)
        return 1;
    if (depth == 1)
        return (uint64_t)movegen_count(pos, v, merge);
    MoveList list;
    movegen_moves_merged(pos, v, merge, &list);
    uint64_t n = 0;
    for (int i = 0; i < list.count; i++) {
        Undo u;
        pos_make(pos, &list.moves[i], &u);
        n += movegen_perft(pos, v, depth - 1, merge);
        pos_undo(pos, &list.moves[i], &u);
    }
    return n;
}
