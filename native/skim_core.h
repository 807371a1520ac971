/*
 * The skim kernel's pure C: the JSON grammar, the reduction by a compiled spec and the run of lines, with no Node-API in it, so that the Node-API glue (skim.c) and the fuzzing harness (native/fuzz/)
 * compile the same code. Every function is static: each includer gets its own copy.
 */
#ifndef RUN_OUTCOME_SKIM_CORE_H
#define RUN_OUTCOME_SKIM_CORE_H
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define MAX_DEPTH 512
#define MAX_FIELDS 64
#define MAX_CHOICES 32

struct node;

typedef struct {
  char *key;
  size_t key_len;
  struct node *child; /* NULL: the whole value */
  int cond_field;     /* -1: unconditional; else the index of the field whose value decides */
  int n_choices;
  char *choices[MAX_CHOICES]; /* string contents; NULL entry: the literal true */
  size_t choice_len[MAX_CHOICES];
} field_t;

typedef struct node {
  int n;
  int has_cond;
  field_t fields[MAX_FIELDS];
} node_t;

typedef struct {
  const uint8_t *p;
  size_t n;
  size_t i;
  uint8_t *out;
  size_t o;
  int depth;
  /* room in out: a write past it marks the line bad (declined) */
  size_t cap;
  int bad;
} ctx_t;

/* ---- the grammar ---- */

static inline void ws(ctx_t *c) {
  while (c->i < c->n) {
    uint8_t b = c->p[c->i];
    if (b == ' ' || b == '\t' || b == '\r' || b == '\n') c->i++;
    else return;
  }
}

static inline int hexd(uint8_t b) { return (b >= '0' && b <= '9') || ((b | 0x20) >= 'a' && (b | 0x20) <= 'f'); }

/* The end of the escape at p[j] (a backslash): the offset after it, or 0 when it is not a valid JSON escape. */
static inline size_t escape_end(const uint8_t *p, size_t n, size_t j) {
  if (j + 1 >= n) return 0;
  uint8_t x = p[j + 1];
  if (x == '"' || x == '\\' || x == '/' || x == 'b' || x == 'f' || x == 'n' || x == 'r' || x == 't') return j + 2;
  if (x == 'u' && j + 6 <= n && hexd(p[j + 2]) && hexd(p[j + 3]) && hexd(p[j + 4]) && hexd(p[j + 5])) return j + 6;
  return 0;
}

/*
 * At a '"': moves past the closing quote. *esc set when the string holds a backslash. 0, or -1 when invalid.
 *
 * With SSE2 it reads 64 bytes at a time into one mask of the bytes that need a look (a quote, a backslash, a
 * control character) and walks the mask: an escape clears the bits it covers and the walk goes on in the same
 * mask, so text dense with escapes (code, JSON inside strings: one in every ~37 bytes of a Codex rollout) does
 * not go back to a load per escape. A string that ends within its first 16 bytes without an escape (most keys and
 * ids) is done after one load. The bytes past the last 64-byte block go the 16-byte way, then one by one.
 */
static int str(ctx_t *c, int *esc) {
  const uint8_t *p = c->p;
  size_t n = c->n;
  size_t i = c->i + 1;
  int e = 0;
#if defined(__SSE2__)
  const __m128i q = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\'), lo = _mm_set1_epi8(0x1f);
#define SPECIAL16(at) \
  ((uint64_t)(uint32_t)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + (at))), q), \
                                                                   _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + (at))), bs)), \
                                                      _mm_cmpeq_epi8(_mm_max_epu8(_mm_loadu_si128((const __m128i *)(p + (at))), lo), lo))))
  /* most strings (keys, ids, short values) end within their first 16 bytes, without an escape */
  if (i + 16 <= n) {
    uint64_t m = SPECIAL16(i);
    if (m != 0 && p[i + (size_t)__builtin_ctzll(m)] == '"') {
      c->i = i + (size_t)__builtin_ctzll(m) + 1;
      *esc = 0;
      return 0;
    }
  }
  while (i + 64 <= n) {
    uint64_t m = SPECIAL16(i) | SPECIAL16(i + 16) << 16 | SPECIAL16(i + 32) << 32 | SPECIAL16(i + 48) << 48;
    size_t next = i + 64;
    while (m != 0) {
      size_t j = i + (size_t)__builtin_ctzll(m);
      uint8_t b = p[j];
      if (b == '"') {
        c->i = j + 1;
        *esc = e;
        return 0;
      }
      if (b < 0x20) return -1;
      e = 1;
      size_t after = escape_end(p, n, j);
      if (after == 0) return -1;
      if (after - i >= 64) {
        /* the escape ends past this block: the next block starts after it */
        next = after;
        break;
      }
      m &= ~(uint64_t)0 << (after - i);
    }
    i = next;
  }
