/* meterline: see meterline.h. The field tables mirror ../frames.ts; the checks run in the same order as
 * ../codec.ts, so both give the same error for every line in ../golden/invalid.json. */
#include "meterline.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const char *key;
  ml_kind kind;
  int optional;
  const char *const *values; /* ML_ENUM: NULL-terminated */
  int ranged;                /* ML_INT: only lo..hi is valid (keepalive_s, SP-4.1) */
  int64_t lo, hi;
} ml_spec;

static const char *const MODELS[] = {"basic", "full", NULL};
static const char *const MODES[] = {"prepaid", "postpaid", "measurement", "relay_off", NULL};
static const char *const WIFI_TYPES[] = {"Primary", "Secondary", NULL};
static const char *const SLOTS[] = {"eb", "dg", NULL};
static const char *const LEVELS[] = {"debug", "info", "warn", "error", NULL};
static const char *const NAK_CODES[] = {"invalid_argument", "unsupported", "busy", "bad_request", NULL};
static const char *const ERR_CODES[] = {"too_long",      "bad_char",      "no_checksum",     "bad_checksum",
                                        "syntax",        "unknown_type",  "duplicate_field", "missing_field",
                                        "bad_value",     "bad_version",   "rejected",        "wrong_device",
                                        NULL};
static const char *const OPS[] = {"set_relay",   "set_mode", "set_tariff", "set_active_tariff", "set_gateway",
                                  "set_wifi",    "get_wifi", "recharge",   "read",              NULL};

#define F(k, t) {k, t, 0, NULL, 0, 0, 0}
#define O(k, t) {k, t, 1, NULL, 0, 0, 0}
#define E(k, v) {k, ML_ENUM, 0, v, 0, 0, 0}
#define R(k, lo, hi) {k, ML_INT, 0, NULL, 1, lo, hi}
#define END {NULL, ML_INT, 0, NULL, 0, 0, 0}

static const ml_spec NONE[] = {END};
static const ml_spec CLOCK[] = {O("ts", ML_INT), END}; /* IDENT and PONG [SP-5.9] */
static const ml_spec HELLO[] = {F("proto", ML_INT),       F("device_id", ML_STR),
                                E("model", MODELS),       F("firmware", ML_STR),
                                F("has_relay", ML_BOOL),  F("telemetry_period_s", ML_NUM),
                                R("keepalive_s", 1, 60), F("properties", ML_PROPS),
                                END};
#define STATE_FIELDS(p)                                                                                  \
  F(p "ts", ML_INT), E(p "mode", MODES), F(p "relay_commanded", ML_BOOL), F(p "relay_state", ML_BOOL),   \
      F(p "eb_tariff", ML_INT), F(p "dg_tariff", ML_INT), F(p "active_tariff", ML_INT),                   \
      F(p "balance", ML_INT), F(p "pg_enabled", ML_BOOL), E(p "wifi_type", WIFI_TYPES)
#define SAMPLE_FIELDS(p)                                                                                 \
  F(p "ts", ML_INT), F(p "energy", ML_NUM), F(p "active_power", ML_NUM), F(p "voltage", ML_NUM),         \
      O(p "current", ML_NUM), O(p "power_factor", ML_NUM), O(p "apparent_power", ML_NUM),                 \
      O(p "reactive_power", ML_NUM), F(p "balance", ML_INT)
static const ml_spec STATE[] = {STATE_FIELDS(""), END};
static const ml_spec TEL[] = {SAMPLE_FIELDS(""), END};
static const ml_spec CMD[] = {F("seq", ML_INT), F("id", ML_STR), E("op", OPS), END};
static const ml_spec NAK[] = {F("seq", ML_INT), F("id", ML_STR), E("code", NAK_CODES), F("msg", ML_STR), END};
static const ml_spec LOG[] = {E("level", LEVELS), F("msg", ML_STR), END};
static const ml_spec ERR[] = {E("code", ERR_CODES), F("msg", ML_STR), END};

