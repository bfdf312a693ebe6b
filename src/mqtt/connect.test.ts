// createMqttClient's options that are ours: mqtt.js's per-packet log on or off.

import { afterEach, describe, expect, it } from 'vitest';
import { createMqttClient } from './connect.ts';

const clients: ReturnType<typeof createMqttClient>[] = [];
afterEach(() => {
  for (const c of clients.splice(0)) c.end(true);
});

/** A client that never reaches a broker (port 9 is discard; nothing is sent before it is ended). */
const client = (packetLog?: boolean) => {
  const c = createMqttClient({ url: 'mqtt://127.0.0.1:9', reconnectPeriod: 0, packetLog });
  c.on('error', () => {});
  clients.push(c);
  return c;
};

describe('createMqttClient', () => {
  it("keeps mqtt.js's own packet log by default (DEBUG=mqttjs* shows it)", () => {
    expect((client().log as { namespace?: string }).namespace).toBe('mqttjs:client');
  });

  it('packetLog: false turns it off unless DEBUG is set', () => {
    const namespace = (client(false).log as { namespace?: string }).namespace;
    expect(namespace).toBe(process.env['DEBUG'] ? 'mqttjs:client' : undefined);
  });
});
