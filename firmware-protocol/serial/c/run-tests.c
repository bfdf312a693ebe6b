/* Runs meterline over the golden vectors (vectors.h, generated from ../golden/ by vectors.ts):
 * every valid line parses to its fields and, when canonical, formats back to itself; every invalid
 * line gives its error. Prints "N passed, M failed" and exits 1 on any failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "meterline.h"

typedef struct {
  const char *key;
  ml_kind kind;
  const char *text; /* decoded bytes for ML_STR, canonical wire text otherwise */
  size_t len;
} ev_field;
typedef struct {
  const char *name;
  const char *line;
  size_t len;
  const char *type;
  int canonical;
  int nfields;
  ev_field fields[ML_MAX_FIELDS];
} valid_vec;
typedef struct {
  const char *name;
  const char *line;
  size_t len;
  const char *code;
} invalid_vec;

#include "vectors.h"

static int failed = 0, passed = 0;

static void check(int ok, const char *name, const char *what) {
  if (ok) return;
  printf("FAIL %s: %s\n", name, what);
  failed++;
}

static int field_matches(const ml_field *f, const ev_field *e) {
  switch (e->kind) {
    case ML_INT:
    case ML_BOOL:
      return f->i == strtoll(e->text, NULL, 10);
    case ML_NUM:
      return f->d == strtod(e->text, NULL);
    default:
      return f->slen == e->len && memcmp(f->s, e->text, e->len) == 0;
  }
}

/* A frame holding the expected values, for the encoder. */
static void build(const valid_vec *v, ml_frame *out) {
  memset(out, 0, sizeof *out);
  strcpy(out->type, v->type);
  out->nfields = v->nfields;
  for (int k = 0; k < v->nfields; k++) {
    const ev_field *e = &v->fields[k];
    ml_field *f = &out->fields[k];
    f->key = e->key;
    f->kind = e->kind;
    f->s = e->text;
    f->slen = e->len;
    if (e->kind == ML_INT || e->kind == ML_BOOL) f->i = strtoll(e->text, NULL, 10);
    if (e->kind == ML_NUM) f->d = strtod(e->text, NULL);
  }
}

int main(void) {
  static ml_frame frame, built;
  char line[ML_MAX_LINE + 8];
  for (size_t n = 0; n < sizeof VALID / sizeof VALID[0]; n++) {
    const valid_vec *v = &VALID[n];
    int before = failed;
    ml_status st = ml_parse(v->line, v->len, &frame);
    check(st == ML_OK, v->name, ml_status_name(st));
    if (st != ML_OK) continue;
    check(strcmp(frame.type, v->type) == 0, v->name, "type");
    check(frame.nfields == v->nfields, v->name, "field count");
    for (int k = 0; k < v->nfields; k++) {
      const ml_field *f = ml_get(&frame, v->fields[k].key);
      check(f && field_matches(f, &v->fields[k]), v->name, v->fields[k].key);
    }
    if (v->canonical) {
      build(v, &built);
      int len = ml_format(&built, line, sizeof line);
      check(len == (int)v->len && memcmp(line, v->line, v->len) == 0, v->name, line);
    }
    if (failed == before) passed++;
  }
  for (size_t n = 0; n < sizeof INVALID / sizeof INVALID[0]; n++) {
    const invalid_vec *v = &INVALID[n];
    ml_status st = ml_parse(v->line, v->len, &frame);
    int ok = strcmp(ml_status_name(st), v->code) == 0;
    check(ok, v->name, ml_status_name(st));
    if (ok) passed++;
  }
  /* [SP-2.5] the catalogue check value */
  check(ml_crc16("123456789", 9) == 0x29B1, "crc16 check value", "not 0x29B1");
  if (ml_crc16("123456789", 9) == 0x29B1) passed++;
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
