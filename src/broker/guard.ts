// The aedes hooks that authenticate a CONNECT and authorize every PUBLISH, SUBSCRIBE and will.
// The principal of each client lives in a WeakMap, not on the aedes client object.

import type { AedesOptions, AuthenticateError, Client, ConnectPacket } from 'aedes';
import { isValidPrincipal, mayPublish, maySubscribe, mayWill, type Principal } from './access.ts';
import type { Authenticate, Log } from './broker.ts';

// CONNACK return codes, MQTT 3.1.1 table 3.1.
const IDENTIFIER_REJECTED = 2;
const SERVER_UNAVAILABLE = 3;
const BAD_USERNAME_OR_PASSWORD = 4;
const NOT_AUTHORIZED = 5;

type Hooks = Required<
  Pick<AedesOptions, 'preConnect' | 'authenticate' | 'authorizePublish' | 'authorizeSubscribe'>
>;

type Admission = { ok: true; principal: Principal } | { ok: false; returnCode: number; reason: string };

function refusal(returnCode: number, reason: string): AuthenticateError {
  return Object.assign(new Error(reason), { returnCode });
}

/** Decide a CONNECT once the credentials have been looked up. Pure, so the order of checks is plain. */
export function admit(
  principal: Principal | null,
  clientId: string,
  willTopic: string | undefined,
  willRetain = true,
): Admission {
  if (principal === null) {
    return { ok: false, returnCode: BAD_USERNAME_OR_PASSWORD, reason: 'unknown username or wrong password' };
  }
  if (!isValidPrincipal(principal)) {
    return {
      ok: false,
      returnCode: NOT_AUTHORIZED,
      reason: 'credentials map to an invalid device id [MC-1.2]',
    };
  }
  // A meter must connect as its own device id: otherwise it could take over another meter's
  // (or the service's) session, since the broker drops the older of two clients with one id
  // [MQTT-3.1.4-2]. Refused with 0x02 as [MQTT-3.1.3-9] prescribes for a rejected ClientId.
  if (principal.kind === 'meter' && clientId !== principal.deviceId) {
    return {
      ok: false,
      returnCode: IDENTIFIER_REJECTED,
      reason: `meter ${principal.deviceId} must use its device id as client id`,
    };
  }
  // Checked at CONNECT so a forged will is refused up front rather than silently dropped when
  // the connection dies; authorizePublish checks it again when aedes publishes it.
  if (willTopic !== undefined && !mayWill(principal, willTopic, willRetain)) {
    return { ok: false, returnCode: NOT_AUTHORIZED, reason: `will on ${willTopic} not allowed [MC-2.1]` };
  }
  return { ok: true, principal };
}

/** The contract rule a refused publish breaks, for the log line. */
function ruleOf(principal: Principal | undefined, topic: string, retain: boolean): string {
  if (principal?.kind === 'admin') return '[MC-2.6]';
  if (principal?.kind === 'scoped') return `(outside the ACL of ${principal.name})`;
  if (retain && principal !== undefined && mayPublish(principal, topic, false)) return '[MC-2.7]';
  return '[MC-2.1]';
}

export interface Guard {
  hooks: Hooks;
  principalOf(client: Client): Principal | undefined;
}

/**
 * Told of each refused CONNECT: its CONNACK return code, the line that says why (null when it was logged
 * already, as a failing authentication backend is, at error level), the username and the client id given.
 */
export type OnRefusedLogin = (
  returnCode: number,
  line: string | null,
  username: string | undefined,
  clientId: string,
) => void;

export function createGuard(
  authenticate: Authenticate,
  log: Log,
  onRefused: OnRefusedLogin = (_code, line) => {
    if (line !== null) log('info', line);
  },
): Guard {
  const principals = new WeakMap<Client, Principal>();
  // authenticate() is not given the CONNECT packet, so preConnect keeps it for the will check.
  const connects = new WeakMap<Client, ConnectPacket>();

  const hooks: Hooks = {
    preConnect(client, packet, callback) {
      connects.set(client, packet);
      callback(null, true);
    },

    authenticate(client, username, password, done) {
      const will = connects.get(client)?.will;
      const willTopic = will?.topic;
      connects.delete(client);
      if (username === undefined || password === undefined) {
        onRefused(
          BAD_USERNAME_OR_PASSWORD,
          `refused ${client.id}: no username or password`,
          username,
          client.id,
        );
        done(refusal(BAD_USERNAME_OR_PASSWORD, 'username and password are required'), null);
        return;
      }
      Promise.resolve()
        .then(() => authenticate(username, password.toString('utf8')))
        .then(
          (principal) => {
            const admission = admit(principal ?? null, client.id, willTopic, will?.retain ?? true);
            if (!admission.ok) {
              onRefused(
                admission.returnCode,
                `refused ${client.id} (user ${username}): ${admission.reason}`,
                username,
                client.id,
              );
              done(refusal(admission.returnCode, admission.reason), null);
              return;
            }
            principals.set(client, admission.principal);
            done(null, true);
          },
          (err: unknown) => {
            log('error', `authenticate failed for user ${username}: ${String(err)}`);
            onRefused(SERVER_UNAVAILABLE, null, username, client.id);
            done(refusal(SERVER_UNAVAILABLE, 'authentication backend failed'), null);
          },
        );
    },

    authorizePublish(client, packet, callback) {
      // client is null only for a will persisted by a client that is gone; it was checked at CONNECT.
      if (client === null) return callback(null);
      const principal = principals.get(client);
      const retain = packet.retain === true;
      if (principal !== undefined && mayPublish(principal, packet.topic, retain)) return callback(null);
      // MQTT 3.1.1 has no negative PUBACK: the server must either ack as normal and drop, or
      // close the connection [MQTT-3.3.5-2]. We close: a meter writing outside its own topics
      // is a bug or a forgery, and a dropped connection (its will fires) is visible where a
      // silently acked publish is not.
      const what = retain ? `retained publish to ${packet.topic}` : `publish to ${packet.topic}`;
      log('warn', `closing ${client.id}: ${what} not allowed ${ruleOf(principal, packet.topic, retain)}`);
      callback(new Error(`${what} not allowed`));
    },

    authorizeSubscribe(client, subscription, callback) {
      const principal = principals.get(client);
      if (principal !== undefined && maySubscribe(principal, subscription.topic)) {
        return callback(null, subscription);
      }
      // A null subscription makes aedes grant 0x80 (failure) for this filter only, MQTT 3.1.1
      // §3.9.3; the other filters of the SUBSCRIBE and the connection are unaffected.
      const rule = principal?.kind === 'scoped' ? `(outside the ACL of ${principal.name})` : '[MC-2.2]';
      log('warn', `${client.id}: subscribe to ${subscription.topic} not allowed ${rule}`);
      callback(null, null);
    },
  };

  return { hooks, principalOf: (client) => principals.get(client) };
}
