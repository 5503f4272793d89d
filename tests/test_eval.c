/* The evaluation and weight files. */
#include <criterion/criterion.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/board.h"
#include "../eval/eval.h"
#include "helpers.h"

/* Random weights in every group (the defaults leave the regions at 0). */
static void randomise(Weights *w, uint64_t seed)
{
    for (int p = 0; p < 2; p++)
        for (int i = 0; i < w->layout.n; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            w->w[p][i] = (float)((double)(seed >> 40) / (double)(1 << 24) * 100 - 50);
        }
}

Test(eval, a_position_and_its_colour_flip_evaluate_the_same)
{
    const char *names[] = {"brazilian", "italian", "american", "international"};
    for (int k = 0; k < 4; k++) {
        Variant v = test_variant(names[k], false);
        Weights *w = malloc(sizeof *w);
        weights_default(&v, w);
        Position pos[50];
        int n = test_random_positions(&v, 99 + (uint64_t)k, 50, 40, pos);
        for (int i = 0; i < n; i++) {
            Position flipped;
            pos_flip(&pos[i], board_get(v.rules.board_size), &flipped);
            cr_assert_eq(eval_position(w, &v, &pos[i]), eval_position(w, &v, &flipped), "%s position %d", names[k], i);
        }
        free(w);
    }
}

Test(eval, the_start_position_is_balanced_and_an_extra_man_is_worth_about_a_man)
{
    Variant v = test_variant("russian", false);
    Weights *w = malloc(sizeof *w);
    weights_default(&v, w);
    Position start;
    pos_start(&start, &v);
    cr_assert_lt(abs(eval_position(w, &v, &start)), 30);
    Position up = test_position(&v, "W:Wa1,c1,e1:Bb8,d8");
    int score = eval_position(w, &v, &up);
    free(w);
    cr_assert(score > 60 && score < 200, "one man up: %d", score);
}

Test(eval, flying_kings_ahead_with_too_few_pieces_against_a_king_are_scored_near_a_draw)
{
    static const struct {
        const char *variant, *fen;
        int score, scaled;
    } cases[] = {
        /* One king holds three pieces on 10x10, from either side's view, the lone king's own
         * edge as well; four pieces are enough; against men alone nothing is scaled. */
        {"international", "W:WK46,K47,K48:BK5", 300, 37},
        {"international", "B:WK46,K47,K48:BK5", -300, -37},
        {"international", "B:WK46,K47,K48:BK5", 40, 5},
        {"international", "W:WK46,K47,K48,K49:BK5", 400, 400},
        {"international", "W:WK46,K47,K48:B5", 300, 300},
        /* A man up with as many kings: halved. */
        {"international", "W:WK46,31,32,33:BK5,18,19", 120, 60},
        /* On 8x8 three kings win against one, two do not; short kings are left alone. */
        {"russian", "W:WKa1,Kc1,Ke1:BKh8", 300, 300},
        {"russian", "W:WKa1,Kc1:BKh8", 200, 25},
        {"american", "W:WKa1,Kc1:BKh8", 200, 200},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        Variant v = test_variant(cases[i].variant, false);
        Position p = test_position(&v, cases[i].fen);
        cr_assert_eq(eval_drawish(&v, &p, cases[i].score), cases[i].scaled, "%s %s", cases[i].variant, cases[i].fen);
    }
}

Test(eval, group_contributions_sum_to_the_evaluation)
{
    Variant v = test_variant("spanish", false);
    Weights *w = malloc(sizeof *w);
    weights_default(&v, w);
    randomise(w, 3);
    Position pos[20];
    int n = test_random_positions(&v, 5, 20, 30, pos);
    for (int i = 0; i < n; i++) {
        double g[EVAL_GROUPS], sum = 0;
        eval_by_group(w, &v, &pos[i], g);
        for (int k = 0; k < EVAL_GROUPS; k++)
            sum += g[k];
        cr_assert_leq(fabs(sum - eval_position(w, &v, &pos[i])), 0.5 + 1e-6);
    }
    free(w);
}

/* A side's first king and its second carry weights of their own beside the king's material
 * weight; a third adds only material. Listed as own minus opponent's, in both phases. */
