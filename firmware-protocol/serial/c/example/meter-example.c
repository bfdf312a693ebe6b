/*
 * meter-example: a complete meter firmware main loop on top of meterline.c, speaking the meterstack serial
 * line protocol (../../PROTOCOL.md, rules SP-x.y). It simulates a constant load on a single-phase meter.
 *
 *   meter-example <tty> <device_id> [load_watts] [telemetry_period_ms] [keepalive_s]
 *
 * The first section is the only part tied to a PC (POSIX termios, clock_gettime): on a microcontroller
 * replace uart_open/uart_read/uart_write/mono_ms with the UART driver and a millisecond tick. The rest is
 * what firmware needs: a receive buffer and line assembly [SP-2], keep-alive [SP-5.3], IDENT [SP-4.2],
 * samples held until a PONG confirms them [SP-5.6], the bridge's clock for a meter without one [SP-5.9],
 * a duplicate-command table [MC-8.8] and one reply per CMD [SP-5.5].
 *
 * Build: gcc -std=c99 -Wall -Wextra -Werror -pedantic -I.. meter-example.c ../meterline.c -lm
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* B115200, CRTSCTS on glibc */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "meterline.h"

/* ---- the platform: a UART and a millisecond clock ---- */

static int uart = -1;

static int uart_open(const char *path) {
  struct termios t;
  int fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) return -1;
  if (tcgetattr(fd, &t) == 0) { /* [SP-1.1] 115200 8N1, raw, no flow control */
    t.c_iflag &= ~(tcflag_t)(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON | IXOFF);
    t.c_oflag &= ~(tcflag_t)OPOST;
    t.c_lflag &= ~(tcflag_t)(ECHO | ECHONL | ICANON | ISIG | IEXTEN);
    t.c_cflag &= ~(tcflag_t)(CSIZE | PARENB | CSTOPB | CRTSCTS);
    t.c_cflag |= CS8 | CLOCAL | CREAD;
    cfsetispeed(&t, B115200);
    cfsetospeed(&t, B115200);
    tcsetattr(fd, TCSANOW, &t);
  }
  return fd;
}

static long uart_read(char *buf, size_t cap) {
  long n = (long)read(uart, buf, cap);
  return n < 0 && (errno == EAGAIN || errno == EINTR) ? 0 : n;
}

static void uart_write(const char *data, size_t n) {
  while (n > 0) {
    long w = (long)write(uart, data, n);
    if (w < 0) {
      if (errno != EAGAIN && errno != EINTR) return;
      usleep(1000);
      continue;
    }
    data += w;
    n -= (size_t)w;
  }
}

static int64_t mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- the meter ---- */

#define HELD_MAX 512   /* [SP-5.6] samples held until a PONG confirms them */
#define DUP_IDS 64     /* [MC-8.8] newest command ids remembered */
#define DUP_TXNS 256   /* [MC-8.8] newest recharge transaction ids remembered */
#define PARTIAL_MS 2000 /* [SP-2.9] */

typedef struct {
  int64_t ts;
  double energy, power;
  int64_t balance;
} sample;

typedef struct {
  char id[65];
  int op;              /* index into OPS */
  int nak;             /* answered NAK */
  const char *nak_code;
  int applied;         /* recharge */
  int64_t balance;     /* recharge */
} done_cmd;

static const char *const OPS[] = {"set_relay", "set_mode",    "set_tariff", "set_active_tariff", "set_gateway",
                                  "set_wifi",  "get_wifi",    "recharge",   "read"};
enum { OP_RELAY, OP_MODE, OP_TARIFF, OP_ACTIVE, OP_GATEWAY, OP_SET_WIFI, OP_GET_WIFI, OP_RECHARGE, OP_READ };

static struct {
  char device_id[65];
  double load_w, energy_kwh;
  int64_t period_ms, keepalive_s, balance, eb_tariff, dg_tariff, active_tariff;
  char mode[16];
  int relay_commanded, pg_enabled;
  char ssid[129], password[257];
  /* [SP-5.9] the time: epoch ms = mono + clock_offset, once known */
  int have_time;
  int64_t clock_offset;
  /* [SP-5.6] held samples; the first `written` are on the wire; `mark` of them are confirmed by the
   * PONG to the oldest unanswered PING (-1: no PING outstanding) */
  sample held[HELD_MAX];
  int nheld, written, mark;
  int present; /* [SP-5.8] the bridge answers */
  int reported_relay; /* relay_state in the last STATE [MC-5.1] */
  int64_t last_heard, next_ping, next_sample;
  done_cmd done[DUP_IDS];
  int ndone;
  char txns[DUP_TXNS][65];
  int ntxns;
} m;