#endif
  for (;;) {
#if defined(__SSE2__)
    while (i + 16 <= n) {
      uint64_t mask = SPECIAL16(i);
      if (mask != 0) {
        i += (size_t)__builtin_ctzll(mask);
        goto special;
      }
      i += 16;
    }
#endif
    while (i < n) {
      uint8_t b = p[i];
      if (b == '"' || b == '\\' || b < 0x20) goto special;
      i++;
    }
    return -1;
  special:;
    uint8_t b = p[i];
    if (b == '"') {
      c->i = i + 1;
      *esc = e;
      return 0;
    }
    if (b < 0x20) return -1;
    /* a backslash */
    e = 1;
    i = escape_end(p, n, i);
    if (i == 0) return -1;
  }
#if defined(__SSE2__)
#undef SPECIAL16
#endif
}

static inline int digit(uint8_t b) { return b >= '0' && b <= '9'; }

static int num(ctx_t *c) {
  const uint8_t *p = c->p;
  size_t n = c->n, i = c->i;
  if (i < n && p[i] == '-') i++;
  if (i >= n) return -1;
  if (p[i] == '0') i++;
  else if (digit(p[i])) {
    while (i < n && digit(p[i])) i++;
  } else return -1;
  if (i < n && p[i] == '.') {
    i++;
    if (i >= n || !digit(p[i])) return -1;
    while (i < n && digit(p[i])) i++;
  }
  if (i < n && (p[i] == 'e' || p[i] == 'E')) {
    i++;
    if (i < n && (p[i] == '+' || p[i] == '-')) i++;
    if (i >= n || !digit(p[i])) return -1;
    while (i < n && digit(p[i])) i++;
  }
  c->i = i;
  return 0;
}

static int lit(ctx_t *c, const char *w, size_t len) {
  if (c->n - c->i < len || memcmp(c->p + c->i, w, len) != 0) return -1;
  c->i += len;
  return 0;
}

/*
 * After a member or an element: past the whitespace and the separator. 1 at the closing bracket `close` (taken),
 * 0 after a comma (and the whitespace after it), -1 at anything else (the grammar is broken).
 */
static inline int separator(ctx_t *c, uint8_t close) {
  ws(c);
  if (c->i >= c->n) return -1;
  uint8_t b = c->p[c->i++];
  if (b == close) return 1;
  if (b != ',') return -1;
  ws(c);
  return 0;
}

/* Checks one value (at a non-whitespace byte), building nothing. */
static int value(ctx_t *c) {
  if (c->i >= c->n) return -1;
  uint8_t b = c->p[c->i];
  int esc;
  switch (b) {
  case '"':
    return str(c, &esc);
  case '{':
    if (++c->depth > MAX_DEPTH) return -1;
    c->i++;
    ws(c);
    if (c->i < c->n && c->p[c->i] == '}') {
      c->i++;
      c->depth--;
      return 0;
    }
    for (;;) {
      if (c->i >= c->n || c->p[c->i] != '"' || str(c, &esc)) return -1;
      ws(c);
      if (c->i >= c->n || c->p[c->i] != ':') return -1;
      c->i++;
      ws(c);
      if (value(c)) return -1;
      int sep = separator(c, '}');
      if (sep < 0) return -1;
      if (sep) break;
    }
    c->depth--;
    return 0;
  case '[':
    if (++c->depth > MAX_DEPTH) return -1;
    c->i++;
    ws(c);
    if (c->i < c->n && c->p[c->i] == ']') {
      c->i++;
      c->depth--;
      return 0;
    }
    for (;;) {
      if (value(c)) return -1;
      int sep = separator(c, ']');
      if (sep < 0) return -1;
      if (sep) break;
    }
    c->depth--;
    return 0;
  case 't':
    return lit(c, "true", 4);
  case 'f':
    return lit(c, "false", 5);
  case 'n':
    return lit(c, "null", 4);
  default:
    return num(c);
  }
}

