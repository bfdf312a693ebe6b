// A Server-Sent Events client over a real socket (node:http), for tests of GET /sim/v1/events/stream:
// parses frames as they come, waits for a count of them, and can stop reading to play a slow client.

import { type ClientRequest, type IncomingMessage, request } from 'node:http';

export interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
  /** A `: comment` line, e.g. the heartbeat's `ping`. */
  comment?: string;
}

export interface SseClient {
  status: number;
  headers: IncomingMessage['headers'];
  /** Every frame so far, comments included. */
  frames: SseFrame[];
  /** The frames that carry an event, parsed. */
  events(): { seq: number; type: string; device_id?: string; data: Record<string, unknown> }[];
  /** Resolves once `pred(frames)` holds; rejects after `timeoutMs` naming what came. */
  until(pred: (frames: SseFrame[]) => boolean, timeoutMs?: number): Promise<void>;
  /** Resolves when the server ends or drops the stream. */
  ended: Promise<void>;
  /** The body as text, for a non-stream answer (an error envelope). */
  text(): string;
  close(): void;
  /** Starts reading, for a client opened with `paused`. */
  resume(): void;
}

/** `paused`: read nothing until resume(), as a slow client would. */
export function openSse(
  baseUrl: string,
  path: string,
  headers: Record<string, string> = {},
  opts: { paused?: boolean } = {},
): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const req: ClientRequest = request(`${baseUrl}${path}`, { headers }, (res) => {
      const frames: SseFrame[] = [];
      let buf = '';
      let raw = '';
      const waiters = new Set<() => void>();
      res.setEncoding('utf8');
      if (opts.paused) res.pause();
      res.on('data', (chunk: string) => {
        raw += raw.length < 100_000 ? chunk : '';
        buf += chunk;
        for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
          frames.push(parseFrame(buf.slice(0, i)));
          buf = buf.slice(i + 2);
        }
        for (const w of waiters) w();
      });
      const ended = new Promise<void>((r) => {
        res.once('close', r);
        res.once('error', () => r());
      });
      res.on('error', () => {});
      void ended.then(() => {
        for (const w of waiters) w();
      });
      let done = false;
      const parsed: ReturnType<SseClient['events']> = [];
      let parsedUpTo = 0;
      void ended.then(() => {
        done = true;
      });
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        frames,
        events: () => {
          // Parsed once per frame: tests poll this on every chunk.
          for (let i = parsedUpTo; i < frames.length; i++) {
            if (frames[i]!.data !== undefined) parsed.push(JSON.parse(frames[i]!.data!));
          }
          parsedUpTo = frames.length;
          return parsed;
        },
        until(pred, timeoutMs = 5_000) {
          return new Promise((ok, fail) => {
            const check = () => {
              if (pred(frames)) {
                clearTimeout(timer);
                waiters.delete(check);
                ok();
              } else if (done) {
                clearTimeout(timer);
                waiters.delete(check);
                fail(
                  new Error(`stream ended; got ${frames.length} frames: ${JSON.stringify(frames.slice(-5))}`),
                );
              }
            };
            const timer = setTimeout(() => {
              waiters.delete(check);
              fail(
                new Error(
                  `timed out; got ${frames.length} frames, the last: ${JSON.stringify(frames.slice(-5))}`,
                ),
              );
            }, timeoutMs);
            waiters.add(check);
            check();
          });
        },
        ended,
        text: () => raw,
        close: () => req.destroy(),
        resume: () => res.resume(),
      });
    });
    req.on('error', reject);
    req.end();
  });
}

function parseFrame(block: string): SseFrame {
  const f: SseFrame = {};
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) f.comment = line.slice(1).trim();
    else {
      const at = line.indexOf(':');
      const key = line.slice(0, at);
      const value = line.slice(at + 1).replace(/^ /, '');
      if (key === 'id' || key === 'event' || key === 'data') f[key] = value;
    }
  }
  return f;
}
