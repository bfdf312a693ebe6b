// `meterstack serve` from the command line: bad values exit 2 with a clear message, and a taken port
// is either an error (--strict-port) or a warning and the next free port (as Vite does).

import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runServe, ServeProcess } from '../helpers/child.ts';

const servers: Server[] = [];
const running: ServeProcess[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.stop('SIGKILL')));
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** Holds a port on 127.0.0.1, as another program would. */
async function takePort(): Promise<number> {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

const base = ['--db=:memory:', '--no-demo', '--admin-token=cli-admin-token'];

describe('meterstack serve with a bad flag value', () => {
  it('exits 2 naming the flag, its variable and the value for --http-port abc', async () => {
    const { code, stderr, stdout } = await runServe(['--http-port', 'abc', ...base]);
    expect(code).toBe(2);
    expect(stderr).toContain(
      "--http-port (METERSTACK_HTTP_PORT) must be a whole number from 0 to 65535, got 'abc'",
    );
    expect(stderr).toContain('run `meterstack serve --help` for the flags');
    expect(stdout).not.toContain('meterstack is running');
  });

  it('exits 2 for a bad METERSTACK_* variable too, naming it', async () => {
    const { code, stderr } = await runServe(base, { METERSTACK_MQTT_PORT: '70000' });
    expect(code).toBe(2);
    expect(stderr).toContain(
      "--mqtt-port (METERSTACK_MQTT_PORT) must be a whole number from 0 to 65535, got '70000'",
    );
  });

  it('exits 2 for an unknown flag', async () => {
    const { code, stderr } = await runServe(['--htp-port', '80', ...base]);
    expect(code).toBe(2);
    expect(stderr).toContain('unknown flag --htp-port (did you mean --http-port?)');
  });
});

describe('meterstack serve on a port that is taken', () => {
  it('with --strict-port fails (exit 1) naming the MQTT port', async () => {
    const port = await takePort();
    const { code, stderr } = await runServe([
      '--strict-port',
      `--mqtt-port=${port}`,
      '--http-port=0',
      ...base,
    ]);
    expect(code).toBe(1);
    expect(stderr).toContain(`MQTT port ${port} on 127.0.0.1 is in use (--strict-port is set`);
  });

  it('with --strict-port fails (exit 1) naming the HTTP port', async () => {
    const port = await takePort();
    const { code, stderr } = await runServe([
      '--strict-port',
      '--mqtt-port=0',
      `--http-port=${port}`,
      ...base,
    ]);
    expect(code).toBe(1);
    expect(stderr).toContain(`HTTP port ${port} on 127.0.0.1 is in use (--strict-port is set`);
  });

  it('without --strict-port warns and takes the next free port', async () => {
    const mqttPort = await takePort();
    const httpPort = await takePort();
    const p = new ServeProcess([`--mqtt-port=${mqttPort}`, `--http-port=${httpPort}`, ...base]);
    running.push(p);
    const { httpUrl, mqttUrl } = await p.ready();
    expect(p.stderr).toMatch(
      new RegExp(`"level":"warn"[^\\n]*MQTT port ${mqttPort} is in use, using (\\d+) instead`),
    );
    expect(p.stderr).toMatch(
      new RegExp(`"level":"warn"[^\\n]*HTTP port ${httpPort} is in use, using (\\d+) instead`),
    );
    const usedMqtt = Number(new URL(mqttUrl).port);
    const usedHttp = Number(new URL(httpUrl).port);
    expect(usedMqtt).toBeGreaterThan(mqttPort);
    expect(usedHttp).toBeGreaterThan(httpPort);
    expect(p.stderr).toContain(`using ${usedMqtt} instead`);
    expect(p.stderr).toContain(`using ${usedHttp} instead`);
    const health = await fetch(`${httpUrl}/healthz`);
    expect(health.status).toBe(200);
  });
});