/* [SP-4.5] command arguments and [SP-4.6] reply data, by op (same order as OPS). */
static const ml_spec C_RELAY[] = {F("on", ML_BOOL), END};
static const ml_spec C_MODE[] = {E("mode", MODES), END};
static const ml_spec C_TARIFF[] = {E("slot", SLOTS), F("paise", ML_INT), END};
static const ml_spec C_ACTIVE[] = {F("tariff", ML_INT), END};
static const ml_spec C_GATEWAY[] = {F("enabled", ML_BOOL), END};
static const ml_spec C_WIFI[] = {F("ssid", ML_STR), F("password", ML_STR), END};
static const ml_spec C_RECHARGE[] = {F("amount", ML_INT), F("transaction_id", ML_STR), END};
static const ml_spec *const CMD_OPS[] = {C_RELAY, C_MODE, C_TARIFF, C_ACTIVE, C_GATEWAY,
                                         C_WIFI,  NONE,   C_RECHARGE, NONE};
static const ml_spec A_WIFI[] = {F("ssid", ML_STR), F("password", ML_STR), F("rssi", ML_INT),
                                 E("type", WIFI_TYPES), END};
static const ml_spec A_RECHARGE[] = {F("applied", ML_BOOL), F("balance", ML_INT), END};
static const ml_spec A_READ[] = {SAMPLE_FIELDS("r."), STATE_FIELDS("s."), END};
static const ml_spec *const ACK_OPS[] = {NONE, NONE, NONE, NONE, NONE, NONE, A_WIFI, A_RECHARGE, A_READ};

static const struct {
  const char *name;
  const ml_spec *fields;
} TYPES[] = {{"HELLO", HELLO}, {"IDENT", CLOCK}, {"STATE", STATE}, {"TEL", TEL}, {"CMD", CMD}, {"ACK", CMD},
             {"NAK", NAK},     {"PING", NONE},   {"PONG", CLOCK},  {"LOG", LOG}, {"ERR", ERR}, {"BYE", NONE}};
#define NTYPES ((int)(sizeof TYPES / sizeof TYPES[0]))

const char *ml_status_name(ml_status s) {
  static const char *const names[] = {"ok",     "empty",        "too_long",        "bad_char",
                                      "no_checksum", "bad_checksum", "syntax", "unknown_type",
                                      "duplicate_field", "missing_field", "bad_value", "bad_version"};
  return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "?";
}

uint16_t ml_crc16(const char *data, size_t n) {
  uint16_t crc = 0xFFFF;
  for (size_t i = 0; i < n; i++) {
    crc ^= (uint16_t)((uint8_t)data[i] << 8);
    for (int bit = 0; bit < 8; bit++) crc = (crc & 0x8000) ? (uint16_t)((crc << 1) ^ 0x1021) : (uint16_t)(crc << 1);
  }
  return crc;
}

/* ---- values [SP-3] ---- */

