/*
 * meterline: reference encoder/decoder of the meterstack serial line protocol, version 1
 * (firmware-protocol/serial/PROTOCOL.md, rules SP-x.y). C99, no dependencies beyond libc, no heap.
 * Drop meterline.h/.c into firmware; golden vectors in ../golden/ check it (see run-tests.c).
 */
#ifndef METERLINE_H
#define METERLINE_H

#include <stddef.h>
#include <stdint.h>

#define ML_PROTOCOL_VERSION 1
#define ML_MAX_LINE 1024 /* [SP-2.2] bytes, without the terminator */
#define ML_MAX_FIELDS 48 /* more than the largest frame (ACK read: 22) */

typedef enum { ML_INT, ML_NUM, ML_BOOL, ML_STR, ML_ENUM, ML_PROPS } ml_kind;

/* One field of a frame. `s` is the decoded text for ML_STR (UTF-8, may hold no NUL) and the wire text
 * for ML_ENUM and ML_PROPS; `i` holds ML_INT and ML_BOOL (0/1), `d` holds ML_NUM. */
typedef struct {
  const char *key;
  ml_kind kind;
  int64_t i;
  double d;
  const char *s;
  size_t slen;
} ml_field;

typedef struct {
  char type[17];
  int nfields;
  ml_field fields[ML_MAX_FIELDS];
  /* A CMD whose seq and id could be read, even if the line failed later: answer NAK, not ERR [SP-6.3]. */
  int has_seq_id;
  int64_t seq;
  char id[65];
  /* Storage for decoded strings; `s` pointers point here. */
  char buf[ML_MAX_LINE + 1];
} ml_frame;

/* Error codes [SP-6.2]; ML_OK is 0, ML_EMPTY means an empty line [SP-2.3]. */
typedef enum {
  ML_OK = 0,
  ML_EMPTY,
  ML_TOO_LONG,
  ML_BAD_CHAR,
  ML_NO_CHECKSUM,
  ML_BAD_CHECKSUM,
  ML_SYNTAX,
  ML_UNKNOWN_TYPE,
  ML_DUPLICATE_FIELD,
  ML_MISSING_FIELD,
  ML_BAD_VALUE,
  ML_BAD_VERSION
} ml_status;

/* The wire name of a status: "too_long", ...; "ok" and "empty" for the others. */
const char *ml_status_name(ml_status status);

/* [SP-2.5] CRC-16/CCITT-FALSE of n bytes. */
uint16_t ml_crc16(const char *data, size_t n);

/* Parses one line (without its LF; a trailing CR is dropped). Unknown keys are skipped [SP-2.7]. */
ml_status ml_parse(const char *line, size_t len, ml_frame *out);

/* The field `key` of a parsed or built frame, or NULL. */
const ml_field *ml_get(const ml_frame *frame, const char *key);

/* Writes the line of `frame` (type + fields, in the protocol's field order) with its checksum and a
 * NUL, without a LF. Returns its length, or -1 when a required field is missing or out of range (keepalive_s,
 * SP-4.1), or the line does not fit [SP-2.2, SP-2.8]. */
int ml_format(const ml_frame *frame, char *out, size_t cap);

#endif
