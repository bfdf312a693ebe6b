// Imports point one way (issue 19 §6). Each room of the code below may import only the rooms its
// `mayImport` names: the "may import" column of src/README.md and of each top-level folder's README
// says the same in words, and test/layering.test.ts holds the two together. `npm run lint` runs this
// (`depcruise`); a wrong import fails with the rule's name, `<room>-may-import`, and the room's line.
//
// Rooms are folders (and the three files at the top of src/). Bottom to top:
//   firmware-protocol < time, net, log < mqtt, serial < meter-link < simulator < store < events
//   < broker, devices < world < http < extensions < api, sim-api, console < app < service, api-instance
//   < qa, harness, fleet-worker, bridge, client < cli

const { ROOMS } = require('./scripts/layers.cjs');

const byRoom = new Map(ROOMS.map((r) => [r.room, r]));

module.exports = {
  forbidden: [
    ...ROOMS.map((r) => ({
      name: `${r.room}-may-import`,
      comment: `${r.room} may import only: ${r.mayImport.join(', ') || 'node and npm packages'} (src/README.md)`,
      severity: 'error',
      from: { path: r.path, pathNot: '\\.test\\.ts$|/test-helpers\\.ts$|/test-faults\\.ts$' },
      to: {
        path: '^(src|simulator|firmware-protocol)/',
        pathNot: [r.path, ...r.mayImport.map((m) => byRoom.get(m).path)],
      },
    })),
    {
      name: 'no-unresolvable',
      comment: 'an import that names no file',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)/|^src/client/schema\\.ts$|^src/console/web/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json', '.d.ts'],
      conditionNames: ['import', 'require', 'node', 'types', 'default'],
      exportsFields: ['exports'],
    },
  },
};
