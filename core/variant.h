/* Variants as data: one struct of rule fields per variant (shared/RULES.md), read by the
 * one generic move generator, plus the notation conventions of each variant. */
#ifndef DAMAS_VARIANT_H
#define DAMAS_VARIANT_H

#include "types.h"

typedef enum {
    VARIANT_BRAZILIAN,
    VARIANT_RUSSIAN,
    VARIANT_SPANISH,
    VARIANT_CZECH,
    VARIANT_ITALIAN,
    VARIANT_AMERICAN,
    VARIANT_INTERNATIONAL,
    VARIANT_COUNT
} VariantId;

/* What a man does when a capture lands it on the far row with more to take. */
typedef enum {
    PROMOTE_STOP,            /* crowned; the move ends there */
    PROMOTE_CONTINUE_KING,   /* crowned at once; goes on capturing as a king (Russian) */
    PROMOTE_PASS,            /* goes on as a man; crowned only if the move ends there */
} PromotionRule;

struct Rules {
    int board_size;              /* 8 or 10 */
    int first_mover;             /* WHITE or BLACK */
    bool men_capture_backward;
    bool flying_kings;
    bool men_capture_kings;
    bool remove_at_once;         /* captured pieces vanish when jumped (American) */
    PromotionRule promotion;
    /* The capture law, as priorities applied in this order (all false: free choice). */
    bool law_most_pieces;
    bool law_king_first;         /* a king's capture before any man's (Czech, Italian) */
    bool law_most_kings;
    bool law_earliest_kings;     /* Italian: kings taken at the earliest jumps */
    bool optional_capture;       /* house rule: a plain move is legal beside a capture */
};

/* A count of moves in a set of endings: the game is drawn once `plies` plies have passed
 * without a capture or a promotion while the material is in the set. */
typedef struct {
    uint8_t min_pieces, max_pieces;   /* on the board, both sides together */
    bool lone_king;                   /* one side has a single king and nothing else */
    bool both_kings;                  /* each side has at least one king */
    bool only_kings;                  /* every piece on the board is a king */
    uint8_t plies;
    const char *name;                 /* the reason a game ends, e.g. "16-move ending" */
} DrawCount;

/* When a game is drawn besides the side to move having no move (game.h applies them). */
typedef struct {
    const char *name;        /* "default" or "official" */
    uint8_t quiet_plies;     /* plies without a capture or a promotion that draw; 0: no such rule */
    uint8_t king_plies;      /* plies without a capture or a man's move that draw; 0: none */
    const char *quiet_name, *king_name;   /* the reasons they give */
    uint8_t repetition;      /* the occurrence of a position (same side to move) that draws */
    uint8_t ncounts;
    DrawCount count[4];
    const char *source;      /* where the rule is written */
} DrawRules;

/* How a variant labels squares (shared/RULES.md, Notation). */
typedef enum {
    NUMBERING_STANDARD,  /* square 1 = b8 (b10), left to right, top to bottom; a1 dark */
    NUMBERING_ITALIAN,   /* square 1 = a8, left to right, top to bottom; a1 light */
    NUMBERING_SPANISH,   /* square 1 = h1, right to left, bottom to top; a1 light */
} Numbering;

struct Variant {
    VariantId id;
    const char *name;
    int pdn_gametype;
    Rules rules;
    Numbering numbering;
    bool writes_algebraic;       /* its own notation uses a1..h8 */
    char capture_sep;            /* 'x', or ':' in Russian */
    const DrawRules *draw;       /* the draw rule in force (the default one unless set) */
};

/* The variant named `name` (an alias such as "english" included), with the optional-capture
 * house rule if `optional_capture`; written to *out. Returns DAMAS_OK, DAMAS_ERR_UNKNOWN for
 * an unknown name, DAMAS_ERR_ILLEGAL for optional capture on 10x10 (with a message in err). */
int variant_lookup(const char *name, bool optional_capture, Variant *out, char *err, size_t errlen);

/* Sets the draw rule of *v: "default" (40 moves by each side without a capture or a promotion,
 * threefold repetition: the rule of the seeds for every variant) or "official" (the
 * federation's rules, where damas knows them). DAMAS_ERR_UNKNOWN for another name. */
int variant_set_draw_rules(Variant *v, const char *name, char *err, size_t errlen);

/* The built-in variant `id` with its official rules. Static data, thread-safe. */
const Variant *variant_get(VariantId id);

/* The board geometry the variant is played on. */
const Board *variant_board(const Variant *v);

/* The rule fields of v as text ("board=8 first=white ..."), for file attributes; buf of
 * VARIANT_RULES_MAX bytes. */
enum { VARIANT_RULES_MAX = 320 };
void variant_rules_text(const Variant *v, char *buf);

/* The list of accepted names, comma separated, for help and error messages. */
const char *variant_names(void);

#endif