/* ---- the reduction ---- */

static inline void put_raw(ctx_t *c, const uint8_t *s, size_t len) {
  if (len > c->cap - c->o) {
    c->bad = 1;
    return;
  }
  memcpy(c->out + c->o, s, len);
  c->o += len;
}

static const char HEX[] = "0123456789abcdef";

/* `\uXXXX` for one UTF-16 code unit. */
static inline void put_unit(ctx_t *c, uint32_t u) {
  if (c->cap - c->o < 6) {
    c->bad = 1;
    return;
  }
  uint8_t *o = c->out + c->o;
  o[0] = '\\';
  o[1] = 'u';
  o[2] = (uint8_t)HEX[(u >> 12) & 15];
  o[3] = (uint8_t)HEX[(u >> 8) & 15];
  o[4] = (uint8_t)HEX[(u >> 4) & 15];
  o[5] = (uint8_t)HEX[u & 15];
  c->o += 6;
}

static inline void put_code_point(ctx_t *c, uint32_t cp) {
  if (cp < 0x10000) {
    put_unit(c, cp);
  } else {
    cp -= 0x10000;
    put_unit(c, 0xd800 | (cp >> 10));
    put_unit(c, 0xdc00 | (cp & 0x3ff));
  }
}

/* The offset of the first byte >= 0x80 in s[i, len), or len. */
static inline size_t ascii_run(const uint8_t *s, size_t i, size_t len) {
#if defined(__SSE2__)
  while (i + 16 <= len) {
    int mask = _mm_movemask_epi8(_mm_loadu_si128((const __m128i *)(s + i)));
    if (mask != 0) return i + (size_t)__builtin_ctz((unsigned)mask);
    i += 16;
  }
#endif
  while (i < len && s[i] < 0x80) i++;
  return i;
}

/*
 * Copies a kept piece of the line (a key, or a whole value) as ASCII text: every character at or above U+0080,
 * which valid JSON holds only inside strings, becomes its `\uXXXX` escape (two for one past U+FFFF), so the
 * caller reads the output as one-byte text, and JSON.parse gives the same string. The bytes are read as the
 * WHATWG UTF-8 decoder reads them (what Node's Buffer#toString('utf8') gives): a byte or sequence that is not
 * UTF-8 becomes one U+FFFD per maximal subpart. A piece starts and ends at an ASCII byte of the line (a quote, a
 * bracket, a digit), which ends any sequence, so decoding it alone is decoding it within the line.
 */
static void put(ctx_t *c, const uint8_t *s, size_t len) {
  size_t i = 0;
  while (i < len) {
    size_t j = ascii_run(s, i, len);
    put_raw(c, s + i, j - i);
    if (j >= len) return;
    uint8_t b = s[j];
    size_t need;
    uint32_t cp;
    uint8_t lower = 0x80, upper = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) {
      need = 1;
      cp = b & 0x1f;
    } else if (b >= 0xe0 && b <= 0xef) {
      if (b == 0xe0) lower = 0xa0;
      if (b == 0xed) upper = 0x9f;
      need = 2;
      cp = b & 0x0f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      if (b == 0xf0) lower = 0x90;
      if (b == 0xf4) upper = 0x8f;
      need = 3;
      cp = b & 0x07;
    } else {
      put_unit(c, 0xfffd);
      i = j + 1;
      continue;
    }
    size_t k = 1;
    for (; k <= need; k++) {
      if (j + k >= len) break;
      uint8_t x = s[j + k];
      if (x < lower || x > upper) break;
      lower = 0x80;
      upper = 0xbf;
      cp = (cp << 6) | (x & 0x3f);
    }
    if (k <= need) {
      /* a sequence cut short: one U+FFFD for its bytes so far; the byte that cut it is read again */
      put_unit(c, 0xfffd);
      i = j + k;
      continue;
    }
    put_code_point(c, cp);
    i = j + need + 1;
  }
}
static inline void put1(ctx_t *c, uint8_t b) {
  if (c->o >= c->cap) {
    c->bad = 1;
    return;
  }
  c->out[c->o++] = b;
}

