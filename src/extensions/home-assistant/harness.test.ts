// startMeterstack({ homeAssistant }) (the package's harness, HA-1, HA-7): the meters of an inline world
// announced to Home Assistant, and HA's login handed back to log in with.

import mqtt from 'mqtt';
import { expect, it } from 'vitest';
import { Inbox } from '../../../test/helpers/mqtt.ts';
import { startMeterstack } from '../../harness/index.ts';
import { nodeIdOf, stateTopic } from './topics.ts';

it('startMeterstack({ homeAssistant }) announces the world’s meters and gives HA’s login', async () => {
  const ms = await startMeterstack({
    homeAssistant: { prefix: 'ha' },
    world: {
      accounts: [
        {
          name: 'home',
          spaces: [{ name: 'Flat', meters: [{ id: 'MTR-H1', mode: 'prepaid', balance: 500 }] }],
        },
      ],
    },
  });
  try {
    expect(ms.homeAssistant).toMatchObject({ prefix: 'ha', username: 'meterstack-ha' });
    const c = await mqtt.connectAsync(ms.mqttUrl, {
      username: ms.homeAssistant!.username,
      password: ms.homeAssistant!.password,
      clientId: 'ha-harness',
      reconnectPeriod: 0,
    });
    const inbox = new Inbox(c);
    await c.subscribeAsync(['ha/#', stateTopic('MTR-H1')], { qos: 1 });
    await inbox.waitFor((m) => m.topic === `ha/sensor/${nodeIdOf('MTR-H1')}/energy/config`, 5_000);
    const state = await inbox.waitFor((m) => m.topic === stateTopic('MTR-H1'), 5_000);
    // The world's balances are paise; HA's are rupees.
    expect(state.json).toMatchObject({ mode: 'prepaid', balance: 5, online: true });
    await c.endAsync();
  } finally {
    await ms.stop();
  }
});
