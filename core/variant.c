#include "variant.h"

#include <stdio.h>
#include <string.h>

#include "board.h"

/* The draw rules (README, Draw rules). A count in moves by each side is twice as many plies. */
static const DrawRules default_draw = {
    "default", 80, 0, "40 moves", NULL, 3, 0, {{0}},
    "../shared/RULES.md and the seeds: 40 moves by each side without a capture or a promotion"};

static const DrawRules brazilian_draw = {"official", 0, 0, NULL, NULL, 3, 1,
    {{2, 24, .only_kings = true, .plies = 40, .name = "20 moves with only kings"}},
    "seed 004 (Brazilian rules): 20 moves in a row without a capture once only kings are left"};

static const DrawRules russian_draw = {"official", 0, 30, NULL, "15 moves of kings only", 3, 4,
    {{4, 24, .lone_king = true, .only_kings = true, .plies = 30, .name = "15 moves, kings against a lone king"},
     {2, 3, .lone_king = true, .both_kings = true, .plies = 10, .name = "5-move ending"},
     {4, 5, .both_kings = true, .plies = 60, .name = "30-move ending"},
     {6, 7, .both_kings = true, .plies = 120, .name = "60-move ending"}},
    "Russian draughts rules (Minsport of Russia): 15 moves of kings only; three or more kings "
    "against one king, 15 moves; endings where both sides have kings: 2-3 pieces 5 moves, "
    "4-5 pieces 30 moves, 6-7 pieces 60 moves"};

static const DrawRules english_draw = {"official", 0, 80, NULL, "40 moves without a man's move or a capture", 3, 0,
    {{0}},
    "English Draughts Association / ACF rules: 40 moves by each player without an uncrowned man "
    "advanced and without a capture; threefold repetition"};

static const DrawRules fmjd_draw = {"official", 0, 50, NULL, "25 moves of kings only", 3, 2,
    {{4, 4, .lone_king = true, .both_kings = true, .plies = 32, .name = "16-move ending"},
     {2, 3, .lone_king = true, .both_kings = true, .plies = 10, .name = "5-move ending"}},
    "FMJD rules, article 6: 25 moves of kings only without a capture; three pieces with a king "
    "against a lone king, 16 moves; two pieces or one against it, 5 moves; threefold repetition"};

/* Where damas knows no federation text: the default rule, asked for as the official one. */
static const DrawRules unknown_draw = {"official", 80, 0, "40 moves", NULL, 3, 0, {{0}},
    "no federation text known to damas: the default rule"};

static const DrawRules *const official_draw[VARIANT_COUNT] = {
    [VARIANT_BRAZILIAN] = &brazilian_draw, [VARIANT_RUSSIAN] = &russian_draw, [VARIANT_SPANISH] = &unknown_draw,
    [VARIANT_CZECH] = &unknown_draw,       [VARIANT_ITALIAN] = &unknown_draw, [VARIANT_AMERICAN] = &english_draw,
    [VARIANT_INTERNATIONAL] = &fmjd_draw,
};

