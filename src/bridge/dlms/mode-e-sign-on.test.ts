// [IEC-10.3] The reader's mode E sign-on when the port itself fails: a rejected sign-on, never an unhandled
// 'error' that would end the process (a fleet bridge with it). serialport's mock binding stands in for the
// probe, as a serial error cannot be caused on demand on a pty.

import { SerialPortMock } from 'serialport';
import { afterEach, describe, expect, it } from 'vitest';
import { type ModeEPort, signOnModeE } from './mode-e-sign-on.ts';

const MockBinding = SerialPortMock.binding;

describe('mode E sign-on: a port that fails rejects the sign-on [IEC-10.3]', () => {
  afterEach(() => MockBinding.reset());

  it("[IEC-10.3] an 'error' on the port while waiting for the identification rejects; a late error is no crash", async () => {
    MockBinding.createPort('/dev/probe0', { echo: false, record: true });
    let port: SerialPortMock | null = null;
    const signOn = signOnModeE({
      path: '/dev/probe0',
      answerTimeoutMs: 200,
      createPort: (s) => {
        port = new SerialPortMock(s as ConstructorParameters<typeof SerialPortMock>[0]);
        return port as unknown as ModeEPort;
      },
    });
    const p = port as unknown as SerialPortMock;
    if (!p.isOpen) await new Promise<void>((r) => p.once('open', () => r()));
    p.emit('error', new Error('EIO: the probe was unplugged'));
    await expect(signOn).rejects.toThrow(/port failed during the sign-on: EIO/);
    expect(p.isOpen).toBe(false);
    expect(() => p.emit('error', new Error('late'))).not.toThrow();
  });

  it('[IEC-10.3] a write the port cannot take rejects the sign-on', async () => {
    MockBinding.createPort('/dev/probe1', { echo: false, record: true });
    const signOn = signOnModeE({
      path: '/dev/probe1',
      answerTimeoutMs: 200,
      createPort: (s) => {
        const port = new SerialPortMock(s as ConstructorParameters<typeof SerialPortMock>[0]);
        port.once('open', () => {
          // the binding refuses every write from now on, as a port gone away does
          port.port!.write = () => Promise.reject(new Error('EBADF: write refused'));
        });
        return port as unknown as ModeEPort;
      },
    });
    await expect(signOn).rejects.toThrow(/EBADF|write refused/);
  });
});
