// The DLMS meter's wrapper side over TCP (IEC 62056-47): each connection is one client with its own
// association [WR-1.1]; WPDUs cut from the stream (WpduSplitter) carry whole APDUs to the meter's
// application server and the responses back with the wPorts swapped. Connections are bounded in number
// and closed after an idle spell; a stream out of step is closed [WR-3.3]. Never throws on input.

import { createServer, type Server, type Socket } from 'node:net';
import { NEW_SESSION, type Session } from '../firmware-protocol/dlms/server/server.ts';
import { encodeWpdu, MAX_WPDU_APDU } from '../firmware-protocol/dlms/wrapper/codec.ts';
import { WpduSplitter } from '../firmware-protocol/dlms/wrapper/splitter.ts';
import type { Logger } from '../src/serial/link.ts';
import type { DlmsMeter } from './dlms-meter.ts';

export interface WrapperMeterOptions {
  meter: DlmsMeter;
  port: number;
  host?: string;
  log: Logger;
  /** [AS-9.2] Connections served at once; more are closed as they come. */
  maxConnections?: number;
  /** [AS-9.3] A connection with no WPDU for this long is closed (ms). */
  idleMs?: number;
}

export const DEFAULT_MAX_CONNECTIONS = 16;
export const DEFAULT_IDLE_MS = 120_000;

export interface WrapperCounters {
  connections: number;
  refusedConnections: number;
  /** [WR-2.3] WPDUs for a wPort this meter does not have, dropped unanswered. */
  otherWport: number;
  /** [WR-3.3] Streams closed out of step. */
  fatal: number;
}

export class WrapperMeterServer {
  readonly #o: WrapperMeterOptions;
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  readonly counters: WrapperCounters = { connections: 0, refusedConnections: 0, otherWport: 0, fatal: 0 };

  constructor(o: WrapperMeterOptions) {
    if (!Number.isInteger(o.port) || o.port < 0 || o.port > 65_535)
      throw new TypeError(`WrapperMeterServer: port ${o.port}`);
    this.#o = o;
    this.#server = createServer((socket) => this.#accept(socket));
    this.#server.on('error', (err) => o.log('error', `dlms tcp: ${err.message}`));
  }

  /** Listens; resolves with the port (useful with port 0). */
  listen(): Promise<number> {
    return new Promise((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(this.#o.port, this.#o.host ?? '0.0.0.0', () => {
        this.#server.off('error', reject);
        const a = this.#server.address();
        const port = typeof a === 'object' && a !== null ? a.port : this.#o.port;
        this.#o.log('info', `dlms tcp: listening on port ${port} (wrapper, IEC 62056-47)`);
        resolve(port);
      });
    });
  }

  async close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #accept(socket: Socket): void {
    const { log, meter } = this.#o;
    const peer = `${socket.remoteAddress}:${socket.remotePort}`;
    if (this.#sockets.size >= (this.#o.maxConnections ?? DEFAULT_MAX_CONNECTIONS)) {
      this.counters.refusedConnections++;
      log('warn', `dlms tcp: ${peer} refused: ${this.#sockets.size} connections already`);
      socket.destroy();
      return;
    }
    this.counters.connections++;
    this.#sockets.add(socket);
    // [AS-9.1] The splitter takes up to 65,535 bytes so an APDU over the server's size gets pdu-too-long.
    const splitter = new WpduSplitter(MAX_WPDU_APDU);
    let session: Session = NEW_SESSION; // [WR-1.1] one association per connection
    socket.setNoDelay(true);
    socket.setTimeout(this.#o.idleMs ?? DEFAULT_IDLE_MS, () => {
      log('info', `dlms tcp: ${peer} idle; closing`);
      socket.destroy();
    });
    socket.on('error', (err) => log('debug', `dlms tcp: ${peer}: ${err.message}`));
    socket.on('close', () => this.#sockets.delete(socket));
    socket.on('data', (chunk: Buffer) => {
      for (const piece of splitter.push(chunk)) {
        if (piece.kind === 'fatal') {
          this.counters.fatal++;
          log(
            'warn',
            `dlms tcp: ${peer}: ${piece.error.code} [${piece.error.rule}] ${piece.error.message}; closing`,
          );
          socket.destroy();
          return;
        }
        const { pdu } = piece;
        if (pdu.dest !== meter.config.serverSap) {
          this.counters.otherWport++;
          log('debug', `dlms tcp: ${peer}: WPDU for wPort ${pdu.dest} dropped [WR-2.3]`);
          continue;
        }
        const h = meter.handle(session, pdu.source, pdu.apdu);
        session = h.session;
        socket.write(encodeWpdu({ source: pdu.dest, dest: pdu.source, apdu: h.apdu }));
      }
    });
  }
}
