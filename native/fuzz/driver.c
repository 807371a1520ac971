/*
 * A small coverage-guided mutation fuzzer for harness.c (gcc has no libFuzzer): the harness is compiled with
 * -fsanitize-coverage=trace-pc, this file is not; each input's edges (pairs of calls of the callback, in buckets of
 * hit counts) that no input reached before keep it in the corpus. Inputs are seeds and mutations of corpus entries
 * (bit flips, bytes JSON and UTF-8 care about, cuts, repeats, splices, tokens of a dictionary).
 *
 * usage: fuzz SEEDDIR SECONDS [SEED]   run; exit 0 when no check failed (a failed check or a sanitizer aborts)
 *        fuzz -run FILE...             run the harness once on each file (to reproduce a failure)
 * A failing input is written to ./fuzz-failure.bin before the process dies.
 */
#include <dirent.h>
#include <fcntl.h>
#include <sanitizer/asan_interface.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int fuzz_one(const uint8_t *data, size_t size);

#define MAP (1 << 16)
#define MAXLEN 8192
static uint8_t cov[MAP], seen[MAP];
static uintptr_t prev;

void __sanitizer_cov_trace_pc(void) {
  uintptr_t pc = (uintptr_t)__builtin_return_address(0);
  cov[((pc >> 1) ^ prev) & (MAP - 1)]++;
  prev = pc >> 2;
}

typedef struct {
  uint8_t *d;
  size_t n;
} entry;
static entry *corpus;
static size_t count, room;
static uint8_t current[MAXLEN];
static size_t current_n;

static void add(const uint8_t *d, size_t n) {
  if (count == room) {
    room = room ? 2 * room : 256;
    corpus = realloc(corpus, room * sizeof(entry));
  }
  corpus[count].d = malloc(n ? n : 1);
  memcpy(corpus[count].d, d, n);
  corpus[count].n = n;
  count++;
}

static void keep_failure(void) {
  int fd = open("fuzz-failure.bin", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    ssize_t w = write(fd, current, current_n);
    (void)w;
    close(fd);
  }
  fprintf(stderr, "the failing input (%zu bytes) is in fuzz-failure.bin\n", current_n);
}

static uint8_t bucket(uint8_t c) { return c <= 2 ? c : c <= 3 ? 4 : c <= 7 ? 8 : c <= 15 ? 16 : c <= 31 ? 32 : c <= 127 ? 64 : 128; }

/* Runs one input; 1 when it reached an edge bucket no input reached before. */
static int run(const uint8_t *d, size_t n) {
  memset(cov, 0, MAP);
  prev = 0;
  memcpy(current, d, n);
  current_n = n;
  fuzz_one(d, n);
  int fresh = 0;
  for (int i = 0; i < MAP; i++)
    if (cov[i]) {
      uint8_t b = bucket(cov[i]);
      if ((seen[i] | b) != seen[i]) {
        seen[i] |= b;
        fresh = 1;
      }
    }
  return fresh;
}

static uint64_t rs = 88172645463325252ull;
static uint64_t rnd(void) {
  rs ^= rs << 13;
  rs ^= rs >> 7;
  rs ^= rs << 17;
  return rs;
}

static const char *dict[] = {"{", "}", "[", "]", ",", ":", "\"", "\\", "\\u", "\\ud83d", "\\ude00", "\\\"", "\n", "\r\n", " ", "{\"type\":\"t\"",
                             "\"type\":", "\"a\":", "\"b\":", "\"c\":", "\"d\":", "\"x\":", "\"yes\"", "true", "false", "null", "\"t\"", "\"z\"",
                             "\"y\\u0065s\"", "-0.5e+3", "1e", "0.", "-", "\xff", "\xc0\x80", "\xe2\x82", "\xf0\x9f\x98\x80", "\xed\xa0\x80",
                             "\xf4\x90\x80\x80", "\xe0\x80", "\xc2\xa9", "{}", "[]", "{\"a\":true,", "\"d\":{\"a\":1}", "\"b\":{\"d\":{\"x\":",
                             "\"b\":[{\"a\":"};
static const uint8_t special[] = {0, 0x1f, 0x20, 0x7f, 0x80, 0xbf, 0xc0, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff, '"', '\\', '{', '}', '[', ']', '\n', '\r', ',', ':'};

static void insert(uint8_t *b, size_t *n, size_t at, const uint8_t *w, size_t l) {
  if (*n + l > MAXLEN) return;
  memmove(b + at + l, b + at, *n - at);
  memcpy(b + at, w, l);
  *n += l;
}

