/* The database reader on damaged unit files: a ≤3-piece Russian database is built once, then
 * each input overwrites bytes of its largest unit file; probing that slice's positions must
 * give the intact file's answer or an error, never another answer or a crash.
 * Input: records of 5 bytes, a little-endian offset (taken modulo the file's size) and the
 * byte to write there; a final record of fewer bytes cuts the file at its offset instead. */
#include "fuzz.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../db/index.h"
#include "../../db/probe.h"
#include "../../gen/gen.h"

enum { PROBED = 1500 };

static char db[64], work[64], target[256];
static uint8_t *intact;
static size_t intact_size;
static Slice slice;
static uint64_t indices[PROBED];
static DbValue want[PROBED];
static int probed;

static void run(const char *cmd)
{
    if (system(cmd) != 0)
        abort();
}

static void cleanup(void)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf %s %s", db, work);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s and %s\n", db, work);
}

static void setup(void)
{
    const Variant *v = variant_get(VARIANT_RUSSIAN);
    snprintf(db, sizeof db, "/tmp/damas-fuzz-db-%d", (int)getpid());
    snprintf(work, sizeof work, "/tmp/damas-fuzz-work-%d", (int)getpid());
    atexit(cleanup);
    char err[512], cmd[256], name[300] = "";
    if (gen_run(v, 3, db, 1, NULL, err, sizeof err) != DAMAS_OK) {
        fprintf(stderr, "%s\n", err);
        abort();
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s && cp -r %s %s", work, db, work);
    run(cmd);
    /* The largest unit file: the most chunks and attributes to damage. */
    DIR *d = opendir(db);
    struct dirent *e;
    off_t best = -1;
    while ((e = readdir(d))) {
        char p[400];
        struct stat st;
        snprintf(p, sizeof p, "%s/%.255s", db, e->d_name);
        if (strstr(e->d_name, ".h5") && stat(p, &st) == 0 && st.st_size > best) {
            best = st.st_size;
            snprintf(name, sizeof name, "%.255s", e->d_name);
        }
    }
    closedir(d);
    int um, uk, tm, tk;
    if (sscanf(name, "m%dk%d-m%dk%d.h5", &um, &uk, &tm, &tk) != 4)
        abort();
    slice_init(&slice, (Material){(int8_t)um, (int8_t)uk, (int8_t)tm, (int8_t)tk}, 8);
    char p[400];
    snprintf(p, sizeof p, "%s/%s", db, name);
    snprintf(target, sizeof target, "%s/%.160s", work, name);
    FILE *f = fopen(p, "rb");
    intact = malloc((size_t)best);
    intact_size = fread(intact, 1, (size_t)best, f);
    fclose(f);
    DbProbe *probe = probe_open(db, NULL, 1 << 20, err, sizeof err);
    if (!probe)
        abort();
    for (uint64_t k = 0; k < PROBED && k < slice.size; k++) {
        Position pos;
        uint64_t i = k * slice.size / (slice.size < PROBED ? slice.size : PROBED);
        slice_unrank(&slice, i, &pos);
        if (probe_value(probe, &pos, &want[probed], err, sizeof err) == DAMAS_OK)
            indices[probed++] = i;
    }
    probe_close(probe);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!intact)
        setup();
    uint8_t *bytes = malloc(intact_size);
    memcpy(bytes, intact, intact_size);
    size_t length = intact_size, k = 0;
    for (; k + 5 <= size; k += 5) {
        uint32_t off = (uint32_t)data[k] | (uint32_t)data[k + 1] << 8 | (uint32_t)data[k + 2] << 16 |
                       (uint32_t)data[k + 3] << 24;
        bytes[off % intact_size] = data[k + 4];
    }
    if (k < size) {   /* a short last record: cut the file */
        uint32_t off = 0;
        for (size_t j = k; j < size; j++)
            off = off << 8 | data[j];
        length = off % intact_size;
    }
    FILE *f = fopen(target, "wb");
    if (!f || fwrite(bytes, 1, length, f) != length || fclose(f) != 0)
        abort();
    free(bytes);
    char err[1024];
    DbProbe *probe = probe_open(work, NULL, 1 << 20, err, sizeof err);
    if (!probe)
        return 0;   /* refused at open: fine */
    for (int n = 0; n < probed; n++) {
        Position pos;
        DbValue got;
        slice_unrank(&slice, indices[n], &pos);
        if (probe_value(probe, &pos, &got, err, sizeof err) == DAMAS_OK)
            FUZZ_CHECK(got.wdl == want[n].wdl && got.dtw == want[n].dtw,
                       "index %llu: a damaged file answered %d/%d, the intact one %d/%d",
                       (unsigned long long)indices[n], got.wdl, got.dtw, want[n].wdl, want[n].dtw);
    }
    probe_close(probe);
    return 0;
}
