/*
 * The fuzzing harness of the skim kernel: one input (any bytes) through skim_one(), skim_run() and put(), each
 * writing into a buffer of exactly the size the caller promises (so AddressSanitizer sees the first byte past it),
 * with the checks that no sanitizer makes:
 * - every output is ASCII (the kernel writes non-ASCII characters as `\u` escapes);
 * - put() never needs more than six bytes of output per byte of input;
 * - skim_run() ends its array text with `]`, within its buffer, and the array is exactly `[` + the skim_one()
 *   reductions of the lines it took, joined by `,` + `]` (the run and the one-line call are one reduction);
 * - its state and meta agree with the lines it took.
 * Built with -fsanitize-coverage=trace-pc by scripts/fuzz.mjs; driver.c runs it.
 */
#include "../skim_core.h"
#include <stdio.h>

static field_t *fld(node_t *nd, const char *key, node_t *child) {
  field_t *f = &nd->fields[nd->n++];
  f->key = (char *)key;
  f->key_len = strlen(key);
  f->child = child;
  f->cond_field = -1;
  f->n_choices = 0;
  return f;
}

/* A spec with every feature: whole values, nested levels, arrays of objects, and conditions on a string and on true. */
static node_t *spec(void) {
  static node_t root, b, bd, d;
  static int built;
  if (built) return &root;
  built = 1;
  fld(&bd, "x", NULL);
  fld(&b, "a", NULL);
  fld(&b, "c", NULL);
  fld(&b, "d", &bd);
  fld(&d, "a", NULL);
  fld(&root, "type", NULL);
  fld(&root, "a", NULL);
  fld(&root, "b", &b);
  field_t *c = fld(&root, "c", NULL);
  c->cond_field = 1;
  c->n_choices = 2;
  c->choices[0] = "yes";
  c->choice_len[0] = 3;
  c->choices[1] = NULL;
  field_t *dd = fld(&root, "d", &d);
  dd->cond_field = 0;
  dd->n_choices = 2;
  dd->choices[0] = "t";
  dd->choice_len[0] = 1;
  dd->choices[1] = "z";
  dd->choice_len[1] = 1;
  root.has_cond = 1;
  return &root;
}

static void fail(const char *why) {
  fprintf(stderr, "fuzz check failed: %s\n", why);
  abort();
}

static void ascii(const uint8_t *o, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (o[i] >= 0x80) fail("an output byte is not ASCII");
}

/* The skim_one() text of each line skim_run() took from p[from, end) must make its array. */
static void same_as_lines(const uint8_t *p, size_t from, size_t end, const uint8_t *arr, size_t arr_n, const int32_t *state,
                          const int32_t *meta, int32_t records) {
  size_t cap = 6 * (end - from) + 16, o = 0;
  uint8_t *want = malloc(cap + 2), *one = malloc(cap);
  want[o++] = '[';
  int32_t k = 0, lines = 0;
  size_t pos = from;
  while (pos < end) {
    const uint8_t *nlp = memchr(p + pos, '\n', end - pos);
    if (nlp == NULL) fail("the run took a line without its newline");
    size_t nl = (size_t)(nlp - p), e = nl;
    if (e > pos && p[e - 1] == '\r') e--;
    if (e > pos) {
      int32_t r = skim_one(p + pos, e - pos, one, cap, spec());
      if (r < 0) fail("the run took a line the one-line skim declines");
      if (k >= records || meta[2 * k] != lines || meta[2 * k + 1] != (int32_t)(nl + 1)) fail("meta does not match the lines taken");
      if (k > 0) want[o++] = ',';
      memcpy(want + o, one, (size_t)r);
      o += (size_t)r;
      k++;
    }
    lines++;
    pos = nl + 1;
  }
  want[o++] = ']';
  if (k != records || lines != state[1]) fail("the run's counts do not match its lines");
  if (o != arr_n || memcmp(want, arr, o) != 0) fail("the run's array differs from the one-line reductions");
  free(want);
  free(one);
}

int fuzz_one(const uint8_t *data, size_t size) {
  uint8_t *in = malloc(size ? size : 1);
  memcpy(in, data, size);
  if (size > 0 && in[0] == '{') {
    for (int big = 0; big < 2; big++) {
      size_t cap = big ? 3 * size + 16 : size;
      uint8_t *out = malloc(cap);
      int32_t r = skim_one(in, size, out, cap, spec());
      if (r >= 0) ascii(out, (size_t)r);
      free(out);
    }
  }
  static const int32_t text_max[2] = {64, 1 << 30};
  static const size_t meta_len[2] = {8, 2 * 4096};
  for (size_t from = 0; from <= size && from < 3; from += 2) {
    for (int t = 0; t < 2; t++) {
      for (int big = 0; big < 2; big++) {
        size_t cap = big ? 3 * (size - from) + 16 : size - from + 2;
        uint8_t *out = malloc(cap);
        int32_t *state = malloc(4 * sizeof(int32_t)), *meta = malloc(meta_len[t] * sizeof(int32_t));
        int32_t k = skim_run(in, size, from, out, cap, spec(), state, meta, meta_len[t], 4096, text_max[t]);
        if (k < 0 || (size_t)state[2] > cap || state[2] < 2 || out[state[2] - 1] != ']') fail("the run's array is out of bounds");
        if ((size_t)state[0] < from || (size_t)state[0] > size) fail("the run's next offset is outside the chunk");
        ascii(out, (size_t)state[2]);
        same_as_lines(in, from, (size_t)state[0], out, (size_t)state[2], state, meta, k);
        free(out);
        free(state);
        free(meta);
      }
    }
  }
  size_t cap = 6 * size + 16;
  uint8_t *out = malloc(cap);
  ctx_t c = {in, size, 0, out, 0, 0, cap, 0};
  put(&c, in, size);
  if (c.bad) fail("put() needed more than six bytes a byte");
  ascii(out, c.o);
  free(out);
  free(in);
  return 0;
}
