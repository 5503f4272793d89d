/* A main for the fuzz targets without libFuzzer (gcc, `make test`): runs each file given, or
 * each file of each directory given, through LLVMFuzzerTestOneInput once. Prints the count. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = malloc(n > 0 ? (size_t)n : 1);
    if (!data || (n > 0 && fread(data, 1, (size_t)n, f) != (size_t)n)) {
        fprintf(stderr, "error: cannot read %s\n", path);
        exit(2);
    }
    fclose(f);
    LLVMFuzzerTestOneInput(data, (size_t)n);
    free(data);
    return 1;
}

int main(int argc, char **argv)
{
    int count = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            perror(argv[i]);
            return 2;
        }
        if (!S_ISDIR(st.st_mode)) {
            count += run_file(argv[i]);
            continue;
        }
        DIR *d = opendir(argv[i]);
        struct dirent *e;
        while ((e = readdir(d))) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
            if (e->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode))
                count += run_file(path);
        }
        closedir(d);
    }
    printf("%s: %d inputs replayed, no property broken\n", argv[0], count);
    return 0;
}
