// The rooms of the code and what each may import, bottom to top: the one table behind
// .dependency-cruiser.cjs (checked by `npm run lint`) and test/layering.test.ts (the READMEs say the same).
// A room is a folder (or one of the files at the top of src/): [room, path pattern, rooms it may import].

const TABLE = [
  ['firmware-protocol', '^firmware-protocol/', ''],
  ['time', '^src/time/', ''],
  ['units', '^src/units/', ''],
  ['net', '^src/net/', ''],
  ['package-root', '^src/package-root\\.ts$', ''],
  ['log', '^src/log/', ''],
  ['mqtt', '^src/mqtt/', 'firmware-protocol'],
  ['serial', '^src/serial/', 'firmware-protocol'],
  ['meter-link', '^src/meter-link/', 'mqtt firmware-protocol'],
  ['simulator', '^simulator/', 'meter-link serial firmware-protocol'],
  ['store', '^src/store/', 'time firmware-protocol'],
  ['events', '^src/events/', 'log'],
  ['broker', '^src/broker/', 'events mqtt log net firmware-protocol'],
  ['devices', '^src/devices/', 'events store mqtt log time units firmware-protocol'],
  ['world', '^src/world/', 'devices broker events store simulator log time firmware-protocol'],
  ['http', '^src/http/', 'events log time'],
  ['api', '^src/api/', 'http world devices store simulator log time firmware-protocol'],
  ['sim-api', '^src/sim-api/', 'api http world devices events store simulator time firmware-protocol'],
  ['console', '^src/console/', 'http package-root'],
  ['extensions', '^src/extensions/', 'devices events store mqtt log time units firmware-protocol'],
  ['app', '^src/app\\.ts$', 'console sim-api api http world events'],
  [
    'service',
    '^src/service\\.ts$',
    'app extensions api http world broker events store simulator log net package-root',
  ],
  [
    'api-instance',
    '^src/api-instance/',
    'service app extensions sim-api api http world devices broker events store log net',
  ],
  ['client', '^src/client/', 'http'],
  [
    'qa',
    '^src/qa/',
    'service sim-api world events store simulator meter-link mqtt time units firmware-protocol',
  ],
  ['harness', '^src/harness/', 'qa client service extensions log'],
  ['fleet-worker', '^src/fleet-worker/', 'simulator log firmware-protocol'],
  ['bridge', '^src/bridge/', 'simulator meter-link serial firmware-protocol'],
  [
    'cli',
    '^src/cli/',
    'bridge fleet-worker qa api-instance service extensions http world broker store simulator serial log package-root time units firmware-protocol',
  ],
];

/** @type {{room: string, path: string, mayImport: string[]}[]} */
const ROOMS = TABLE.map(([room, path, may]) => ({ room, path, mayImport: may ? may.split(' ') : [] }));

module.exports = { ROOMS };