Test(eval, a_first_and_a_second_king_count_beside_the_kings_material)
{
    Variant v = test_variant("russian", false);
    const struct {
        const char *fen;
        int first, second;
    } cases[] = {
        {"W:Wa1,c1:Bb8,d8", 0, 0},             /* no kings */
        {"W:WKa1,c1:Bb8,d8", 1, 0},            /* White's first */
        {"W:WKa1,Kc1,Ke1:Bb8,d8", 1, 1},       /* a third counts no more */
        {"W:WKa1,Kc1:BKb8,d8", 0, 1},          /* both have a first */
        {"B:WKa1,Kc1:BKb8,d8", 0, -1},         /* seen from Black, to move */
    };
    Weights *w = malloc(sizeof *w);
    weights_default(&v, w);
    int kings = w->layout.offset[EVAL_KINGS];
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        Position pos = test_position(&v, cases[k].fen);
        EvalFeatures f;
        eval_features(&v, &pos, &f);
        int value[2] = {0, 0};
        for (int j = 0; j < f.n; j++)
            if (f.index[j] == (uint32_t)kings || f.index[j] == (uint32_t)kings + 1)
                value[f.index[j] - (uint32_t)kings] += f.value[j];
        cr_assert(value[0] == cases[k].first && value[1] == cases[k].second, "%s: first %d, second %d", cases[k].fen,
                  value[0], value[1]);
    }
    /* Weighted: a first king's weight moves the score by its blend, a second's as well. */
    Position one = test_position(&v, "W:WKa1,c1:Bb8,d8");
    int before = eval_position(w, &v, &one);
    w->w[0][kings] = w->w[1][kings] = 50;
    cr_assert_eq(eval_position(w, &v, &one), before + 50);
    free(w);
}

/* The evaluation reads the weights from a prepared table (region weights by region and
 * configuration); the training reads them through the listed features. With random weights
 * in every group, the two agree. */
Test(eval, the_evaluation_is_the_weighted_sum_of_the_listed_features)
{
    const char *names[] = {"brazilian", "italian", "american", "international"};
    EvalTable *t = malloc(sizeof *t);
    for (int k = 0; k < 4; k++) {
        Variant v = test_variant(names[k], false);
        Weights *w = malloc(sizeof *w);
        weights_default(&v, w);
        randomise(w, 12345 + (uint64_t)k);
        eval_prepare(w, t);
        Position pos[60];
        int n = test_random_positions(&v, 7 + (uint64_t)k, 60, 50, pos);
        int regions = 0;
        for (int i = 0; i < n; i++) {
            EvalFeatures f;
            eval_features(&v, &pos[i], &f);
            double opening = 0, endgame = 0;
            for (int j = 0; j < f.n; j++) {
                opening += f.value[j] * (double)w->w[0][f.index[j]];
                endgame += f.value[j] * (double)w->w[1][f.index[j]];
                regions += f.index[j] >= (uint32_t)w->layout.offset[EVAL_REGIONS];
            }
            double sum = f.phase * opening + (1 - f.phase) * endgame;
            int score = eval_prepared(t, &v, &pos[i]);
            cr_assert_leq(fabs(score - sum), 0.5 + 1e-3, "%s position %d: %d, features say %f", names[k], i, score, sum);
            cr_assert_leq(abs(score - eval_position(w, &v, &pos[i])), 1, "%s position %d", names[k], i);
        }
        cr_assert_geq(regions, eval_regions(v.rules.board_size) * n, "%s: %d region features in %d positions",
                      names[k], regions, n);
        free(w);
    }
    free(t);
}

/* The configuration of pattern r read square by square from the board's rows and files, as
 * the feature's definition says, against the bitboard lookup the evaluation uses: the 4x4
 * regions with corners on even rows and files, row by row, then the rectangles of 5 rows by 4
 * files with corners on the first row or ending on the last, and on even files. */
static int region_index_slowly(const Board *b, int r, Bitboard own, Bitboard opp)
{
    int side = (b->size - 2) / 2, squares = side * side, r0, f0, rows;
    if (r < squares) {
        r0 = 2 * (r / side), f0 = 2 * (r % side), rows = 4;
    } else {
        r0 = (r - squares) / side * (b->size - 5), f0 = 2 * ((r - squares) % side), rows = 5;
    }
    int index = 0, power = 1, count = 0;
    for (int bit = 0; bit < 64; bit++) {
        if (b->bit_square[bit] < 0 || b->bit_row[bit] < r0 || b->bit_row[bit] >= r0 + rows ||
            b->bit_file[bit] < f0 || b->bit_file[bit] >= f0 + 4)
            continue;
        index += power * ((own >> bit & 1) ? 1 : (opp >> bit & 1) ? 2 : 0);
        power *= 3;
        count++;
    }
    cr_assert_eq(count, rows == 4 ? EVAL_REGION_SQUARES : EVAL_RECT_SQUARES);
    return index;
}