static int reduce(ctx_t *c, const node_t *nd);

/* A value reduced by `nd`: an object keeps nd's keys, an array each element reduced, anything else itself. */
static int reduced_value(ctx_t *c, const node_t *nd) {
  if (c->i >= c->n) return -1;
  uint8_t b = c->p[c->i];
  if (b == '{') return reduce(c, nd);
  if (b == '[') {
    if (++c->depth > MAX_DEPTH) return -1;
    c->i++;
    put1(c, '[');
    ws(c);
    if (c->i < c->n && c->p[c->i] == ']') {
      c->i++;
    } else {
      int first = 1;
      for (;;) {
        if (!first) put1(c, ',');
        first = 0;
        if (reduced_value(c, nd)) return -1;
        int sep = separator(c, ']');
        if (sep < 0) return -1;
        if (sep) break;
      }
    }
    put1(c, ']');
    c->depth--;
    return 0;
  }
  size_t s = c->i;
  if (value(c)) return -1;
  put(c, c->p + s, c->i - s);
  return 0;
}

static int kept(ctx_t *c, const field_t *f) {
  if (f->child != NULL) return reduced_value(c, f->child);
  size_t s = c->i;
  if (value(c)) return -1;
  put(c, c->p + s, c->i - s);
  return 0;
}

static int holds(const uint8_t *p, size_t s, size_t e, const field_t *f) {
  for (int k = 0; k < f->n_choices; k++) {
    if (f->choices[k] == NULL) {
      if (e - s == 4 && memcmp(p + s, "true", 4) == 0) return 1;
    } else {
      size_t len = f->choice_len[k];
      if (e - s == len + 2 && p[s] == '"' && memcmp(p + s + 1, f->choices[k], len) == 0) return 1;
    }
  }
  return 0;
}

/* At a '{': writes the object with only nd's keys (in the line's order, conditional ones last). */
static int reduce(ctx_t *c, const node_t *nd) {
  if (++c->depth > MAX_DEPTH) return -1;
  size_t start[MAX_FIELDS], end[MAX_FIELDS];
  if (nd->has_cond)
    for (int k = 0; k < nd->n; k++) start[k] = (size_t)-1;
  c->i++;
  put1(c, '{');
  int first = 1;
  ws(c);
  if (c->i < c->n && c->p[c->i] == '}') {
    c->i++;
  } else {
    for (;;) {
      if (c->i >= c->n || c->p[c->i] != '"') return -1;
      size_t ks = c->i;
      int esc;
      if (str(c, &esc)) return -1;
      size_t ke = c->i;
      ws(c);
      if (c->i >= c->n || c->p[c->i] != ':') return -1;
      c->i++;
      ws(c);
      int hit = -1;
      size_t klen = ke - ks - 2;
      for (int k = 0; k < nd->n; k++) {
        const field_t *f = &nd->fields[k];
        if (f->key_len == klen && memcmp(f->key, c->p + ks + 1, klen) == 0) {
          hit = k;
          break;
        }
      }
      if (hit < 0 && esc) return -1; /* an escaped key might spell one of the spec's */
      if (hit < 0) {
        if (value(c)) return -1;
      } else {
        const field_t *f = &nd->fields[hit];
        size_t vs = c->i;
        if (f->cond_field >= 0) {
          if (value(c)) return -1;
        } else {
          if (!first) put1(c, ',');
          first = 0;
          put(c, c->p + ks, ke - ks);
          put1(c, ':');
          if (kept(c, f)) return -1;
        }
        if (nd->has_cond) {
          start[hit] = vs;
          end[hit] = c->i;
        }
      }
      int sep = separator(c, '}');
      if (sep < 0) return -1;
      if (sep) break;
    }
  }
  if (nd->has_cond) {
    size_t resume = c->i;
    for (int k = 0; k < nd->n; k++) {
      const field_t *f = &nd->fields[k];
      if (f->cond_field < 0 || start[k] == (size_t)-1) continue;
      int d = f->cond_field;
      if (start[d] == (size_t)-1) continue;
      if (!holds(c->p, start[d], end[d], f)) {
        /* a string condition value with a backslash may still spell a choice */
        if (c->p[start[d]] == '"' && memchr(c->p + start[d], '\\', end[d] - start[d]) != NULL) return -1;
        continue;
      }
      if (!first) put1(c, ',');
      first = 0;
      put1(c, '"');
      put_raw(c, (const uint8_t *)f->key, f->key_len);
      put1(c, '"');
      put1(c, ':');
      c->i = start[k];
      if (kept(c, f)) return -1;
    }
    c->i = resume;
  }
  put1(c, '}');
  c->depth--;
  return 0;
}