static volatile sig_atomic_t stopping = 0;
static void on_signal(int sig) {
  (void)sig;
  stopping = 1;
}

static int64_t now_ms(void) { return mono_ms() + m.clock_offset; }

static int relay_state(void) {
  if (strcmp(m.mode, "relay_off") == 0) return 0;
  if (strcmp(m.mode, "prepaid") == 0 && m.balance < 0) return 0;
  return m.relay_commanded;
}

/* ---- frames out ---- */

static ml_frame out;

static void begin(const char *type) {
  memset(&out, 0, sizeof out);
  strcpy(out.type, type);
}
static ml_field *add(const char *key, ml_kind kind) {
  ml_field *f = &out.fields[out.nfields++];
  f->key = key;
  f->kind = kind;
  return f;
}
static void add_int(const char *key, int64_t v) { add(key, ML_INT)->i = v; }
static void add_bool(const char *key, int v) { add(key, ML_BOOL)->i = v ? 1 : 0; }
static void add_num(const char *key, double v) { add(key, ML_NUM)->d = v; }
static void add_text(const char *key, ml_kind kind, const char *s) {
  ml_field *f = add(key, kind);
  f->s = s;
  f->slen = strlen(s);
}

/* Formats and writes `out`; a frame that cannot be a line is not sent [SP-2.8]. */
static int send_frame(void) {
  char line[ML_MAX_LINE + 2];
  int n = ml_format(&out, line, sizeof line - 1);
  if (n < 0) {
    fprintf(stderr, "meter: cannot format %s\n", out.type);
    return 0;
  }
  line[n] = '\n';
  uart_write(line, (size_t)n + 1);
  return 1;
}

static void send_err(const char *code, const char *msg) {
  begin("ERR");
  add_text("code", ML_ENUM, code);
  add_text("msg", ML_STR, msg);
  send_frame();
}

static void add_state(const char *p) {
  static char keys[10][24];
  static const char *const names[] = {"ts",        "mode",          "relay_commanded", "relay_state", "eb_tariff",
                                      "dg_tariff", "active_tariff", "balance",         "pg_enabled",  "wifi_type"};
  for (int k = 0; k < 10; k++) snprintf(keys[k], sizeof keys[k], "%s%s", p, names[k]);
  add_int(keys[0], now_ms());
  add_text(keys[1], ML_ENUM, m.mode);
  add_bool(keys[2], m.relay_commanded);
  add_bool(keys[3], relay_state());
  add_int(keys[4], m.eb_tariff);
  add_int(keys[5], m.dg_tariff);
  add_int(keys[6], m.active_tariff);
  add_int(keys[7], m.balance);
  add_bool(keys[8], m.pg_enabled);
  add_text(keys[9], ML_ENUM, "Primary");
}

static void add_sample(const char *p, const sample *s) {
  static char keys[5][24];
  static const char *const names[] = {"ts", "energy", "active_power", "voltage", "balance"};
  for (int k = 0; k < 5; k++) snprintf(keys[k], sizeof keys[k], "%s%s", p, names[k]);
  add_int(keys[0], s->ts);
  add_num(keys[1], s->energy);
  add_num(keys[2], s->power);
  add_num(keys[3], 230);
  add_int(keys[4], s->balance);
}

static void send_state(void) {
  if (!m.have_time) return; /* [SP-5.9] */
  m.reported_relay = relay_state();
  begin("STATE");
  add_state("");
  send_frame();
}

/* [SP-5.6] Writes the held samples not yet on the wire, oldest first, while the bridge answers. */
static void write_held(void) {
  if (!m.present || !m.have_time) return;
  while (m.written < m.nheld) {
    begin("TEL");
    add_sample("", &m.held[m.written]);
    if (!send_frame()) break;
    m.written++;
  }
}

