// [CL-10.2] DLMS over TCP with the wrapper (IEC 62056-47): a socket, WpduSplitter, one APDU per WPDU from
// the client's wPort to the meter's logical device. A fatal splitter error closes the socket (WR-3.3):
// nothing marks where the next WPDU would start.

import { connect, type Socket } from 'node:net';
import { encodeWpdu } from '../../../firmware-protocol/dlms/wrapper/codec.ts';
import { WpduSplitter } from '../../../firmware-protocol/dlms/wrapper/splitter.ts';
import type { ApduTransport, TransportEvents } from './transport.ts';

export interface WrapperTcpOptions {
  host: string;
  port: number;
  client: number;
  /** The meter's wPort: its logical device address (1, the management device). */
  server: number;
  connectTimeoutMs?: number;
}

export class WrapperTcpTransport implements ApduTransport {
  readonly where: string;
  readonly retries = 0;
  readonly #opts: WrapperTcpOptions;
  #socket: Socket | null = null;
  #closed = false;

  constructor(opts: WrapperTcpOptions) {
    this.#opts = opts;
    this.where = `${opts.host}:${opts.port}`;
  }

  open(events: TransportEvents): Promise<void> {
    const { host, port, client, server } = this.#opts;
    const splitter = new WpduSplitter();
    return new Promise((resolve, reject) => {
      let opened = false;
      const socket = connect({ host, port });
      this.#socket = socket;
      socket.setNoDelay(true);
      socket.setTimeout(this.#opts.connectTimeoutMs ?? 5_000, () =>
        socket.destroy(new Error('connect timed out')),
      );
      socket.once('connect', () => {
        socket.setTimeout(0);
        opened = true;
        resolve();
      });
      socket.on('data', (chunk) => {
        for (const piece of splitter.push(chunk)) {
          if (piece.kind === 'fatal') {
            events.onBad(piece.error.rule, `wrapper: ${piece.error.message}; closing`);
            socket.destroy();
            return;
          }
          const { pdu } = piece;
          if (pdu.source !== server || pdu.dest !== client) {
            events.onBad(
              'WR-2.3',
              `WPDU from wPort ${pdu.source} to ${pdu.dest}, not ${server} to ${client}`,
            );
            continue;
          }
          events.onApdu(pdu.apdu);
        }
      });
      socket.on('error', (err) => {
        if (!opened) reject(err); // after that, the close below says it
      });
      socket.once('close', () => {
        if (this.#closed) return;
        this.#closed = true;
        events.onClosed('connection closed');
      });
    });
  }

  send(apdu: Uint8Array): void {
    this.#socket?.write(encodeWpdu({ source: this.#opts.client, dest: this.#opts.server, apdu }));
  }

  repeat(): void {}

  async close(): Promise<void> {
    this.#closed = true;
    const s = this.#socket;
    if (!s || s.destroyed) return;
    await new Promise<void>((r) => {
      s.once('close', () => r());
      s.end();
      setTimeout(() => s.destroy(), 500).unref();
    });
  }
}
