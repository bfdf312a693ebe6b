// The rooms of the code and what each may import, bottom to top: the one table behind
// .dependency-cruiser.cjs (checked by `npm run lint`) and test/layering.test.ts (the READMEs say the same).
// A room is a folder (or one of the files at the top of src/): [room, path pattern, rooms it may import].

const TABLE = [
  ['firmware-protocol', '^firmware-protocol/', ''],
  ['time', '^src/time/', ''],
  ['net', '^src/net/', ''],
  ['package-root', '^src/package-root\\.ts$', ''],
  ['log', '^src/log/', 'time'],
  ['mqtt', '^src/mqtt/', 'firmware-protocol net'],
  ['serial', '^src/serial/', 'firmware-protocol'],
  ['meter-link', '^src/meter-link/', 'firmware-protocol mqtt time net'],
  ['simulator', '^simulator/', 'firmware-protocol meter-link mqtt serial time net'],
  ['store', '^src/store/', 'firmware-protocol time'],
  ['events', '^src/events/', 'firmware-protocol store log time'],
  ['broker', '^src/broker/', 'firmware-protocol events log mqtt net time'],
  ['devices', '^src/devices/', 'firmware-protocol events log mqtt store time'],
  ['world', '^src/world/', 'firmware-protocol simulator store events broker devices log time net'],
  ['http', '^src/http/', 'events log time'],
  ['api', '^src/api/', 'firmware-protocol simulator world devices store events http log time'],
  ['sim-api', '^src/sim-api/', 'firmware-protocol simulator world devices store events http api log time'],
  ['console', '^src/console/', 'http package-root'],
  ['extensions', '^src/extensions/', 'firmware-protocol events log store time'],
  ['app', '^src/app\\.ts$', 'api sim-api console http extensions events world log time'],
  [
    'service',
    '^src/service\\.ts$',
    'app api http extensions world broker devices store events simulator log net mqtt time firmware-protocol',
  ],
  [
    'api-instance',
    '^src/api-instance/',
    'service app api sim-api http extensions world broker devices store events log net mqtt time firmware-protocol',
  ],
  ['client', '^src/client/', 'http'],
  ['qa', '^src/qa/', 'service sim-api world store events meter-link simulator mqtt time firmware-protocol'],
  ['harness', '^src/harness/', 'service client qa extensions log'],
  ['fleet-worker', '^src/fleet-worker/', 'simulator meter-link mqtt log time firmware-protocol'],
  ['bridge', '^src/bridge/', 'meter-link serial mqtt simulator log time firmware-protocol'],
  [
    'cli',
    '^src/cli/',
    'service api-instance qa bridge fleet-worker harness world broker store events extensions http serial simulator log net mqtt time package-root firmware-protocol',
  ],
];

/** @type {{room: string, path: string, mayImport: string[]}[]} */
const ROOMS = TABLE.map(([room, path, may]) => ({ room, path, mayImport: may ? may.split(' ') : [] }));

module.exports = { ROOMS };