/* [SP-5.1, SP-4.2] HELLO, STATE, then every held sample. */
static void identify(void) {
  begin("HELLO");
  add_int("proto", ML_PROTOCOL_VERSION);
  add_text("device_id", ML_STR, m.device_id);
  add_text("model", ML_ENUM, "basic");
  add_text("firmware", ML_STR, "example-1.0");
  add_bool("has_relay", 1);
  add_num("telemetry_period_s", (double)m.period_ms / 1000.0);
  add_int("keepalive_s", m.keepalive_s);
  add_text("properties", ML_PROPS, "energy;cumulative;kWh,active_power;instantaneous;W,voltage;instantaneous;V");
  send_frame();
  if (!m.have_time) return; /* STATE and TEL wait for the time [SP-5.9] */
  send_state();
  m.present = 1;
  m.mark = -1; /* a PONG to a PING sent before these lines confirms none of them */
  m.written = 0;
  write_held();
}

/* ---- commands [SP-4.5] with the duplicate table [MC-8.8] ---- */

static done_cmd *find_done(const char *id) {
  for (int k = 0; k < m.ndone; k++)
    if (strcmp(m.done[k].id, id) == 0) return &m.done[k];
  return NULL;
}

static done_cmd *remember(const char *id, int op) {
  if (m.ndone == DUP_IDS) memmove(&m.done[0], &m.done[1], sizeof m.done[0] * (DUP_IDS - 1)), m.ndone--;
  done_cmd *d = &m.done[m.ndone++];
  memset(d, 0, sizeof *d);
  snprintf(d->id, sizeof d->id, "%s", id);
  d->op = op;
  return d;
}

static int txn_seen(const char *txn) {
  for (int k = 0; k < m.ntxns; k++)
    if (strcmp(m.txns[k], txn) == 0) return 1;
  if (m.ntxns == DUP_TXNS) memmove(m.txns[0], m.txns[1], sizeof m.txns[0] * (DUP_TXNS - 1)), m.ntxns--;
  snprintf(m.txns[m.ntxns++], sizeof m.txns[0], "%s", txn);
  return 0;
}

/* Applies a new command; returns 0 on success or the NAK code. State changes are reported [MC-5.1]. */
static const char *apply(const ml_frame *c, int op, done_cmd *d) {
  const ml_field *f;
  switch (op) {
    case OP_RELAY:
      m.relay_commanded = (int)ml_get(c, "on")->i;
      break;
    case OP_MODE:
      f = ml_get(c, "mode");
      snprintf(m.mode, sizeof m.mode, "%.*s", (int)f->slen, f->s);
      break;
    case OP_TARIFF:
      f = ml_get(c, "paise");
      if (f->i < 0 || f->i > 100000) return "invalid_argument";
      if (ml_get(c, "slot")->s[0] == 'e') m.eb_tariff = f->i;
      else m.dg_tariff = f->i;
      break;
    case OP_ACTIVE:
      f = ml_get(c, "tariff");
      if (f->i != 1 && f->i != 2) return "invalid_argument";
      m.active_tariff = f->i;
      break;
    case OP_GATEWAY:
      m.pg_enabled = (int)ml_get(c, "enabled")->i;
      break;
    case OP_SET_WIFI:
      snprintf(m.ssid, sizeof m.ssid, "%s", ml_get(c, "ssid")->s);
      snprintf(m.password, sizeof m.password, "%s", ml_get(c, "password")->s);
      return NULL; /* no state change */
    case OP_RECHARGE:
      f = ml_get(c, "amount");
      if (f->i <= 0) return "invalid_argument";
      d->applied = !txn_seen(ml_get(c, "transaction_id")->s);
      if (d->applied) m.balance += f->i;
      d->balance = m.balance;
      if (!d->applied) return NULL;
      break;
    default:
      return NULL; /* get_wifi, read: nothing changes */
  }
  send_state();
  return NULL;
}

