// Frames over a SerialLink: parses what arrives, formats what is sent, and answers unusable lines the way
// PROTOCOL.md says [SP-6] (ERR, or NAK for a readable CMD; never an answer to an ERR). Both ends use it:
// the bridge, and the serial meter in simulator/serial-meter.ts. Nothing that arrives, and nothing a caller
// asks it to send, can make it throw [SP-6.1]: a handler that fails is logged and counted in `faults`.

import { type ProtocolError, parseLine, tryFormatFrame } from '../../firmware-protocol/serial/codec.ts';
import type { Frame, ProtocolErrorCode } from '../../firmware-protocol/serial/frames.ts';
import { MAX_LINE_BYTES } from '../../firmware-protocol/serial/frames.ts';
import { quotableText } from '../../firmware-protocol/serial/values.ts';
import { type Logger, SerialLink } from './link.ts';
import type { Recorder } from './recorder.ts';

/** Longest `msg` we put in an ERR or NAK, so the line always fits [SP-2.2] even fully escaped. */
/** [SP-2.8] The wire bytes an ERR or NAK `msg` of the bridge's own may take: its line always fits. */
const MAX_MSG_WIRE_BYTES = 600;

export interface LinePortOptions {
  serial: string;
  baud: number;
  log: Logger;
  recorder?: Recorder;
  onFrame: (frame: Frame) => void;
  onOpen: () => void;
  onClose: (reason: string) => void;
  /** Told about every unusable line, after it was answered. */
  onError?: (error: ProtocolError) => void;
  /** Every line written. */
  onSent?: (line: string) => void;
}

export class LinePort {
  readonly link: SerialLink;
  /** Handlers that threw and frames that could not be written: each one a bug, logged as an error. */
  faults = 0;
  readonly #opts: LinePortOptions;

  constructor(opts: LinePortOptions) {
    this.#opts = opts;
    this.link = new SerialLink({
      path: opts.serial,
      baud: opts.baud,
      log: opts.log,
      onLine: (line) => this.receive(line),
      onOversize: (bytes) => this.#receiveOversize(bytes),
      onOpen: () => this.#guard('the port opening', opts.onOpen),
      onClose: (reason) => this.#guard('the port closing', () => opts.onClose(reason)),
    });
  }

  /** One line as received (without `\n`). Public so tests and benches can feed lines directly. */
  receive(line: string): void {
    const result = parseLine(line);
    if (result.ok === 'empty') return; // [SP-2.3]
    this.#opts.log('debug', `serial < ${shown(line)}`);
    if (result.ok) {
      this.#opts.recorder?.write({ dir: 'rx', line, frame: result.frame });
      try {
        this.#opts.onFrame(result.frame);
      } catch (err) {
        this.#fault(`handling a ${result.frame.type} line failed: ${(err as Error).stack ?? err}`);
      }
      return;
    }
    const { error } = result;
    this.#opts.recorder?.write({ dir: 'rx', line, error });
    this.#answer(error, line.startsWith('ERR'));
  }

  /**
   * Formats and writes a frame; false when the port is closed (the line is lost, as on a real wire) or the
   * frame cannot be a line (a fault: callers check input from outside first, e.g. commandLineProblem).
   */
  send(frame: Frame): boolean {
    const formatted = tryFormatFrame(frame);
    if (!formatted.ok) {
      this.#fault(`cannot send ${frame.type}: ${formatted.message}`);
      return false;
    }
    const { line } = formatted;
    this.#opts.recorder?.write({ dir: 'tx', line, frame });
    const sent = this.link.write(line);
    this.#opts.log('debug', `serial > ${shown(line)}${sent ? '' : ' (not sent: the port is closed)'}`);
    if (sent) this.#opts.onSent?.(line);
    return sent;
  }

  /** [SP-6.3] Answers with an ERR line. */
  refuse(code: ProtocolErrorCode, rule: string, message: string): void {
    this.#answer({ code, rule, message }, false);
  }

  #receiveOversize(bytes: number): void {
    const error: ProtocolError = {
      code: 'too_long',
      rule: 'SP-2.2',
      message: `line of ${bytes} bytes; at most ${MAX_LINE_BYTES}`,
    };
    this.#opts.recorder?.write({ dir: 'rx', line: null, bytes, error });
    this.#answer(error, false);
  }

  #answer(error: ProtocolError, isErr: boolean): void {
    const msg = quotableText(`[${error.rule}] ${error.message}`, MAX_MSG_WIRE_BYTES);
    if (isErr) {
      this.#opts.log('warn', `unusable ERR line not answered [SP-6.4]: ${msg}`);
    } else if (error.type === 'CMD' && error.seq !== undefined && error.id !== undefined) {
      // [SP-6.3] as MC-9.1: the command is answered, not the line.
      const code = error.message.startsWith('op: unknown') ? 'unsupported' : 'bad_request';
      this.send({ type: 'NAK', seq: error.seq, id: error.id, code, msg });
    } else {
      this.send({ type: 'ERR', code: error.code, msg });
    }
    try {
      this.#opts.onError?.(error);
    } catch (err) {
      this.#fault(`handling an unusable line failed: ${(err as Error).stack ?? err}`);
    }
  }

  #guard(what: string, handler: () => void): void {
    try {
      handler();
    } catch (err) {
      this.#fault(`handling ${what} failed: ${(err as Error).stack ?? err}`);
    }
  }

  #fault(message: string): void {
    this.faults++;
    this.#opts.log('error', `serial ${this.#opts.serial}: ${message}`);
  }
}

/** A line for a debug log: a WiFi password (set_wifi's, get_wifi's answer, SP-4.10) never shows. */
function shown(line: string): string {
  return line.replace(/(\bpassword=)\S*?(?=\s|\*[0-9A-F]{4}$|$)/g, '$1***');
}
