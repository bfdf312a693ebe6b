// What the DLMS bridge needs below its session: a way to move whole APDUs to one meter and back, over
// HDLC on a serial line (hdlc-serial.ts) or the wrapper over TCP (wrapper-tcp.ts). Each transport is
// opened afresh for each association; once closed it says so once and is not reused.

export interface TransportEvents {
  /** A whole response APDU from the meter. */
  onApdu: (apdu: Uint8Array) => void;
  /** The transport is gone (port closed, socket ended, DM or FRMR, a fatal stream error). */
  onClosed: (reason: string) => void;
  /** [CL-7.1] A frame or PDU dropped: for a counter and a log line, never a stop. */
  onBad: (rule: string, reason: string) => void;
}

export interface ApduTransport {
  /** Resolves once APDUs can flow (HDLC: after SNRM and UA); rejects with the reason it cannot. */
  open(events: TransportEvents): Promise<void>;
  send(apdu: Uint8Array): void;
  /** [CL-3.2] Repeats the last frame sent (HDLC); a no-op over TCP, which loses nothing. */
  repeat(): void;
  close(): Promise<void>;
  /** For log lines: "/dev/ttyUSB0" or "10.0.0.5:4059". */
  readonly where: string;
  /** How many times a call may be repeated on this transport (HDLC 2, TCP 0). */
  readonly retries: number;
}