Test(eval, region_indices_equal_a_square_by_square_reading_in_every_variant)
{
    for (int id = 0; id < VARIANT_COUNT; id++) {
        const Variant *v = variant_get((VariantId)id);
        const Board *b = variant_board(v);
        int regions = eval_regions(b->size), square = eval_square_regions(b->size);
        cr_assert_eq(square, b->size == 10 ? 16 : 9);
        cr_assert_eq(regions - square, b->size == 10 ? 8 : 6);
        Position pos[80];
        int n = test_random_positions(v, 31 + (uint64_t)id, 80, 60, pos);
        cr_assert_gt(n, 40);
        for (int i = 0; i < n; i++)
            for (int c = 0; c < 2; c++) {
                /* Each side from its own view: White as stored, Black rotated. */
                Bitboard own = pos_men(&pos[i], c), opp = pos_men(&pos[i], 1 - c);
                if (c == BLACK) {
                    own = board_rotate(b, own);
                    opp = board_rotate(b, opp);
                }
                for (int r = 0; r < regions; r++) {
                    int fast = eval_region_index(b->size, r, own, opp);
                    cr_assert_eq(fast, region_index_slowly(b, r, own, opp), "%s position %d region %d", v->name, i, r);
                    cr_assert(fast >= 0 && fast < (r < square ? EVAL_REGION_STATES : EVAL_RECT_STATES));
                }
            }
    }
}

/* The evaluation depends on the pieces only: after make and undo, and for a position built
 * afresh from the same pieces, it is the same. */
Test(eval, the_evaluation_is_the_same_after_make_and_undo)
{
    EvalTable *t = malloc(sizeof *t);
    for (int id = 0; id < VARIANT_COUNT; id++) {
        const Variant *v = variant_get((VariantId)id);
        Weights *w = malloc(sizeof *w);
        weights_default(v, w);
        randomise(w, 99 + (uint64_t)id);
        eval_prepare(w, t);
        Position pos[30];
        int n = test_random_positions(v, 3 + (uint64_t)id, 30, 40, pos);
        for (int i = 0; i < n; i++) {
            int before = eval_prepared(t, v, &pos[i]);
            MoveList list;
            movegen_moves(&pos[i], v, &list);
            for (int k = 0; k < list.count; k++) {
                Undo u;
                pos_make(&pos[i], &list.moves[k], &u);
                Position fresh;
                pos_clear(&fresh, pos[i].side);
                for (int c = 0; c < 2; c++)
                    for (Bitboard p = pos[i].pieces[c]; p; p &= p - 1)
                        pos_put(&fresh, c, __builtin_ctzll(p), (pos[i].kings >> __builtin_ctzll(p)) & 1);
                cr_assert_eq(eval_prepared(t, v, &pos[i]), eval_prepared(t, v, &fresh), "%s position %d move %d",
                             v->name, i, k);
                pos_undo(&pos[i], &list.moves[k], &u);
                cr_assert_eq(eval_prepared(t, v, &pos[i]), before, "%s position %d after undo", v->name, i);
            }
        }
        free(w);
    }
    free(t);
}

/* The same pieces with the other side to move evaluate to minus the score: the evaluation is
 * the mover's features minus the opponent's, with nothing for the move itself. */
Test(eval, the_evaluation_is_antisymmetric_in_the_side_to_move)
{
    for (int id = 0; id < VARIANT_COUNT; id++) {
        const Variant *v = variant_get((VariantId)id);
        Weights *w = malloc(sizeof *w);
        weights_default(v, w);
        randomise(w, 7 + (uint64_t)id);
        Position pos[40];
        int n = test_random_positions(v, 17 + (uint64_t)id, 40, 50, pos);
        for (int i = 0; i < n; i++) {
            Position other = pos[i];
            other.side = 1 - other.side;
            other.hash ^= pos_side_key();
            int score = eval_position(w, v, &pos[i]);
            cr_assert_eq(eval_position(w, v, &other), -score, "%s position %d", v->name, i);
        }
        free(w);
    }
}

Test(eval, the_region_weights_number_over_100000_on_10x10)
{
    EvalLayout l;
    eval_layout(10, &l);
    cr_assert_eq(l.length[EVAL_REGIONS], 16 * 6561);
    cr_assert_eq(l.length[EVAL_RECTANGLES], 8 * 59049);
    cr_assert_geq(2 * l.n, 100000, "%d weights a phase", l.n);
    eval_layout(8, &l);
    cr_assert_eq(l.length[EVAL_REGIONS], 9 * 6561);
    cr_assert_eq(l.length[EVAL_RECTANGLES], 6 * 59049);
}