static int is_literal(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
         c == '~' || c == ':' || c == '-';
}
static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Well-formed UTF-8: no overlongs, no surrogates, nothing above U+10FFFF. */
static int utf8_ok(const unsigned char *s, size_t n) {
  size_t i = 0;
  while (i < n) {
    unsigned c = s[i];
    size_t len;
    unsigned min, cp;
    if (c < 0x80) { i++; continue; }
    if ((c & 0xE0) == 0xC0) { len = 2; min = 0x80; cp = c & 0x1F; }
    else if ((c & 0xF0) == 0xE0) { len = 3; min = 0x800; cp = c & 0x0F; }
    else if ((c & 0xF8) == 0xF0) { len = 4; min = 0x10000; cp = c & 0x07; }
    else return 0;
    if (i + len > n) return 0;
    for (size_t k = 1; k < len; k++) {
      if ((s[i + k] & 0xC0) != 0x80) return 0;
      cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    i += len;
  }
  return 1;
}

/* [SP-3.4] Decodes w[0..n) into out; returns the length or -1. */
static long unescape(const char *w, size_t n, char *out) {
  size_t o = 0;
  for (size_t i = 0; i < n; i++) {
    if (w[i] == '%') {
      if (i + 2 >= n) return -1;
      int hi = hexval(w[i + 1]), lo = hexval(w[i + 2]);
      if (hi < 0 || lo < 0) return -1;
      out[o++] = (char)(hi * 16 + lo);
      i += 2;
    } else if (is_literal(w[i])) {
      out[o++] = w[i];
    } else {
      return -1;
    }
  }
  return utf8_ok((const unsigned char *)out, o) ? (long)o : -1;
}

/* [SP-3.1] 0 | -?[1-9][0-9]* within +-(2^53 - 1). */
static int parse_int(const char *w, size_t n, int64_t *out) {
  size_t i = 0;
  int neg = 0;
  int64_t v = 0;
  if (n == 1 && w[0] == '0') { *out = 0; return 1; }
  if (n > 0 && w[0] == '-') { neg = 1; i = 1; }
  if (i >= n || w[i] < '1' || w[i] > '9' || n - i > 16) return 0;
  for (; i < n; i++) {
    if (w[i] < '0' || w[i] > '9') return 0;
    v = v * 10 + (w[i] - '0');
  }
  if (v > 9007199254740991LL) return 0;
  *out = neg ? -v : v;
  return 1;
}

/* [SP-3.2] JSON number grammar, finite. */
static int parse_num(const char *w, size_t n, double *out) {
  size_t i = 0;
  char tmp[64];
  if (n == 0 || n >= sizeof tmp) return 0;
  if (w[i] == '-') i++;
  if (i < n && w[i] == '0') i++;
  else if (i < n && w[i] >= '1' && w[i] <= '9') while (i < n && w[i] >= '0' && w[i] <= '9') i++;
  else return 0;
  if (i < n && w[i] == '.') {
    size_t start = ++i;
    while (i < n && w[i] >= '0' && w[i] <= '9') i++;
    if (i == start) return 0;
  }
  if (i < n && (w[i] == 'e' || w[i] == 'E')) {
    i++;
    if (i < n && (w[i] == '+' || w[i] == '-')) i++;
    size_t start = i;
    while (i < n && w[i] >= '0' && w[i] <= '9') i++;
    if (i == start) return 0;
  }
  if (i != n) return 0;
  memcpy(tmp, w, n);
  tmp[n] = '\0';
  *out = strtod(tmp, NULL);
  return isfinite(*out);
}

static int in_enum(const char *const *values, const char *w, size_t n) {
  for (int k = 0; values[k]; k++)
    if (strlen(values[k]) == n && memcmp(values[k], w, n) == 0) return k;
  return -1;
}

/* [SP-3.6] id;context;unit items joined by ','. */
static int props_ok(const char *w, size_t n, char *scratch) {
  static const char *const CONTEXTS[] = {"cumulative", "instantaneous", NULL};
  size_t i = 0;
  if (n == 0) return 1;
  while (i <= n) {
    size_t end = i;
    while (end < n && w[end] != ',') end++;
    const char *semi1 = memchr(w + i, ';', end - i);
    if (!semi1) return 0;
    const char *semi2 = memchr(semi1 + 1, ';', (size_t)(w + end - semi1 - 1));
    if (!semi2 || memchr(semi2 + 1, ';', (size_t)(w + end - semi2 - 1))) return 0;
    size_t idlen = (size_t)(semi1 - (w + i));
    if (idlen < 1 || idlen > 64 || w[i] < 'a' || w[i] > 'z') return 0;
    for (size_t k = i; k < i + idlen; k++) {
      char c = w[k];
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return 0;
    }
    if (in_enum(CONTEXTS, semi1 + 1, (size_t)(semi2 - semi1 - 1)) < 0) return 0;
    if (unescape(semi2 + 1, (size_t)(w + end - semi2 - 1), scratch) < 0) return 0;
    i = end + 1;
  }
  return 1;
}

/* ---- parse ---- */

typedef struct {
  uint16_t key, keylen, val, vallen;
} raw_pair;

static int key_ok(const char *k, size_t n) {
  if (n < 1 || n > 32 || k[0] < 'a' || k[0] > 'z') return 0;
  for (size_t i = 1; i < n; i++) {
    char c = k[i];
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.')) return 0;
  }
  return 1;
}

static const raw_pair *find_raw(const char *line, const raw_pair *raw, int n, const char *key) {
  size_t klen = strlen(key);
  for (int k = 0; k < n; k++)
    if (raw[k].keylen == klen && memcmp(line + raw[k].key, key, klen) == 0) return &raw[k];
  return NULL;
}

static ml_status read_fields(const char *line, const raw_pair *raw, int nraw, const ml_spec *specs,
                             ml_frame *out, size_t *used) {
  for (const ml_spec *s = specs; s->key; s++) {
    const raw_pair *p = find_raw(line, raw, nraw, s->key);
    if (!p) {
      if (s->optional) continue;
      return ML_MISSING_FIELD;
    }
    const char *w = line + p->val;
    size_t n = p->vallen;
    ml_field *f = &out->fields[out->nfields++];
    memset(f, 0, sizeof *f);
    f->key = s->key;
    f->kind = s->kind;
    switch (s->kind) {
      case ML_INT:
        if (!parse_int(w, n, &f->i)) return ML_BAD_VALUE;
        if (s->ranged && (f->i < s->lo || f->i > s->hi)) return ML_BAD_VALUE;
        break;
      case ML_NUM:
        if (!parse_num(w, n, &f->d)) return ML_BAD_VALUE;
        break;
      case ML_BOOL:
        if (n != 1 || (w[0] != '0' && w[0] != '1')) return ML_BAD_VALUE;
        f->i = w[0] == '1';
        break;
      case ML_STR: {
        long len = unescape(w, n, out->buf + *used);
        if (len < 0) return ML_BAD_VALUE;
        f->s = out->buf + *used;
        f->slen = (size_t)len;
        *used += (size_t)len + 1;
        out->buf[*used - 1] = '\0';
        break;
      }
      case ML_ENUM:
      case ML_PROPS:
        if (s->kind == ML_ENUM ? in_enum(s->values, w, n) < 0 : !props_ok(w, n, out->buf + *used))
          return ML_BAD_VALUE;
        memcpy(out->buf + *used, w, n);
        f->s = out->buf + *used;
        f->slen = n;
        *used += n + 1;
        out->buf[*used - 1] = '\0';
        break;
    }
  }
  return ML_OK;
}

ml_status ml_parse(const char *line, size_t len, ml_frame *out) {
  static raw_pair raw[ML_MAX_LINE / 2];
  int nraw = 0, t, op = -1;
  size_t used = 0;
  memset(out, 0, sizeof *out);
  if (len > 0 && line[len - 1] == '\r') len--;
  if (len == 0) return ML_EMPTY;
  if (len > ML_MAX_LINE) return ML_TOO_LONG;
  for (size_t i = 0; i < len; i++)
    if ((unsigned char)line[i] < 0x20 || (unsigned char)line[i] > 0x7E) return ML_BAD_CHAR;
  if (len < 5 || line[len - 5] != '*') return ML_NO_CHECKSUM;
  unsigned sum = 0;
  for (size_t i = len - 4; i < len; i++) {
    char c = line[i];
    int v = hexval(c >= 'a' && c <= 'f' ? (char)(c - 32) : c);
    if (v < 0) return ML_NO_CHECKSUM;
    sum = sum * 16 + (unsigned)v;
  }
  size_t body = len - 5;
  if (ml_crc16(line, body) != sum) return ML_BAD_CHECKSUM;

  /* [SP-2.4] TYPE, then single-space separated key=value tokens. */
  size_t i = 0;
  while (i < body && line[i] != ' ') i++;
  if (i < 1 || i > 16) return ML_SYNTAX;
  for (size_t k = 0; k < i; k++)
    if (line[k] < 'A' || line[k] > 'Z') return ML_SYNTAX;
  for (t = 0; t < NTYPES; t++)
    if (strlen(TYPES[t].name) == i && memcmp(TYPES[t].name, line, i) == 0) break;
  if (t == NTYPES) return ML_UNKNOWN_TYPE;
  memcpy(out->type, line, i);
  while (i < body) {
    size_t start = ++i, eq = 0;
    while (i < body && line[i] != ' ') {
      if (line[i] == '=' && !eq) eq = i;
      i++;
    }
    if (!eq || !key_ok(line + start, eq - start)) return ML_SYNTAX;
    raw_pair p = {(uint16_t)start, (uint16_t)(eq - start), (uint16_t)(eq + 1), (uint16_t)(i - eq - 1)};
    for (int k = 0; k < nraw; k++)
      if (raw[k].keylen == p.keylen && memcmp(line + raw[k].key, line + p.key, p.keylen) == 0)
        return ML_DUPLICATE_FIELD;
    raw[nraw++] = p;
  }
  /* Fields: the type's own, then for CMD and ACK the op's. */
  int is_cmd = strcmp(out->type, "CMD") == 0, is_ack = strcmp(out->type, "ACK") == 0;
  if (is_cmd) {
    const raw_pair *s = find_raw(line, raw, nraw, "seq"), *d = find_raw(line, raw, nraw, "id");
    char tmp[ML_MAX_LINE];
    if (s && d && parse_int(line + s->val, s->vallen, &out->seq)) {
      long n = unescape(line + d->val, d->vallen, tmp);
      if (n > 0 && n <= 64) {
        memcpy(out->id, tmp, (size_t)n);
        out->has_seq_id = 1;
      }
    }
  }
  if (is_cmd || is_ack) {
    const raw_pair *p = find_raw(line, raw, nraw, "op");
    if (!p) return ML_MISSING_FIELD;
    op = in_enum(OPS, line + p->val, p->vallen);
    if (op < 0) return ML_BAD_VALUE;
  }
  ml_status st = read_fields(line, raw, nraw, TYPES[t].fields, out, &used);
  if (st == ML_OK && op >= 0) st = read_fields(line, raw, nraw, is_cmd ? CMD_OPS[op] : ACK_OPS[op], out, &used);
  if (st != ML_OK) return st;
  if (t == 0 && ml_get(out, "proto")->i != ML_PROTOCOL_VERSION) return ML_BAD_VERSION;
  return ML_OK;
}

const ml_field *ml_get(const ml_frame *frame, const char *key) {
  for (int k = 0; k < frame->nfields; k++)
    if (strcmp(frame->fields[k].key, key) == 0) return &frame->fields[k];
  return NULL;
}

/* ---- format ---- */

/* [SP-3.2] The shortest digits that read back as d, laid out as JavaScript's Number#toString does. */
static int format_num(double d, char *out, size_t cap) {
  char e[40], digits[20];
  int p, k = 0, n;
  if (d == 0) return snprintf(out, cap, "0");
  for (p = 1; p <= 17; p++) {
    snprintf(e, sizeof e, "%.*e", p - 1, d);
    if (strtod(e, NULL) == d) break;
  }
  const char *c = e;
  int neg = *c == '-';
  if (neg) c++;
  for (; *c != 'e'; c++)
    if (*c != '.') digits[k++] = *c;
  while (k > 1 && digits[k - 1] == '0') k--;
  digits[k] = '\0';
  n = atoi(c + 1) + 1; /* d = 0.DIGITS x 10^n */
  char *o = out;
  size_t left = cap;
#define PUT(...)                                   \
  do {                                             \
    int w_ = snprintf(o, left, __VA_ARGS__);       \
    if (w_ < 0 || (size_t)w_ >= left) return -1;   \
    o += w_;                                       \
    left -= (size_t)w_;                            \
  } while (0)
  if (neg) PUT("-");
  if (k <= n && n <= 21) {
    PUT("%s", digits);
    for (int z = 0; z < n - k; z++) PUT("0");
  } else if (0 < n && n <= 21) {
    PUT("%.*s.%s", n, digits, digits + n);
  } else if (-6 < n && n <= 0) {
    PUT("0.");
    for (int z = 0; z < -n; z++) PUT("0");
    PUT("%s", digits);
  } else {
    PUT("%c", digits[0]);
    if (k > 1) PUT(".%s", digits + 1);
    PUT("e%c%d", n - 1 >= 0 ? '+' : '-', abs(n - 1));
  }
#undef PUT
  return (int)(o - out);
}

static int put_value(const ml_field *f, char *out, size_t cap) {
  switch (f->kind) {
    case ML_INT:
      return snprintf(out, cap, "%" PRId64, f->i);
    case ML_BOOL:
      return snprintf(out, cap, "%d", f->i ? 1 : 0);
    case ML_NUM:
      return format_num(f->d, out, cap);
    case ML_ENUM:
    case ML_PROPS:
      return snprintf(out, cap, "%.*s", (int)f->slen, f->s);
    case ML_STR: {
      size_t o = 0;
      for (size_t i = 0; i < f->slen; i++) {
        if (o + 4 > cap) return -1;
        if (is_literal(f->s[i])) out[o++] = f->s[i];
        else o += (size_t)snprintf(out + o, 4, "%%%02X", (unsigned char)f->s[i]);
      }
      if (o >= cap) return -1;
      out[o] = '\0';
      return (int)o;
    }
  }
  return -1;
}

static int put_fields(const ml_frame *frame, const ml_spec *specs, char *out, size_t cap, size_t *o) {
  for (const ml_spec *s = specs; s->key; s++) {
    const ml_field *f = ml_get(frame, s->key);
    if (!f) {
      if (s->optional) continue;
      return 0;
    }
    if (s->ranged && (f->i < s->lo || f->i > s->hi)) return 0;
    int n = snprintf(out + *o, cap - *o, " %s=", s->key);
    if (n < 0 || (size_t)n >= cap - *o) return 0;
    *o += (size_t)n;
    n = put_value(f, out + *o, cap - *o);
    if (n < 0 || (size_t)n >= cap - *o) return 0;
    *o += (size_t)n;
  }
  return 1;
}

int ml_format(const ml_frame *frame, char *out, size_t cap) {
  char line[ML_MAX_LINE * 4];
  size_t o = 0;
  int t, op = -1;
  for (t = 0; t < NTYPES; t++)
    if (strcmp(TYPES[t].name, frame->type) == 0) break;
  if (t == NTYPES) return -1;
  o = (size_t)snprintf(line, sizeof line, "%s", frame->type);
  if (strcmp(frame->type, "CMD") == 0 || strcmp(frame->type, "ACK") == 0) {
    const ml_field *f = ml_get(frame, "op");
    if (!f || (op = in_enum(OPS, f->s, f->slen)) < 0) return -1;
  }
  if (!put_fields(frame, TYPES[t].fields, line, sizeof line, &o)) return -1;
  if (op >= 0 && !put_fields(frame, frame->type[0] == 'C' ? CMD_OPS[op] : ACK_OPS[op], line, sizeof line, &o))
    return -1;
  if (o + 5 > ML_MAX_LINE || o + 6 > cap) return -1;
  memcpy(out, line, o);
  snprintf(out + o, cap - o, "*%04X", (unsigned)ml_crc16(line, o));
  return (int)(o + 5);
}
