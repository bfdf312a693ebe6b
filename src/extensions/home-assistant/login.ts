// [HA-7] The login the service issues for Home Assistant (never a meter's): its name, its password, and
// exactly the topics it may use, as MQTT filters. The embedded broker enforces them as a `scoped`
// principal (src/broker/access.ts), Mosquitto as a dynsec role of the same filters (src/broker/external.ts).

import { createHmac } from 'node:crypto';
import { TOPIC_ROOT } from '../../../firmware-protocol/mqtt/topics.ts';
import { COMMANDABLE, HA_ROOT, HA_USERNAME, statusTopic } from './topics.ts';

/**
 * [HA-7] What the HA login may do: read discovery, the state topics and the meters' availability (which
 * HA's availability reads), publish commands and its own birth and will. Never a meter's topic, and
 * never its `cmd`: commands go through the service's twins, as the v2 API's do.
 */
export function haAccess(prefix: string): { publish: string[]; subscribe: string[] } {
  return {
    publish: [...COMMANDABLE.map((what) => `${HA_ROOT}/+/${what}/set`), statusTopic(prefix)],
    subscribe: [`${prefix}/#`, `${HA_ROOT}/+/state`, `${TOPIC_ROOT}/+/availability`],
  };
}

/** The topics the service publishes and hears for HA (a dynsec service role needs them too). */
export function serviceTopicsFor(prefix: string): string[] {
  return [`${prefix}/#`, `${HA_ROOT}/#`];
}

export interface HaLogin {
  username: string;
  password: string;
  /** Its dynsec role's name. */
  role: string;
  publish: string[];
  subscribe: string[];
  serviceTopics: string[];
}

/**
 * [HA-7] The HA login for `prefix`. Its password is `password` when given (`--ha-password`), else derived
 * from the admin token, so it stays the same across restarts as the admin token does (decision 210).
 */
export function haLogin(prefix: string, adminToken: string, password?: string): HaLogin {
  return {
    username: HA_USERNAME,
    password:
      password ?? createHmac('sha256', adminToken).update('meterstack-ha').digest('base64url').slice(0, 24),
    role: HA_USERNAME,
    ...haAccess(prefix),
    serviceTopics: serviceTopicsFor(prefix),
  };
}
