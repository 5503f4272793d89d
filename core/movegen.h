/* Legal move generation for every variant, from the variant's rule fields.
 *
 * Captures are mandatory (unless rules.optional_capture), complete, filtered by the capture
 * law, and merged per the FMJD convention: sequences with the same from, to, captured set
 * (and promotion) are one move. */
#ifndef DAMAS_MOVEGEN_H
#define DAMAS_MOVEGEN_H

#include "position.h"

/* Enough for any reachable position; a list that would overflow sets `overflow`. */
enum { MOVELIST_MAX = 1024 };

/* How capture sequences are merged into moves. */
typedef enum {
    MERGE_CAPTURED_SET,    /* damas' rule: same from, to, captured set = one move */
    MERGE_CAPTURE_ORDER,   /* one move per order of capture ("perft keep"); not for play */
} MergeRule;

struct MoveList {
    int count;
    bool overflow;
    Move moves[MOVELIST_MAX];
};

/* Every legal move of pos->side into `list`; returns list->count. Thread-safe. */
int movegen_moves(const Position *pos, const Variant *v, MoveList *list);

/* As movegen_moves, with an explicit merge rule. */
int movegen_moves_merged(const Position *pos, const Variant *v, MergeRule merge, MoveList *list);

/* The number of legal moves, faster than generating them when there is no capture. */
int movegen_count(const Position *pos, const Variant *v, MergeRule merge);

/* The legal moves that change the material — captures and promotions — into `list` (for a
 * retrograde solver: they lead out of the position's slice); returns how many other legal
 * moves there are, counted without generating them. Thread-safe. */
int movegen_exits(const Position *pos, const Variant *v, MoveList *list);

/* movegen_exits for many positions in a row that differ only in the kings of the side to move
 * (consecutive indices of a slice, as a solver's initialisation takes them), faster with
 * flying kings and two kings or more: a king's captures are generated once per square and
 * arrangement of the other pieces, with the squares they depend on, and reused while no other
 * king of that side stands on those. The same moves and return value as movegen_exits,
 * possibly in another order. A cache serves one thread and one variant;
 * movegen_king_cache_new returns NULL if memory ran out (kc NULL: plain movegen_exits). */
typedef struct MovegenKingCache MovegenKingCache;
MovegenKingCache *movegen_king_cache_new(void);
void movegen_king_cache_free(MovegenKingCache *kc);
int movegen_exits_cached(const Position *pos, const Variant *v, MoveList *list, MovegenKingCache *kc);

/* The number of legal moves when the side to move has no capture, or -1 when it has one:
 * movegen_has_capture and movegen_count in one pass, for a search's leaves. Thread-safe. */
int movegen_quiet_count(const Position *pos, const Variant *v);

/* Whether the side to move has a capture (it must take, unless rules.optional_capture). */
bool movegen_has_capture(const Position *pos, const Variant *v);

/* A capture path of the legal move m: from, each landing square, to (at most `max`
 * squares), passing through the landing squares `via` in order (nvia may be 0); if `exact`,
 * via must be every landing square between from and to. Returns the number of squares
 * written, or 0 if no such path exists. */
int movegen_capture_path(const Position *pos, const Variant *v, const Move *m, const int *via, int nvia,
                         bool exact, int *path, int max);

/* The quiet, non-promoting moves by which the side that just moved (not pos->side) can
 * have reached pos, as moves from the earlier square to the present one. With `legal_only`,
 * predecessors in which that side had a capture are left out (captures are mandatory)
 * unless the rules have optional capture; without it the caller must discard them itself
 * (a retrograde solver that has already decided every capture position does so for free).
 * Thread-safe. */
int movegen_unmoves(const Position *pos, const Variant *v, bool legal_only, MoveList *list);

/* The position before un-move m of movegen_unmoves (pos with the move taken back). */
void movegen_unmake(const Position *pos, const Move *m, Position *before);

/* Leaf nodes `depth` plies below pos, counting the last ply in bulk. pos is restored. */
uint64_t movegen_perft(Position *pos, const Variant *v, int depth, MergeRule merge);

#endif