/* ---- runs of lines ---- */

/*
 * The run of whole lines of p[from, n) as skimLines() reduces it (see skim_lines in skim.c): writes the JSON array
 * text into out (cap bytes, at least n - from + 2), fills state and meta (mlen entries), and returns the records
 * written. The caller has checked the arguments: from <= n <= 0x7ffffff0, cap >= n - from + 2, limit > 0,
 * text_max > 0.
 */
static int32_t skim_run(const uint8_t *chunk, size_t n, size_t from, uint8_t *outp, size_t cap, const node_t *spec, int32_t *state,
                        int32_t *meta, size_t mlen, int32_t limit, int32_t text_max) {
  const uint8_t *p = chunk;
  uint8_t *out = outp;
  size_t pos = from, o = 1, records = 0, lines = 0, max = mlen / 2;
  int32_t more = 0;
  out[0] = '[';
  while (pos < n) {
    if (records >= max || o >= (size_t)text_max) {
      /* full: the caller reads these and calls again from here */
      more = 1;
      break;
    }
    const uint8_t *nlp = memchr(p + pos, '\n', n - pos);
    if (nlp == NULL) break;
    size_t nl = (size_t)(nlp - p), end = nl;
    if (end > pos && p[end - 1] == '\r') end--;
    if (end == pos) {
      lines++;
      pos = nl + 1;
      continue;
    }
    if (end - pos >= (size_t)limit || p[pos] != '{') break;
    size_t sep = records > 0 ? 1 : 0;
    /* escapes make a reduction longer than its line (six bytes for one invalid byte): out may be nearly full.
       With no room left for a separator, a byte and the closing bracket, stop full (the caller calls again
       with out empty); never compute the room below zero */
    if (o + sep + 2 >= cap) {
      more = 1;
      break;
    }
    /* room for this line's reduction: what is left of out but the separator and the closing bracket */
    ctx_t c = {p + pos, end - pos, 0, out + o + sep, 0, 0, cap - o - sep - 1, 0};
    if (reduce(&c, (const node_t *)spec) != 0 || c.bad) break;
    ws(&c);
    if (c.i != c.n) break;
    if (sep) out[o] = ',';
    o += sep + c.o;
    meta[2 * records] = (int32_t)lines;
    meta[2 * records + 1] = (int32_t)(nl + 1);
    records++;
    lines++;
    pos = nl + 1;
  }
  out[o++] = ']';
  state[0] = (int32_t)pos;
  state[1] = (int32_t)lines;
  state[2] = (int32_t)o;
  state[3] = more;
  return (int32_t)records;
}

/* One line (n bytes, starting at '{') reduced by spec into out (cap bytes): the length written, or -1 (declined). */
static int32_t skim_one(const uint8_t *line, size_t n, uint8_t *out, size_t cap, const node_t *spec) {
  ctx_t c = {line, n, 0, out, 0, 0, cap, 0};
  if (reduce(&c, spec) != 0 || c.bad) return -1;
  ws(&c);
  return c.i == c.n ? (int32_t)c.o : -1;
}

#endif
