#include "position.h"

#include "board.h"
#include "variant.h"

/* Keys by [colour][is king][bit], and one for Black to move. */
static uint64_t zobrist[2][2][64];
static uint64_t zobrist_black;

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

__attribute__((constructor)) static void zobrist_init(void)
{
    uint64_t state = 0x64616d6173ull; /* fixed: hashes are the same in every run */
    for (int c = 0; c < 2; c++)
        for (int k = 0; k < 2; k++)
            for (int s = 0; s < 64; s++)
                zobrist[c][k][s] = splitmix64(&state);
    zobrist_black = splitmix64(&state);
}

uint64_t pos_piece_key(int colour, bool king, int sq)
{
    return zobrist[colour][king][sq];
}

uint64_t pos_side_key(void)
{
    return zobrist_black;
}

uint64_t pos_hash(const Position *pos)
{
    uint64_t h = pos->side == BLACK ? zobrist_black : 0;
    for (int c = 0; c < 2; c++)
        for (Bitboard b = pos->pieces[c]; b; b &= b - 1) {
            int s = __builtin_ctzll(b);
            h ^= zobrist[c][(pos->kings >> s) & 1][s];
        }
    return h;
}

void pos_clear(Position *pos, int side)
{
    pos->pieces[WHITE] = pos->pieces[BLACK] = pos->kings = 0;
    pos->side = side;
    pos->hash = pos_hash(pos);
}

void pos_put(Position *pos, int colour, int sq, bool king)
{
    pos->pieces[colour] |= 1ull << sq;
    if (king)
        pos->kings |= 1ull << sq;
    pos->hash ^= zobrist[colour][king][sq];
}

void pos_start(Position *pos, const Variant *v)
{
    const Board *b = variant_board(v);
    int rows = b->size / 2 - 1; /* 3 rows of men on 8x8, 4 on 10x10 */
    pos_clear(pos, v->rules.first_mover);
    for (int r = 0; r < rows; r++) {
        pos->pieces[BLACK] |= b->row[r];
        pos->pieces[WHITE] |= b->row[b->size - 1 - r];
    }
    pos->hash = pos_hash(pos);
}

void pos_make(Position *pos, const Move *m, Undo *undo)
{
    int us = pos->side, them = us ^ 1;
    bool king = (pos->kings >> m->from) & 1;
    bool ends_king = king || (m->flags & MOVE_PROMOTES);
    Bitboard ck = m->captured & pos->kings;
    undo->captured_kings = ck;
    undo->hash = pos->hash;

    uint64_t h = pos->hash ^ zobrist_black;
    h ^= zobrist[us][king][m->from] ^ zobrist[us][ends_king][m->to];
    for (Bitboard b = m->captured; b; b &= b - 1) {
        int s = __builtin_ctzll(b);
        h ^= zobrist[them][(ck >> s) & 1][s];
    }
    pos_after(pos, m, pos);
    pos->hash = h;
}

void pos_after(const Position *pos, const Move *m, Position *out)
{
    int us = pos->side, them = us ^ 1;
    Bitboard from = 1ull << m->from, to = 1ull << m->to;
    bool ends_king = (pos->kings & from) || (m->flags & MOVE_PROMOTES);
    out->pieces[us] = pos->pieces[us] ^ from ^ to; /* from == to after a round trip */
    out->pieces[them] = pos->pieces[them] ^ m->captured;
    out->kings = (pos->kings & ~(m->captured | from)) | (ends_king ? to : 0);
    out->side = them;
    out->hash = 0;
}

void pos_undo(Position *pos, const Move *m, const Undo *undo)
{
    int them = pos->side, us = them ^ 1;
    bool was_king = ((pos->kings >> m->to) & 1) && !(m->flags & MOVE_PROMOTES);
    pos->kings &= ~(1ull << m->to);
    if (was_king)
        pos->kings |= 1ull << m->from;
    pos->kings |= undo->captured_kings;
    pos->pieces[us] ^= (1ull << m->from) ^ (1ull << m->to);
    pos->pieces[them] ^= m->captured;
    pos->side = us;
    pos->hash = undo->hash;
}

void pos_flip(const Position *pos, const Board *b, Position *out)
{
    Position p;
    p.pieces[WHITE] = board_rotate(b, pos->pieces[BLACK]);
    p.pieces[BLACK] = board_rotate(b, pos->pieces[WHITE]);
    p.kings = board_rotate(b, pos->kings);
    p.side = pos->side ^ 1;
    p.hash = pos_hash(&p);
    *out = p;
}

bool pos_equal(const Position *a, const Position *b)
{
    return a->pieces[0] == b->pieces[0] && a->pieces[1] == b->pieces[1] && a->kings == b->kings &&
           a->side == b->side;
}
