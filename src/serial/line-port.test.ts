// The debug log of serial lines (issue 20 §4, `--verbose`): every line in and out, a WiFi password never.
import { describe, expect, it } from 'vitest';
import { LinePort } from './line-port.ts';

function port(): { lines: string[]; port: LinePort } {
  const lines: string[] = [];
  const p = new LinePort({
    serial: '/nonexistent/tty', // never started: lines are fed to receive() and send() finds it closed
    baud: 115_200,
    log: (level, msg) => lines.push(`${level} ${msg}`),
    onFrame: () => {},
    onOpen: () => {},
    onClose: () => {},
  });
  return { lines, port: p };
}

describe('LinePort debug lines', () => {
  it('logs each line received and each line sent at debug', () => {
    const { lines, port: p } = port();
    p.receive('PING ts=1');
    p.send({ type: 'IDENT', ts: 5 });
    expect(lines.filter((l) => l.startsWith('debug '))).toEqual([
      'debug serial < PING ts=1',
      expect.stringMatching(/^debug serial > ERR code=no_checksum /), // its answer [SP-6.3]
      expect.stringMatching(/^debug serial > IDENT ts=5\*[0-9A-F]{4} \(not sent: the port is closed\)$/),
    ]);
  });

  it('[SP-4.10] masks a WiFi password, at the end of a line or before its CRC', () => {
    const { lines, port: p } = port();
    p.receive('ACK seq=1 id=c-1 op=get_wifi password=hunter2 ssid=home*ABCD');
    p.receive('CMD seq=2 id=c-2 op=set_wifi ssid=home password=s3cr%20et*1F2E');
    p.receive('CMD seq=3 id=c-3 op=set_wifi ssid=home password=last');
    const debug = lines.filter((l) => l.startsWith('debug ')).join('\n');
    expect(debug).not.toMatch(/hunter2|s3cr|last/);
    expect(debug).toContain('password=*** ssid=home*ABCD');
    expect(debug).toContain('password=****1F2E');
    expect(debug).toContain('password=***');
  });
});
