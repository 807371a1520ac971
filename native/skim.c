/*
 * The native skim kernel: one line of JSON bytes + a compiled skim spec -> the reduced record as compact JSON
 * text (only the kept fields), or a decline. JavaScript parses that small text with JSON.parse; see
 * src/node/nativeSkim.ts for the contract and src/formats/skim/skim.ts for what a spec means.
 *
 * Exactness: the kernel answers only for a line that is one JSON object (RFC 8259 / ECMA-404, the grammar
 * JSON.parse accepts) starting at its first byte, followed by nothing but JSON whitespace. It checks the whole
 * line's grammar, dropped values included, so a line JSON.parse would reject is declined (the caller then parses
 * it whole and reports what JSON.parse says). Kept values are copied byte for byte, so their UTF-8 decoding is
 * the one the full parse would make (a kept value sits between ASCII bytes, and an ASCII byte ends any UTF-8
 * sequence). It declines, rather than guess: a key holding a backslash in an object whose keys are matched, a
 * condition's value holding a backslash, nesting deeper than MAX_DEPTH, more than MAX_FIELDS keys in one spec
 * level.
 *
 * This file is the Node-API glue; the grammar and the reduction are in skim_core.h (pure C, fuzzed by native/fuzz/).
 *
 * Exports: compile(spec) -> External; skim(line, out, spec) -> length written to out, or -1 (declined);
 * skimLines(chunk, from, out, spec, state, meta, limit, textMax) -> the records of a run of whole lines, as one JSON array
 * text (see skim_lines). Every write into `out` is checked against its length: a reduction that does not fit
 * (escapes make non-ASCII text up to six times longer) is declined, never written past the end.
 */
#include <node_api.h>
#include "skim_core.h"

/* ---- N-API ---- */

static char *dup_string(napi_env env, napi_value v, size_t *len) {
  size_t n;
  if (napi_get_value_string_utf8(env, v, NULL, 0, &n) != napi_ok) return NULL;
  char *s = malloc(n + 1);
  if (s == NULL) return NULL;
  napi_get_value_string_utf8(env, v, s, n + 1, &n);
  *len = n;
  return s;
}

/* spec: [[key, childSpec | null, condIndex (-1 none), [choice (string | true) ...]], ...] */
static node_t *compile_node(napi_env env, napi_value spec) {
  uint32_t n;
  if (napi_get_array_length(env, spec, &n) != napi_ok || n > MAX_FIELDS) return NULL;
  node_t *nd = calloc(1, sizeof(node_t));
  if (nd == NULL) return NULL;
  nd->n = (int)n;
  for (uint32_t k = 0; k < n; k++) {
    napi_value e, key, child, cond, choices;
    napi_get_element(env, spec, k, &e);
    napi_get_element(env, e, 0, &key);
    napi_get_element(env, e, 1, &child);
    napi_get_element(env, e, 2, &cond);
    napi_get_element(env, e, 3, &choices);
    field_t *f = &nd->fields[k];
    f->key = dup_string(env, key, &f->key_len);
    if (f->key == NULL) return NULL;
    napi_valuetype t;
    napi_typeof(env, child, &t);
    f->child = t == napi_null ? NULL : compile_node(env, child);
    if (t != napi_null && f->child == NULL) return NULL;
    int32_t ci = -1;
    /* the deciding field is one of this level's: an index outside them is a bad spec */
    if (napi_get_value_int32(env, cond, &ci) != napi_ok || ci >= (int32_t)n) return NULL;
    f->cond_field = ci < 0 ? -1 : ci;
    if (ci >= 0) {
      nd->has_cond = 1;
      uint32_t m;
      napi_get_array_length(env, choices, &m);
      if (m > MAX_CHOICES) return NULL;
      f->n_choices = (int)m;
      for (uint32_t j = 0; j < m; j++) {
        napi_value ch;
        napi_get_element(env, choices, j, &ch);
        napi_typeof(env, ch, &t);
        if (t == napi_string) {
          f->choices[j] = dup_string(env, ch, &f->choice_len[j]);
          if (f->choices[j] == NULL) return NULL;
        } else {
          f->choices[j] = NULL;
        }
      }
    }
  }
  return nd;
}

