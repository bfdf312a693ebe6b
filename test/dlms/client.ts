// A small DLMS client for tests of the DLMS meter at its edges, built from our own codecs: HDLC
// (hdlc/client.ts's state machine over a real serial port) or the wrapper (a real TCP socket). One
// request at a time; GET block transfer followed to the end.

import { connect, type Socket } from 'node:net';
import { SerialPort } from 'serialport';
import { associationRequest } from '../../firmware-protocol/dlms/apdu/aarq.ts';
import { type Apdu, decodeApdu, encodeApdu } from '../../firmware-protocol/dlms/apdu/apdu.ts';
import { acceptBlock, startAssembly } from '../../firmware-protocol/dlms/apdu/blocks.ts';
import type { AccessSelection, GetDataResult } from '../../firmware-protocol/dlms/apdu/cosem.ts';
import { type Data, decodeData } from '../../firmware-protocol/dlms/apdu/data.ts';
import {
  type ClientConfig,
  type ClientEffect,
  type ClientState,
  clientStep,
  INITIAL_CLIENT,
} from '../../firmware-protocol/dlms/hdlc/client.ts';
import { encodeFrame, type HdlcAddress } from '../../firmware-protocol/dlms/hdlc/frame.ts';
import { FrameSplitter } from '../../firmware-protocol/dlms/hdlc/splitter.ts';
import { encodeWpdu } from '../../firmware-protocol/dlms/wrapper/codec.ts';
import { WpduSplitter } from '../../firmware-protocol/dlms/wrapper/splitter.ts';

const INVOKE = { id: 1, confirmed: true, highPriority: true };

interface Transport {
  send(apdu: Uint8Array): Promise<Uint8Array>;
  close(): Promise<void>;
}

/** HDLC over a serial port; the link is set up by `open` (SNRM/UA) and ended by `close` (DISC). */
export class HdlcTransport implements Transport {
  #port: SerialPort;
  #splitter = new FrameSplitter();
  #state: ClientState = INITIAL_CLIENT;
  readonly #config: ClientConfig;
  #waiting: ((e: ClientEffect) => boolean) | null = null;

  constructor(path: string, client: number, server: HdlcAddress) {
    this.#config = { client, server, propose: {}, maxMessageBytes: 1 << 20 };
    this.#port = new SerialPort({ path, baudRate: 9600, autoOpen: false });
    this.#port.on('data', (chunk: Buffer) => {
      for (const p of this.#splitter.push(chunk))
        if (p.kind === 'frame') this.#step({ kind: 'frame', frame: p.frame });
    });
  }

  /** Bytes straight onto the line (noise, broken frames). */
  raw(bytes: Uint8Array): Promise<void> {
    return new Promise((resolve) =>
      this.#port.write(Buffer.from(bytes), () => this.#port.drain(() => resolve())),
    );
  }

  async open(): Promise<void> {
    await new Promise<void>((resolve, reject) => this.#port.open((e) => (e ? reject(e) : resolve())));
    await this.#until({ kind: 'connect' }, (e) => e.kind === 'connected' || e.kind === 'disconnected');
    if (this.#state.mode !== 'NRM') throw new Error('HDLC: no UA');
  }

  async send(apdu: Uint8Array): Promise<Uint8Array> {
    let out: Uint8Array | null = null;
    await this.#until({ kind: 'request', apdu }, (e) => {
      if (e.kind === 'response') out = e.apdu;
      return e.kind === 'response' || e.kind === 'disconnected';
    });
    if (out === null) throw new Error('HDLC: link went down');
    return out;
  }

  async close(): Promise<void> {
    if (this.#state.mode === 'NRM')
      await this.#until({ kind: 'disconnect' }, (e) => e.kind === 'disconnected').catch(() => undefined);
    if (this.#port.isOpen) await new Promise<void>((r) => this.#port.close(() => r()));
  }

  /** Feeds `event`, retrying the last frame every second, until an effect satisfies `done` (8 s at most). */
  #until(event: Parameters<typeof clientStep>[2], done: (e: ClientEffect) => boolean): Promise<void> {
    return new Promise((resolve, reject) => {
      let tries = 0;
      const timer = setInterval(() => {
        if (++tries > 8) {
          clearInterval(timer);
          this.#waiting = null;
          reject(new Error(`HDLC: no answer to ${event.kind}`));
        } else this.#step({ kind: 'retry' });
      }, 1000);
      this.#waiting = (e) => {
        if (!done(e)) return false;
        clearInterval(timer);
        this.#waiting = null;
        resolve();
        return true;
      };
      this.#step(event);
    });
  }

  #step(event: Parameters<typeof clientStep>[2]): void {
    const r = clientStep(this.#config, this.#state, event);
    this.#state = r.state;
    for (const e of r.effects) {
      if (e.kind === 'send') this.#port.write(Buffer.from(encodeFrame(e.frame)));
      else this.#waiting?.(e);
    }
  }
}

