/* Probing a damas database through libdamas: the value of a position and of every move.
 *
 *   cc examples/probe.c $(pkg-config --cflags --libs damas) -o probe
 *   ./probe run/db/russian 'W:WKc3,e3:Bd8'
 */
#include <damas/damas.h>
#include <stdio.h>

static const char *name(int wdl)
{
    return wdl == DAMAS_WIN ? "win" : wdl == DAMAS_DRAW ? "draw" : "loss";
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s DB_DIR FEN\n", argv[0]);
        return 2;
    }
    char err[1024];
    damas_db *db = damas_open(argv[1], 0, err, sizeof err);
    if (!db) {
        fprintf(stderr, "error: %s\n", err);
        return 1;
    }
    damas_value value;
    int rc = damas_probe(db, argv[2], &value, err, sizeof err);
    if (rc != DAMAS_PROBE_OK) {
        fprintf(stderr, "error: %s\n", err);
        damas_close(db);
        return rc == DAMAS_PROBE_BAD_FEN ? 2 : 1;
    }
    printf("%s, %s database up to %d pieces: %s", argv[2], damas_variant(db), damas_pieces(db), name(value.wdl));
    if (value.wdl != DAMAS_DRAW)
        printf(" in %d plies", value.dtw);
    printf("\n");
    static damas_move moves[128];
    int n = 0;
    rc = damas_moves(db, argv[2], moves, 128, &n, err, sizeof err);
    for (int i = 0; i < n; i++) {
        printf("  %-12s %s", moves[i].move, name(moves[i].value.wdl));
        if (moves[i].value.wdl != DAMAS_DRAW)
            printf(" %d", moves[i].value.dtw);
        printf("\n");
    }
    damas_close(db);
    return rc == DAMAS_PROBE_OK ? 0 : 1;
}