/* One ACK or NAK per CMD, with the CMD's own seq [SP-5.5, SP-5.10]. */
static void answer(int64_t seq, const done_cmd *d) {
  sample now = {now_ms(), m.energy_kwh, relay_state() ? m.load_w : 0, m.balance};
  begin(d->nak ? "NAK" : "ACK");
  add_int("seq", seq);
  add_text("id", ML_STR, d->id);
  if (d->nak) {
    add_text("code", ML_ENUM, d->nak_code);
    add_text("msg", ML_STR, "refused by the example meter");
    send_frame();
    return;
  }
  add_text("op", ML_ENUM, OPS[d->op]);
  if (d->op == OP_RECHARGE) {
    add_bool("applied", d->applied);
    add_int("balance", d->balance);
  } else if (d->op == OP_GET_WIFI) {
    add_text("ssid", ML_STR, m.ssid);
    add_text("password", ML_STR, m.password);
    add_int("rssi", -48);
    add_text("type", ML_ENUM, "Primary");
  } else if (d->op == OP_READ) {
    add_sample("r.", &now);
    add_state("s.");
  }
  send_frame();
}

static void on_cmd(const ml_frame *c) {
  const ml_field *opf = ml_get(c, "op");
  int op = 0;
  while (op < 9 && !(strlen(OPS[op]) == opf->slen && memcmp(OPS[op], opf->s, opf->slen) == 0)) op++;
  done_cmd *d = find_done(c->id);
  if (!d) { /* [MC-8.8] a repeated id is answered again, not applied again */
    d = remember(c->id, op);
    const char *code = apply(c, op, d);
    if (code) d->nak = 1, d->nak_code = code;
  }
  answer(c->seq, d);
}

/* ---- lines in [SP-2, SP-6] ---- */

static void set_time(const ml_frame *f) { /* [SP-5.9] */
  const ml_field *ts = ml_get(f, "ts");
  if (!ts) return;
  int first = !m.have_time;
  m.clock_offset = ts->i - mono_ms();
  m.have_time = 1;
  if (first) m.next_sample = mono_ms() + m.period_ms;
}

static void on_line(const char *line, size_t len) {
  static ml_frame in;
  char msg[96];
  ml_status st = ml_parse(line, len, &in);
  if (st == ML_EMPTY) return;                         /* [SP-2.3] */
  m.last_heard = mono_ms();
  if (st != ML_OK) {
    if (len >= 3 && memcmp(line, "ERR", 3) == 0) return; /* [SP-6.4] */
    if (in.has_seq_id) { /* [SP-6.3] a readable CMD is answered NAK */
      done_cmd d;
      memset(&d, 0, sizeof d);
      snprintf(d.id, sizeof d.id, "%s", in.id);
      d.nak = 1;
      d.nak_code = (st == ML_BAD_VALUE && in.nfields == 0) ? "unsupported" : "bad_request";
      answer(in.seq, &d);
      return;
    }
    snprintf(msg, sizeof msg, "[SP-6.2] %s", ml_status_name(st));
    send_err(ml_status_name(st), msg);
    return;
  }
  if (strcmp(in.type, "IDENT") == 0) {
    set_time(&in);
    identify();
  } else if (strcmp(in.type, "PONG") == 0) { /* [SP-5.6] confirms what was written before the PING */
    set_time(&in);
    if (m.mark > 0) {
      memmove(&m.held[0], &m.held[m.mark], sizeof m.held[0] * (size_t)(m.nheld - m.mark));
      m.nheld -= m.mark;
      m.written -= m.mark;
    }
    m.mark = -1;
    m.present = 1;
  } else if (strcmp(in.type, "CMD") == 0) {
    on_cmd(&in);
  } else if (strcmp(in.type, "ERR") == 0) { /* [SP-6.7] log, never answer, never resend */
    const ml_field *c = ml_get(&in, "code"), *t = ml_get(&in, "msg");
    fprintf(stderr, "meter: bridge refused a line: %.*s %.*s\n", (int)c->slen, c->s, (int)t->slen, t->s);
  } else {
    snprintf(msg, sizeof msg, "[SP-1.3] %s goes meter to bridge", in.type);
    send_err("rejected", msg);
  }
}

/* ---- time passing: keep-alive [SP-5.3, SP-5.8] and telemetry ---- */