static char path[64];

static void make_path(void)
{
    snprintf(path, sizeof path, "/tmp/damas-weights-XXXXXX");
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
}

static void remove_path(void)
{
    unlink(path);
}

Test(eval, weight_files_round_trip, .init = make_path, .fini = remove_path)
{
    Variant v = test_variant("czech", false);
    Weights *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    weights_default(&v, a);
    for (int i = 0; i < a->layout.n; i++)
        a->w[1][i] += (float)i * 0.25f;
    snprintf(a->provenance, sizeof a->provenance, "test: every endgame weight shifted");
    char err[512];
    cr_assert_eq(weights_save(path, a, err, sizeof err), DAMAS_OK, "%s", err);
    cr_assert_eq(weights_load(path, &v, b, err, sizeof err), DAMAS_OK, "%s", err);
    cr_assert_str_eq(b->provenance, a->provenance);
    cr_assert_eq(memcmp(a->w, b->w, sizeof a->w), 0);
    free(a);
    free(b);
}

Test(eval, foreign_and_malformed_weight_files_are_refused, .init = make_path, .fini = remove_path)
{
    Variant russian = test_variant("russian", false), american = test_variant("american", false),
            international = test_variant("international", false);
    Weights *w = malloc(sizeof *w);
    char err[512];
    weights_default(&american, w);
    cr_assert_eq(weights_save(path, w, err, sizeof err), DAMAS_OK, "%s", err);
    cr_assert_eq(weights_load(path, &russian, w, err, sizeof err), DAMAS_ERR_ILLEGAL);
    cr_assert(strstr(err, "american") && strstr(err, "not russian"), "%s", err);
    /* Right name, wrong board: the shapes do not fit. */
    weights_default(&international, w);
    snprintf(w->variant, sizeof w->variant, "russian");
    cr_assert_eq(weights_save(path, w, err, sizeof err), DAMAS_OK, "%s", err);
    cr_assert_eq(weights_load(path, &russian, w, err, sizeof err), DAMAS_ERR_ILLEGAL);
    cr_assert(strstr(err, "10x10"), "%s", err);
    /* Truncated, and not HDF5 at all. */
    weights_default(&russian, w);
    cr_assert_eq(weights_save(path, w, err, sizeof err), DAMAS_OK, "%s", err);
    cr_assert_eq(truncate(path, 1000), 0);
    cr_assert_neq(weights_load(path, &russian, w, err, sizeof err), DAMAS_OK);
    FILE *f = fopen(path, "w");
    fputs("not a weight file\n", f);
    fclose(f);
    cr_assert_eq(weights_load(path, &russian, w, err, sizeof err), DAMAS_ERR_CORRUPT);
    cr_assert(strstr(err, "not an HDF5 file"), "%s", err);
    cr_assert_eq(weights_load("/nonexistent/w.h5", &russian, w, err, sizeof err), DAMAS_ERR_UNKNOWN);
    free(w);
}

/* Rewrites the weight file at `path` as one of feature set `set`, without the groups named in
 * `drop` (NULL-terminated). */
static void make_feature_set(uint64_t set, const char *const *drop)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    cr_assert_geq(f, 0);
    hid_t a = H5Aopen(f, "feature_set", H5P_DEFAULT);
    cr_assert_geq(H5Awrite(a, H5T_NATIVE_UINT64, &set), 0);
    H5Aclose(a);
    for (; drop && *drop; drop++)
        cr_assert_geq(H5Ldelete(f, *drop, H5P_DEFAULT), 0);
    H5Fclose(f);
}

/* A file of the earlier feature set (hand-chosen features and 4-square diamonds) has another
 * layout: it is refused with a message saying so, not read into the wrong weights. */
Test(eval, a_weight_file_of_the_old_feature_set_is_refused_with_a_message, .init = make_path, .fini = remove_path)
{
    Variant v = test_variant("brazilian", false);
    Weights *w = malloc(sizeof *w);
    char err[512];
    weights_default(&v, w);
    cr_assert_eq(weights_save(path, w, err, sizeof err), DAMAS_OK, "%s", err);
    make_feature_set(1, NULL);
    cr_assert_eq(weights_load(path, &v, w, err, sizeof err), DAMAS_ERR_ILLEGAL);
    cr_assert(strstr(err, "feature set 1") && strstr(err, "feature set 4") && strstr(err, "train"), "%s", err);
    free(w);
}

/* Files of the older sets load with the groups they lack at 0 (set 3 has no kings group, set
 * 2 no rectangles either), and evaluate as they did: the prepared table skips the rectangles
 * when they are 0. */
