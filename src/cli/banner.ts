// What `meterstack serve` prints once it is up: only what is true of this run. The web console first
// (issue 9 §4); with the demo world, its key, its meters and what makes each worth a look, and calls
// that use them; without (--no-demo), how to make an account, a key and a meter through /sim/v1
// (issue 8 item 20).

import type { MeterLogins } from '../broker/service-broker.ts';
import type { RunningService } from '../service.ts';

/** What the banner says of the broker: which one, and who keeps meters' logins (docs/brokers.md). */
export function brokerNote(logins: MeterLogins): string {
  if (logins === 'store') return 'embedded (aedes)';
  if (logins === 'dynsec') return "external; meters' logins made through Mosquitto dynamic security";
  return "external; logins and ACLs are the broker's own (unmanaged)";
}

export interface BannerInput {
  svc: Pick<RunningService, 'httpUrl' | 'mqttUrl' | 'apiKey' | 'adminToken'>;
  /** Who keeps meters' logins; default the embedded broker's store. */
  brokerLogins?: MeterLogins;
  db: string;
  demo: boolean;
  generatedAdminToken: boolean;
  /** Where a token not given came from: kept beside the database, or this run's (admin-token.ts). */
  adminTokenNote?: string;
  /** Virtual now as the API shows it (IST). */
  clockIso: string;
  speed: number;
  /** [HA-7] Home Assistant discovery's prefix and login, its password as it may be shown. */
  homeAssistant?: { prefix: string; username: string; password: string };
  /** The demo meters, each with what makes it worth a look (src/world/demo-notes.ts). */
  demoMeters?: { deviceId: string; note: string }[];
}

/** A placeholder where a secret the operator chose would go: it is theirs, never printed [SEC-2]. */
export const GIVEN_ADMIN_TOKEN = '<admin token>';

/**
 * [SEC-2] The admin token as the banner shows it: a generated one in full (nobody else knows it), one
 * given by --admin-token or METERSTACK_ADMIN_TOKEN never (stdout is often a collected log).
 */
export function shownAdminToken(token: string, generated: boolean): string {
  return generated ? token : GIVEN_ADMIN_TOKEN;
}

/** The banner's admin token line and the note under it. */
export function adminTokenLines(token: string, generated: boolean, generatedNote: string): string[] {
  return generated
    ? [`  admin token  ${token}`, `               ${generatedNote}`]
    : ['  admin token  given by --admin-token or METERSTACK_ADMIN_TOKEN (not printed)'];
}

export function banner(b: BannerInput): string {
  const { svc } = b;
  const url = svc.httpUrl;
  const token = shownAdminToken(svc.adminToken, b.generatedAdminToken);
  const a = `-H 'X-Admin-Token: ${token}'`;
  const json = `-H 'Content-Type: application/json'`;
  const mqtt = new URL(svc.mqttUrl);
  const logins = b.brokerLogins ?? 'store';
  // An unmanaged broker has no meterstack watcher login: the operator's own login goes there.
  const watchUser = logins === 'unmanaged' ? `-u <login> -P <password>` : `-u admin -P '${token}'`;
  const watch = `mosquitto_sub -h ${mqtt.hostname} -p ${mqtt.port} ${watchUser} -t 'meterstack/v1/+/telemetry' -v`;
  // Lines other than commands fit 80 columns; commands stay whole, to be copied.
  const head = [
    '',
    '  meterstack is running',
    '',
    `  web console  ${url}/`,
    '               open it in a browser and paste the admin token',
    ...adminTokenLines(
      svc.adminToken,
      b.generatedAdminToken,
      b.adminTokenNote ?? '(generated for this run; pass --admin-token to keep one)',
    ),
    `  HTTP API     ${url}`,
    '               OpenAPI /openapi.json, Swagger UI /docs',
    `  MQTT broker  ${svc.mqttUrl}`,
    `               ${brokerNote(logins)}`,
    ...(b.homeAssistant
      ? [
          `  Home Assistant  discovery under ${b.homeAssistant.prefix}/ on this broker; HA's MQTT login:`,
          `               ${b.homeAssistant.username} / ${b.homeAssistant.password}`,
        ]
      : []),
    `  database     ${b.db}`,
    ...(b.demo ? [`  demo API key ${svc.apiKey}   (header X-Service-API-Key)`] : []),
    `  clock        ${b.clockIso} at ${b.speed}x`,
    '',
  ];
  const meters =
    b.demo && b.demoMeters?.length
      ? [
          '  demo meters (account demo; model, then what to look at):',
          ...b.demoMeters.map((m) => `    ${m.deviceId.padEnd(9)} ${m.note}`),
          '',
        ]
      : [];
  const h = `-H 'X-Service-API-Key: ${svc.apiKey}'`;
  const tryLines = b.demo
    ? [
        '  try:',
        `    curl -s ${h} ${url}/api/v2/spaces/`,
        `    curl -s ${h} ${url}/api/v2/devices/MTR-A101/metrics`,
        `    curl -s ${a} ${url}/sim/v1/devices/MTR-B201`,
        `    curl -s ${a} ${json} -d '{"seconds":3600}' ${url}/sim/v1/clock/advance`,
        `    ${watch}`,
      ]
    : [
        '  no demo world (--no-demo). Create an account (its answer holds account_id',
        '  and api_key):',
        `    curl -s ${a} ${json} -d '{"name":"my account"}' ${url}/sim/v1/accounts`,
        '  then a space and a virtual meter in it (put in the ids they answer), and',
        '  call the v2 API with the key:',
        `    curl -s ${a} ${json} -d '{"account_id":<account_id>,"name":"Block A"}' ${url}/sim/v1/spaces`,
        `    curl -s ${a} ${json} -d '{"account_id":<account_id>,"space_id":<space_id>}' ${url}/sim/v1/devices`,
        `    curl -s -H 'X-Service-API-Key: <api_key>' ${url}/api/v2/spaces/`,
        `    ${watch}`,
      ];
  return `${[...head, ...meters, ...tryLines, '', ...bridgeLines(svc.mqttUrl)].join('\n')}\n\n`;
}

/**
 * A real meter's bridge line, with the broker this run really listens on: the examples' :1883 may be a
 * machine's own Mosquitto while meterstack took the next free port (issue 20 §3). `npx` runs it from a
 * checkout as from an installed package.
 */
export function bridgeLines(mqttUrl: string): string[] {
  return [
    '  a real meter on a serial port: provision it with "external": true (the',
    "  console's provisioning, or POST /sim/v1/devices), then bridge it:",
    `    npx meterstack bridge --serial /dev/ttyUSB0 --broker ${mqttUrl} --username <device_id> --password <its mqtt password>`,
  ];
}
