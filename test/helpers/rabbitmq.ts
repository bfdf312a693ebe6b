// A RabbitMQ node of the test's own with the MQTT plugin, beside (never touching) the machine's:
// its own node name, AMQP, distribution and MQTT ports, enabled-plugins file, config, mnesia and log
// directories in a temp dir. Debian's rabbitmq-server runs the node as user `rabbitmq`, so the dir is
// world-writable. Starts in ~13 s here. `stop()` ends the node by the pid it wrote, then removes the dir.

import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './prism.ts';

const RABBITMQ_SERVER = '/usr/sbin/rabbitmq-server';
const RABBITMQCTL = '/usr/sbin/rabbitmqctl';

export const hasRabbitMq = existsSync(RABBITMQ_SERVER) && existsSync(RABBITMQCTL);
/** Skip a RabbitMQ test here (not installed), but never in CI, where it must fail instead. */
export const skipWithoutRabbitMq = !hasRabbitMq && process.env['CI'] !== 'true';

export interface RunningRabbitMq {
  node: string;
  mqttPort: number;
  /** mqtt://127.0.0.1:port, no login. */
  url: string;
  /** `--broker` value with RabbitMQ's default guest login (allowed from localhost). */
  brokerUrl: string;
  /** Runs rabbitmqctl against this node, e.g. add_user. */
  ctl(...args: string[]): Promise<string>;
  stop(): Promise<void>;
}

async function waitPort(
  port: number,
  proc: ChildProcess,
  timeoutMs: number,
  out: () => string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`rabbitmq-server exited with ${proc.exitCode}\n${out()}`);
    const up = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (up) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`RabbitMQ's MQTT listener not up on ${port} within ${timeoutMs} ms\n${out()}`);
}

export async function startRabbitMq(timeoutMs = 45_000): Promise<RunningRabbitMq> {
  const dir = mkdtempSync(join(tmpdir(), 'meterstack-rabbitmq-'));
  chmodSync(dir, 0o777);
  const [nodePort, distPort, mqttPort] = [await freePort(), await freePort(), await freePort()];
  const node = `meterstack-test-${process.pid}-${nodePort}@localhost`;
  writeFileSync(join(dir, 'enabled_plugins'), '[rabbitmq_mqtt].\n', { mode: 0o644 });
  writeFileSync(join(dir, 'rabbitmq.conf'), `mqtt.listeners.tcp.default = ${mqttPort}\n`, { mode: 0o644 });
  const pidFile = join(dir, 'rabbit.pid');
  const env = {
    ...process.env,
    RABBITMQ_NODENAME: node,
    RABBITMQ_NODE_PORT: String(nodePort),
    RABBITMQ_DIST_PORT: String(distPort),
    RABBITMQ_ENABLED_PLUGINS_FILE: join(dir, 'enabled_plugins'),
    RABBITMQ_CONFIG_FILE: join(dir, 'rabbitmq.conf'),
    RABBITMQ_MNESIA_BASE: join(dir, 'mnesia'),
    RABBITMQ_LOG_BASE: join(dir, 'log'),
    RABBITMQ_PID_FILE: pidFile,
  };
  const proc = spawn(RABBITMQ_SERVER, [], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.setEncoding('utf8').on('data', (d: string) => {
    out += d;
  });
  proc.stderr!.setEncoding('utf8').on('data', (d: string) => {
    out += d;
  });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const stop = async () => {
    // The node (beam, user rabbitmq) is not the shell script spawned here: end it by its own pid.
    const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : NaN;
    if (Number.isInteger(pid) && pid > 0) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    if (proc.exitCode === null && proc.signalCode === null) {
      const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitPort(mqttPort, proc, timeoutMs, () => out);
  } catch (err) {
    await stop();
    throw err;
  }
  const run = promisify(execFile);
  return {
    node,
    mqttPort,
    url: `mqtt://127.0.0.1:${mqttPort}`,
    brokerUrl: `mqtt://guest:guest@127.0.0.1:${mqttPort}`,
    ctl: async (...args) => (await run(RABBITMQCTL, ['-n', node, ...args], { env })).stdout,
    stop,
  };
}