static size_t mutate(uint8_t *b, size_t n) {
  int k = 1 + (int)(rnd() % 6);
  for (int t = 0; t < k; t++) {
    switch (rnd() % 10) {
    case 0:
      if (n) b[rnd() % n] ^= (uint8_t)(1u << (rnd() % 8));
      break;
    case 1:
      if (n) b[rnd() % n] = (uint8_t)rnd();
      break;
    case 2:
      if (n) b[rnd() % n] = special[rnd() % sizeof special];
      break;
    case 3:
      if (n > 1) {
        size_t p = rnd() % n, l = 1 + rnd() % (n - p < 64 ? n - p : 64);
        memmove(b + p, b + p + l, n - p - l);
        n -= l;
      }
      break;
    case 4:
    case 5: {
      const char *w = dict[rnd() % (sizeof dict / sizeof *dict)];
      insert(b, &n, n ? rnd() % (n + 1) : 0, (const uint8_t *)w, strlen(w));
      break;
    }
    case 6:
      if (n) {
        uint8_t tmp[128];
        size_t p = rnd() % n, l = 1 + rnd() % (n - p < 128 ? n - p : 128);
        memcpy(tmp, b + p, l);
        insert(b, &n, rnd() % (n + 1), tmp, l);
      }
      break;
    case 7: {
      entry *e = &corpus[rnd() % count];
      if (e->n) {
        size_t p = rnd() % e->n, l = 1 + rnd() % (e->n - p);
        insert(b, &n, n ? rnd() % (n + 1) : 0, e->d + p, l);
      }
      break;
    }
    case 8:
      if (n) {
        uint8_t tmp[8];
        size_t p = rnd() % n, l = 1 + rnd() % 8;
        memset(tmp, b[p], l);
        insert(b, &n, p, tmp, l);
      }
      break;
    default:
      if (n) n = rnd() % n + 1;
    }
  }
  return n;
}

static size_t slurp(const char *path, uint8_t *buf, size_t max) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return 0;
  size_t n = fread(buf, 1, max, f);
  fclose(f);
  return n;
}

int main(int argc, char **argv) {
  static uint8_t buf[MAXLEN];
  if (argc >= 2 && strcmp(argv[1], "-run") == 0) {
    __asan_set_death_callback(keep_failure);
    for (int a = 2; a < argc; a++) {
      size_t n = slurp(argv[a], buf, MAXLEN);
      run(buf, n);
      printf("ran %s (%zu bytes): no check failed\n", argv[a], n);
    }
    return 0;
  }
  if (argc < 3) {
    fprintf(stderr, "usage: %s SEEDDIR SECONDS [SEED] | -run FILE...\n", argv[0]);
    return 2;
  }
  double seconds = atof(argv[2]);
  if (argc > 3) rs ^= strtoull(argv[3], NULL, 10) * 0x9E3779B97F4A7C15ull;
  __asan_set_death_callback(keep_failure);
  DIR *dir = opendir(argv[1]);
  if (dir == NULL) {
    fprintf(stderr, "no seed folder %s\n", argv[1]);
    return 2;
  }
  struct dirent *de;
  while ((de = readdir(dir)) != NULL) {
    if (de->d_name[0] == '.') continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", argv[1], de->d_name);
    add(buf, slurp(path, buf, MAXLEN));
  }
  closedir(dir);
  if (count == 0) add((const uint8_t *)"{}", 2);
  size_t seeds = count;
  for (size_t i = 0; i < seeds; i++) run(corpus[i].d, corpus[i].n);
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  unsigned long long execs = seeds;
  double elapsed = 0;
  for (;;) {
    entry *e = &corpus[rnd() % count];
    memcpy(buf, e->d, e->n);
    size_t n = mutate(buf, e->n);
    execs++;
    if (run(buf, n)) add(buf, n);
    if ((execs & 255) == 0) {
      clock_gettime(CLOCK_MONOTONIC, &t);
      elapsed = (double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9;
      if (elapsed >= seconds) break;
    }
  }
  int edges = 0;
  for (int i = 0; i < MAP; i++) edges += seen[i] != 0;
  printf("fuzzed the skim kernel for %.0f s: %llu inputs from %zu seeds, %zu kept, %d edges, no check failed\n", elapsed, execs, seeds, count,
         edges);
  return 0;
}