static void tick(void) {
  int64_t t = mono_ms();
  if (t >= m.next_ping) {
    m.next_ping = t + m.keepalive_s * 1000;
    if (t - m.last_heard > 3 * m.keepalive_s * 1000) m.present = 0; /* [SP-5.8] the bridge is gone */
    begin("PING");
    send_frame();
    if (m.mark < 0) m.mark = m.written;
  }
  if (m.have_time && t >= m.next_sample) {
    double hours = (double)m.period_ms / 3600000.0;
    double power = relay_state() ? m.load_w : 0;
    double kwh = power / 1000.0 * hours;
    m.energy_kwh += kwh;
    if (strcmp(m.mode, "prepaid") == 0 || strcmp(m.mode, "postpaid") == 0) {
      int64_t tariff = m.active_tariff == 1 ? m.eb_tariff : m.dg_tariff;
      m.balance -= (int64_t)(kwh * (double)tariff + 0.5);
    }
    m.next_sample += m.period_ms;
    if (m.nheld == HELD_MAX) { /* drop the oldest [SP-5.6] */
      memmove(&m.held[0], &m.held[1], sizeof m.held[0] * (HELD_MAX - 1));
      m.nheld--;
      if (m.written > 0) m.written--;
      if (m.mark > 0) m.mark--;
    }
    sample s = {now_ms(), m.energy_kwh, power, m.balance};
    m.held[m.nheld++] = s;
    write_held();
    if (relay_state() != m.reported_relay) send_state(); /* prepaid balance below zero [MC-5.3] */
  }
}

int main(int argc, char **argv) {
  static char rx[ML_MAX_LINE + 2]; /* one line being assembled [SP-2.2] */
  size_t rxlen = 0, dropping = 0;
  int64_t last_byte = 0;
  if (argc < 3) {
    fprintf(stderr, "usage: %s <tty> <device_id> [load_watts] [telemetry_period_ms] [keepalive_s]\n", argv[0]);
    return 2;
  }
  snprintf(m.device_id, sizeof m.device_id, "%s", argv[2]);
  m.load_w = argc > 3 ? atof(argv[3]) : 1000;
  m.period_ms = argc > 4 ? atol(argv[4]) : 1000;
  m.keepalive_s = argc > 5 ? atol(argv[5]) : 5;
  m.balance = 500000;
  m.eb_tariff = 800;
  m.dg_tariff = 2000;
  m.active_tariff = 1;
  m.relay_commanded = 1;
  strcpy(m.mode, "prepaid");
  strcpy(m.ssid, "example");
  m.mark = -1;
  m.present = 1;
  /* This example has a clock; set METER_NO_RTC=1 to behave like a meter without one [SP-5.9]. */
  if (!getenv("METER_NO_RTC")) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    m.clock_offset = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 - mono_ms();
    m.have_time = 1;
  }
  signal(SIGINT, on_signal);
  signal(SIGTERM, on_signal);
  if ((uart = uart_open(argv[1])) < 0) {
    perror(argv[1]);
    return 1;
  }
  m.last_heard = mono_ms();
  m.next_ping = mono_ms() + m.keepalive_s * 1000;
  m.next_sample = mono_ms() + m.period_ms;
  identify(); /* [SP-5.1] on start */
  while (!stopping) {
    char buf[256];
    fd_set fds;
    struct timeval tv = {0, 20000};
    FD_ZERO(&fds);
    FD_SET(uart, &fds);
    if (select(uart + 1, &fds, NULL, NULL, &tv) > 0) {
      long n = uart_read(buf, sizeof buf);
      if (n < 0) break; /* the port is gone */
      for (long k = 0; k < n; k++) {
        char ch = buf[k];
        if (ch != '\n') { /* assemble; keep at most ML_MAX_LINE + 1 bytes (a CR) [SP-2.2] */
          if (rxlen < ML_MAX_LINE + 1 && !dropping) rx[rxlen++] = ch;
          else dropping = dropping ? dropping + 1 : rxlen + 1;
          continue;
        }
        if (dropping) {
          send_err("too_long", "[SP-2.2] line over 1024 bytes");
        } else {
          on_line(rx, rxlen);
        }
        rxlen = dropping = 0;
      }
      if (n > 0) last_byte = mono_ms();
    }
    if ((rxlen || dropping) && mono_ms() - last_byte > PARTIAL_MS) rxlen = dropping = 0; /* [SP-2.9] */
    tick();
  }
  begin("BYE"); /* [SP-4.12] */
  send_frame();
  tcdrain(uart);
  close(uart);
  return 0;
}
