#include "variant.h"

#include <stdio.h>
#include <string.h>

#include "board.h"

static const Variant variants[VARIANT_COUNT] = {
    [VARIANT_BRAZILIAN] = {VARIANT_BRAZILIAN, "brazilian", 26,
        {.board_size = 8, .first_mover = WHITE, .men_capture_backward = true,
         .flying_kings = true, .men_capture_kings = true, .promotion = PROMOTE_PASS,
         .law_most_pieces = true},
        NUMBERING_STANDARD, true, 'x'},
    [VARIANT_RUSSIAN] = {VARIANT_RUSSIAN, "russian", 25,
        {.board_size = 8, .first_mover = WHITE, .men_capture_backward = true,
         .flying_kings = true, .men_capture_kings = true,
         .promotion = PROMOTE_CONTINUE_KING},
        NUMBERING_STANDARD, true, ':'},
    [VARIANT_SPANISH] = {VARIANT_SPANISH, "spanish", 24,
        {.board_size = 8, .first_mover = WHITE, .flying_kings = true,
         .men_capture_kings = true, .promotion = PROMOTE_STOP,
         .law_most_pieces = true, .law_most_kings = true},
        NUMBERING_SPANISH, false, 'x'},
    [VARIANT_CZECH] = {VARIANT_CZECH, "czech", 29,
        {.board_size = 8, .first_mover = WHITE, .flying_kings = true,
         .men_capture_kings = true, .promotion = PROMOTE_STOP, .law_king_first = true},
        NUMBERING_STANDARD, true, 'x'},
    [VARIANT_ITALIAN] = {VARIANT_ITALIAN, "italian", 22,
        {.board_size = 8, .first_mover = WHITE, .promotion = PROMOTE_STOP,
         .law_most_pieces = true, .law_king_first = true, .law_most_kings = true,
         .law_earliest_kings = true},
        NUMBERING_ITALIAN, false, 'x'},
    [VARIANT_AMERICAN] = {VARIANT_AMERICAN, "american", 21,
        {.board_size = 8, .first_mover = BLACK, .men_capture_kings = true,
         .remove_at_once = true, .promotion = PROMOTE_STOP},
        NUMBERING_STANDARD, false, 'x'},
    [VARIANT_INTERNATIONAL] = {VARIANT_INTERNATIONAL, "international", 20,
        {.board_size = 10, .first_mover = WHITE, .men_capture_backward = true,
         .flying_kings = true, .men_capture_kings = true, .promotion = PROMOTE_PASS,
         .law_most_pieces = true},
        NUMBERING_STANDARD, false, 'x'},
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