static napi_value compile(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], out;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  node_t *nd = argc == 1 ? compile_node(env, argv[0]) : NULL;
  if (nd == NULL) {
    napi_throw_type_error(env, NULL, "skim: bad spec");
    return NULL;
  }
  napi_create_external(env, nd, NULL, NULL, &out);
  return out;
}

static napi_value skim(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3], res;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  int32_t r = -1;
  void *line, *out, *spec;
  size_t n, cap;
  if (argc == 3 && napi_get_buffer_info(env, argv[0], &line, &n) == napi_ok && napi_get_buffer_info(env, argv[1], &out, &cap) == napi_ok &&
      napi_get_value_external(env, argv[2], &spec) == napi_ok && cap >= n && n > 0 && n <= 0x7fffffff && ((uint8_t *)line)[0] == '{') {
    r = skim_one((const uint8_t *)line, n, (uint8_t *)out, cap, (const node_t *)spec);
  }
  napi_create_int32(env, r, &res);
  return res;
}

/*
 * skimLines(chunk, from, out, spec, state, meta, limit, textMax) -> records written.
 *
 * Reduces the whole lines of chunk[from, length) one after another, as skim() reduces one, and writes them into
 * out as one JSON array text: `[r1,r2,...]`. It stops before the first line it does not answer, which the caller
 * reads on its own: a line without a newline yet, a line that does not start with `{` (after a `\r` before the
 * newline is left out), a line of `limit` bytes or more, a line the reduction declines or that does not fit in
 * out. It also stops, to be called again from there, when meta is full or the text has reached textMax bytes
 * (the caller keeps each text small). Empty lines (nothing, or only `\r`) are passed over and counted, as the
 * line splitter skips them. state (Int32Array, >= 4): [0] the offset after the last newline taken, [1] the lines
 * taken (empty ones too), [2] the length of the text in out, [3] 1 when it stopped full (call again), else 0. meta (Int32Array): for record k, [2k] its line's index among the lines taken
 * (0-based) and [2k+1] the offset after its newline. out must hold length - from + 2 bytes.
 */
static napi_value skim_lines(napi_env env, napi_callback_info info) {
  size_t argc = 8;
  napi_value argv[8], res;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  int32_t count = -1;
  void *chunk, *outp, *spec, *statep, *metap;
  size_t n, cap, slen, mlen;
  int32_t from, limit, text_max;
  napi_typedarray_type st, mt;
  napi_value sab, mab;
  size_t soff, moff;
  if (argc == 8 && napi_get_buffer_info(env, argv[0], &chunk, &n) == napi_ok && napi_get_value_int32(env, argv[1], &from) == napi_ok &&
      napi_get_buffer_info(env, argv[2], &outp, &cap) == napi_ok && napi_get_value_external(env, argv[3], &spec) == napi_ok &&
      napi_get_typedarray_info(env, argv[4], &st, &slen, &statep, &sab, &soff) == napi_ok && st == napi_int32_array && slen >= 4 &&
      napi_get_typedarray_info(env, argv[5], &mt, &mlen, &metap, &mab, &moff) == napi_ok && mt == napi_int32_array &&
      napi_get_value_int32(env, argv[6], &limit) == napi_ok && napi_get_value_int32(env, argv[7], &text_max) == napi_ok && from >= 0 &&
      (size_t)from <= n && n <= 0x7ffffff0 && cap >= n - (size_t)from + 2 && limit > 0 && text_max > 0) {
    count = skim_run((const uint8_t *)chunk, n, (size_t)from, (uint8_t *)outp, cap, (const node_t *)spec, (int32_t *)statep,
                     (int32_t *)metap, mlen, limit, text_max);
  }
  napi_create_int32(env, count, &res);
  return res;
}

NAPI_MODULE_INIT() {
  napi_value f;
  napi_create_function(env, "compile", NAPI_AUTO_LENGTH, compile, NULL, &f);
  napi_set_named_property(env, exports, "compile", f);
  napi_create_function(env, "skim", NAPI_AUTO_LENGTH, skim, NULL, &f);
  napi_set_named_property(env, exports, "skim", f);
  napi_create_function(env, "skimLines", NAPI_AUTO_LENGTH, skim_lines, NULL, &f);
  napi_set_named_property(env, exports, "skimLines", f);
  return exports;
}
