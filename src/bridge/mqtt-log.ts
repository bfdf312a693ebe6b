// The serial bridge's words for what its meter link does (src/meter-link/events.ts): the same log lines
// the bridge has always written. A refused login is fatal, not retried: the bridge could only ever fail
// the same way, so it says why and lets the command line exit [SP-7.5].

import type { LinkEvent } from '../meter-link/index.ts';

/** Why a --broker URL cannot be used, or null (the command line's check before anything starts). */
export { brokerUrlProblem } from '../meter-link/index.ts';

import type { Logger } from '../serial/link.ts';
import { RepeatedLines } from './repeats.ts';

export interface BrokerOptions {
  url: string;
  /** The meter's device id [MC-2.5]. */
  username: string;
  password: string;
}

export interface MqttLogHooks {
  /** Announced online [MC-6.3]. */
  online: () => void;
  /** [SP-7.5] The broker refused the login for a reason retrying cannot cure. */
  refused: (reason: string) => void;
}

export function mqttLog(broker: BrokerOptions, log: Logger, hooks: MqttLogHooks): (event: LinkEvent) => void {
  const { url, username } = broker;
  // While the broker is down every attempt fails alike: one line, then their sum (decision 171).
  const attempts = new RepeatedLines(log);
  return (event) => {
    switch (event.type) {
      case 'ready':
        attempts.flush();
        // Not "connected": any broker on the port may accept a login; the announcement says whose it is.
        return log('info', `mqtt ${url}: login accepted as ${username}; checking it is meterstack [MC-12.2]`);
      case 'service': {
        const { version, http } = event.announcement;
        return log('info', `connected to meterstack ${version} at ${url}${http ? ` (HTTP ${http})` : ''}`);
      }
      case 'service_missing':
        return log(
          'warn',
          `${url} accepted the connection but is not meterstack: no service announcement on ${event.topic} ` +
            `within ${event.waitedMs / 1000} s [MC-12.2]. Another broker holds that port? \`npm start\` ` +
            'prints the bridge line with the broker meterstack really listens on',
        );
      case 'announced':
        return hooks.online();
      case 'lost':
        if (event.ready) log('warn', `mqtt ${url}: connection lost; reconnecting`);
        return;
      case 'retrying': {
        const what = `mqtt ${url}: ${event.error?.message ?? 'connection closed'}`;
        return attempts.note('warn', what, `${what}; retrying in ${seconds(event.inMs)}, then less often`);
      }
      case 'error': {
        // A passing error (the broker is down) is told with its retry ('retrying').
        if (!event.refused) return log('debug', `mqtt ${url}: ${event.error.message}`);
        const code = (event.error as Error & { code?: unknown }).code;
        log('error', `mqtt ${url}: login refused (CONNACK ${code}): ${event.refused}`);
        return hooks.refused(`the broker at ${url} refused the login: ${event.refused}`);
      }
      case 'unavailable':
        return log(
          'warn',
          `mqtt ${url}: broker says server unavailable (CONNACK 3); retrying in ${event.retryMs} ms`,
        );
      case 'subscribe_failed':
        return log('error', `mqtt: cannot subscribe to ${event.topic}: ${event.error.message}`);
      case 'announce_failed':
        return log('error', `mqtt: announcing the meter failed: ${event.error.stack ?? event.error}`);
      case 'bad_command':
        return log('warn', `cmd refused: [${event.error.rule}] ${event.error.message}`);
      case 'command_failed':
        // [SP-6.1] whatever the service sends, the bridge stays up
        return log('error', `mqtt: handling a cmd failed: ${event.error.stack ?? event.error}`);
      case 'telemetry_dropped':
        return log('error', `telemetry message of ${event.samples} samples dropped: ${event.error.message}`);
      default:
        return;
    }
  };
}

const seconds = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);