static const Variant variants[VARIANT_COUNT] = {
    [VARIANT_BRAZILIAN] = {VARIANT_BRAZILIAN, "brazilian", 26,
        {.board_size = 8, .first_mover = WHITE, .men_capture_backward = true,
         .flying_kings = true, .men_capture_kings = true, .promotion = PROMOTE_PASS,
         .law_most_pieces = true},
        NUMBERING_STANDARD, true, 'x', &default_draw},
    [VARIANT_RUSSIAN] = {VARIANT_RUSSIAN, "russian", 25,
        {.board_size = 8, .first_mover = WHITE, .men_capture_backward = true,
         .flying_kings = true, .men_capture_kings = true,
         .promotion = PROMOTE_CONTINUE_KING},
        NUMBERING_STANDARD, true, ':', &default_draw},
    [VARIANT_SPANISH] = {VARIANT_SPANISH, "spanish", 24,
        {.board_size = 8, .first_mover = WHITE, .flying_kings = true,
         .men_capture_kings = true, .promotion = PROMOTE_STOP,
         .law_most_pieces = true, .law_most_kings = true},
        NUMBERING_SPANISH, false, 'x', &default_draw},
    [VARIANT_CZECH] = {VARIANT_CZECH, "czech", 29,
        {.board_size = 8, .first_mover = WHITE, .flying_kings = true,
         .men_capture_kings = true, .promotion = PROMOTE_STOP, .law_king_first = true},
        NUMBERING_STANDARD, true, 'x', &default_draw},
    [VARIANT_ITALIAN] = {VARIANT_ITALIAN, "italian", 22,
        {.board_size = 8, .first_mover = WHITE, .promotion = PROMOTE_STOP,
         .law_most_pieces = true, .law_king_first = true, .law_most_kings = true,
         .law_earliest_kings = true},
        NUMBERING_ITALIAN, false, 'x', &default_draw},
    [VARIANT_AMERICAN] = {VARIANT_AMERICAN, "american", 21,
        {.board_size = 8, .first_mover = BLACK, .men_capture_kings = true,
         .remove_at_once = true, .promotion = PROMOTE_STOP},
        NUMBERING_STANDARD, false, 'x', &default_draw},
    [VARIANT_INTERNATIONAL] = {VARIANT_INTERNATIONAL, "international", 20,
        {.board_size = 10, .first_mover = WHITE, .men_capture_backward = true,
         .flying_kings = true, .men_capture_kings = true, .promotion = PROMOTE_PASS,
         .law_most_pieces = true},
        NUMBERING_STANDARD, false, 'x', &default_draw},
};

static const struct {
    const char *alias;
    VariantId id;
} aliases[] = {{"english", VARIANT_AMERICAN},
               {"checkers", VARIANT_AMERICAN},
               {"normal", VARIANT_INTERNATIONAL},   /* the names Hub GUIs and pydraughts send */
               {"standard", VARIANT_INTERNATIONAL}};

const Variant *variant_get(VariantId id)
{
    return id >= 0 && id < VARIANT_COUNT ? &variants[id] : NULL;
}

const Board *variant_board(const Variant *v)
{
    return board_get(v->rules.board_size);
}

const char *variant_names(void)
{
    return "brazilian, russian, spanish, czech, italian, american (english), international (normal)";
}

int variant_lookup(const char *name, bool optional_capture, Variant *out, char *err, size_t errlen)
{
    const Variant *found = NULL;
    for (int i = 0; i < VARIANT_COUNT && !found; i++)
        if (strcmp(name, variants[i].name) == 0)
            found = &variants[i];
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0] && !found; i++)
        if (strcmp(name, aliases[i].alias) == 0)
            found = &variants[aliases[i].id];
    if (!found) {
        snprintf(err, errlen, "unknown variant '%s' (known: %s)", name, variant_names());
        return DAMAS_ERR_UNKNOWN;
    }
    if (optional_capture && found->rules.board_size != 8) {
        snprintf(err, errlen, "the optional-capture house rule applies to 8x8 variants only, not %s",
                 found->name);
        return DAMAS_ERR_ILLEGAL;
    }
    *out = *found;
    out->rules.optional_capture = optional_capture;
    return DAMAS_OK;
}

int variant_set_draw_rules(Variant *v, const char *name, char *err, size_t errlen)
{
    if (!strcmp(name, "default"))
        v->draw = &default_draw;
    else if (!strcmp(name, "official"))
        v->draw = official_draw[v->id];
    else {
        snprintf(err, errlen, "unknown draw rules '%s' (default or official)", name);
        return DAMAS_ERR_UNKNOWN;
    }
    return DAMAS_OK;
}

void variant_rules_text(const Variant *v, char *buf)
{
    static const char *promotion[] = {"stop", "continue-as-king", "pass-as-man"};
    const Rules *r = &v->rules;
    snprintf(buf, VARIANT_RULES_MAX,
             "board=%d first=%s men_capture_backward=%d flying_kings=%d men_capture_kings=%d remove_at_once=%d "
             "promotion=%s law_most_pieces=%d law_king_first=%d law_most_kings=%d law_earliest_kings=%d "
             "optional_capture=%d",
             r->board_size, r->first_mover == WHITE ? "white" : "black", r->men_capture_backward, r->flying_kings,
             r->men_capture_kings, r->remove_at_once, promotion[r->promotion], r->law_most_pieces, r->law_king_first,
             r->law_most_kings, r->law_earliest_kings, r->optional_capture);
}