/** The wrapper over one TCP connection: client wPort `client`, server wPort 1. */
export class TcpTransport implements Transport {
  readonly socket: Socket;
  #splitter = new WpduSplitter();
  #pending: ((apdu: Uint8Array) => void) | null = null;
  closed = false;

  private constructor(
    socket: Socket,
    readonly client: number,
  ) {
    this.socket = socket;
    socket.on('close', () => {
      this.closed = true;
    });
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      for (const p of this.#splitter.push(chunk)) if (p.kind === 'pdu') this.#pending?.(p.pdu.apdu);
    });
  }

  static open(port: number, client: number): Promise<TcpTransport> {
    return new Promise((resolve, reject) => {
      const s = connect(port, '127.0.0.1', () => resolve(new TcpTransport(s, client)));
      s.once('error', reject);
    });
  }

  send(apdu: Uint8Array): Promise<Uint8Array> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('TCP: no answer')), 5000);
      this.#pending = (a) => {
        clearTimeout(timer);
        this.#pending = null;
        resolve(a);
      };
      this.socket.write(encodeWpdu({ source: this.client, dest: 1, apdu }));
    });
  }

  async close(): Promise<void> {
    this.socket.destroy();
  }
}

/** Requests as APDUs; GET follows block transfer to the end and gives the Data or the refusal. */
export class DlmsTestClient {
  constructor(readonly t: Transport) {}

  async request(apdu: Apdu): Promise<Apdu> {
    const r = decodeApdu(await this.t.send(encodeApdu(apdu)));
    if (!r.ok) throw new Error(`undecodable response: ${r.error.message}`);
    return r.value;
  }

  /** The AARE's result: 0 accepted, else its diagnostic as a negative number. */
  async associate(password?: string, maxReceivePduSize = 1200): Promise<number> {
    const aare = await this.request(
      associationRequest(password === undefined ? { maxReceivePduSize } : { password, maxReceivePduSize }),
    );
    if (aare.type !== 'aare') throw new Error(`not an AARE: ${aare.type}`);
    return aare.result === 0 ? 0 : -aare.diagnostic.value;
  }

  async get(
    classId: number,
    instance: string,
    attributeId: number,
    access?: AccessSelection,
  ): Promise<GetDataResult> {
    const attribute = { classId, instance, attributeId };
    let r = await this.request({
      type: 'get-request-normal',
      invoke: INVOKE,
      attribute,
      ...(access ? { access } : {}),
    });
    if (r.type === 'get-response-normal') return r.result;
    let assembly = startAssembly();
    for (;;) {
      if (r.type !== 'get-response-with-datablock') throw new Error(`GET answered ${r.type}`);
      const step = acceptBlock(assembly, r.block);
      if (step.kind === 'refused') return { kind: 'error', result: step.result };
      if (step.kind === 'error') throw new Error(step.error.message);
      if (step.kind === 'done') {
        const d = decodeData(step.raw);
        if (!d.ok) throw new Error(d.error.message);
        return { kind: 'data', data: d.value };
      }
      assembly = step.state;
      r = await this.request({ type: 'get-request-next', invoke: INVOKE, blockNumber: step.ack });
    }
  }

  async data(
    classId: number,
    instance: string,
    attributeId: number,
    access?: AccessSelection,
  ): Promise<Data> {
    const r = await this.get(classId, instance, attributeId, access);
    if (r.kind !== 'data') throw new Error(`GET ${instance}/${attributeId} refused: ${r.result}`);
    return r.data;
  }

  /** An ACTION with an integer parameter; the action-result. */
  async action(classId: number, instance: string, methodId: number, parameters: Data): Promise<number> {
    const r = await this.request({
      type: 'action-request-normal',
      invoke: INVOKE,
      method: { classId, instance, methodId },
      parameters,
    });
    if (r.type !== 'action-response-normal') throw new Error(`ACTION answered ${r.type}`);
    return r.result;
  }

  async release(): Promise<void> {
    await this.request({ type: 'rlrq' });
  }
}