Test(eval, weight_files_of_feature_sets_2_and_3_load_with_their_missing_groups_0, .init = make_path,
     .fini = remove_path)
{
    Variant v = test_variant("international", false);
    Weights *w = malloc(sizeof *w), *back = malloc(sizeof *back);
    EvalTable *t = malloc(sizeof *t);
    char err[512];
    const EvalLayout *l = &w->layout;
    const char *const set3[] = {"kings", NULL}, *const set2[] = {"kings", "rectangles", NULL};
    for (int set = 3; set >= 2; set--) {
        weights_default(&v, w);
        randomise(w, 77);
        cr_assert_eq(weights_save(path, w, err, sizeof err), DAMAS_OK, "%s", err);
        make_feature_set((uint64_t)set, set == 3 ? set3 : set2);
        cr_assert_eq(weights_load(path, &v, back, err, sizeof err), DAMAS_OK, "set %d: %s", set, err);
        for (int p = 0; p < 2; p++)
            for (int i = 0; i < l->n; i++) {
                bool lacked = (i >= l->offset[EVAL_KINGS] && i < l->offset[EVAL_KINGS] + l->length[EVAL_KINGS]) ||
                              (set == 2 && i >= l->offset[EVAL_RECTANGLES]);
                cr_assert_eq(back->w[p][i], lacked ? 0.0f : w->w[p][i], "set %d, weight %d", set, i);
            }
        eval_prepare(back, t);
        cr_assert_eq(t->rects, set == 3);
        Position pos[20];
        int n = test_random_positions(&v, 9, 20, 40, pos);
        for (int i = 0; i < n; i++)
            cr_assert_leq(abs(eval_prepared(t, &v, &pos[i]) - eval_position(back, &v, &pos[i])), 1);
    }
    /* A file of feature set 4 without its kings group, or of 3 without its rectangles, is
     * damaged. */
    const char *const kings[] = {"kings", NULL}, *const rects[] = {"rectangles", NULL};
    for (int set = 4; set >= 3; set--) {
        weights_default(&v, w);
        cr_assert_eq(weights_save(path, w, err, sizeof err), DAMAS_OK, "%s", err);
        make_feature_set((uint64_t)set, set == 4 ? kings : rects);
        cr_assert_eq(weights_load(path, &v, back, err, sizeof err), DAMAS_ERR_CORRUPT);
        cr_assert(strstr(err, set == 4 ? "kings" : "rectangles"), "%s", err);
    }
    free(w), free(back), free(t);
}

/* Attributes are read with their shape and size checked: an array where one value belongs, or
 * a string longer than any the reader expects, is refused naming the attribute. */
Test(eval, a_weight_file_with_malformed_attributes_is_refused_naming_them, .init = make_path, .fini = remove_path)
{
    Variant v = test_variant("spanish", false);
    Weights *w = malloc(sizeof *w);
    char err[512];
    const char *names[] = {"feature_set", "board_size", "variant", "format"};
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        weights_default(&v, w);
        cr_assert_eq(weights_save(path, w, err, sizeof err), DAMAS_OK, "%s", err);
        test_h5_attr_as_array(path, "/", names[k]);
        cr_assert_eq(weights_load(path, &v, w, err, sizeof err), DAMAS_ERR_CORRUPT, "%s as an array", names[k]);
        cr_assert(strstr(err, names[k]) && strstr(err, "malformed"), "%s", err);
    }
    weights_default(&v, w);
    memset(w->provenance, 'x', sizeof w->provenance - 1);
    w->provenance[sizeof w->provenance - 1] = '\0';
    snprintf(w->variant, sizeof w->variant, "spanish");
    cr_assert_eq(weights_save(path, w, err, sizeof err), DAMAS_OK, "%s", err);
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    char long_name[4096];
    memset(long_name, 'y', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    hid_t t = H5Tcopy(H5T_C_S1), space = H5Screate(H5S_SCALAR);
    H5Tset_size(t, sizeof long_name);
    H5Adelete(f, "variant");
    hid_t a = H5Acreate2(f, "variant", t, space, H5P_DEFAULT, H5P_DEFAULT);
    cr_assert_geq(H5Awrite(a, t, long_name), 0);
    H5Aclose(a);
    H5Sclose(space);
    H5Tclose(t);
    H5Fclose(f);
    cr_assert_eq(weights_load(path, &v, w, err, sizeof err), DAMAS_ERR_CORRUPT);
    cr_assert(strstr(err, "'variant' is malformed"), "%s", err);
    free(w);
}
