// `meterstack scenario init <name>`: a starting scenario that runs green as written, commented so a
// first-time reader can change it into their own [SC-4]. Pure: the CLI chooses the file and the path
// to the JSON Schema.

/** A name a scenario file may be made for: what `init` takes (the `name:` inside may be changed later). */
export const INIT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;

/** The file `init <name>` writes: the name itself when it ends in .yaml or .yml, else `<name>.yaml`. */
export function initFileName(name: string): string {
  return /\.ya?ml$/i.test(name) ? name : `${name}.yaml`;
}

/** The starting scenario; `schemaRef` is the JSON Schema's path relative to the file. */
export function starterScenario(name: string, schemaRef: string): string {
  return `# yaml-language-server: $schema=${schemaRef}
# A meterstack scenario: a world of accounts, spaces and meters, then a timeline of steps run in order
# on a fresh embedded meterstack whose virtual clock moves only when a step moves it, so the same file
# gives the same report every time. Run it with:
#   npx meterstack scenario run ${initFileName(name)}
# Your editor completes and checks every key from the JSON Schema named on the first line (VS Code:
# the YAML extension); \`npx meterstack scenario --help\` lists the flags.
name: ${JSON.stringify(name.replace(/\.ya?ml$/i, ''))}
seed: 1 # the meters' seeds derive from it
clock: { start: '2026-01-05T00:00:00+05:30' } # the virtual time the timeline starts at (IST)
world:
  accounts:
    - name: acme # \`as: acme\` in a call uses this account's API key
      spaces:
        - name: Block A # \`{space:Block A}\` in a call's path is its id
          meters:
            # 100 paise at 800 paise/kWh buys 0.125 kWh: 7 minutes 30 seconds at 1 kW.
            - { id: MTR-1, mode: prepaid, balance: 100, eb_tariff: 800, load_watts: 1000 }
timeline:
  # Each step has exactly one action (advance, set_load, recharge, call, expect_meter, expect_event,
  # ...) and may have a name, which the report shows.
  - name: the relay is closed at the start
    expect_meter: { meter: MTR-1, relay: true, balance: 100 }
  - advance: 10m # 90s, 15m, 18m45s, 2h, 1d: every meter lives through the jump
  - name: cut off when the balance goes below zero, 7m30s after the start
    # at: an offset from the start (or an instant); within: how far from it, either side.
    expect_event: { type: meter.cutoff, meter: MTR-1, at: 7m30s, within: 1s, data: { balance: -1 } }
  - name: an app using the v2 API sees the open relay
    call: { method: GET, path: /api/v2/devices/MTR-1/metrics, as: acme }
    expect: { status: 200, data: { relay_state: false, balance: -1 } }
  - recharge: { meter: MTR-1, amount: 1000, transaction_id: pay-1 }
  - name: the recharge closes the relay again
    expect_meter: { meter: MTR-1, relay: true, balance: 999 }
  - name: and the relay's closing is in the event journal
    expect_event: { type: meter.restored, meter: MTR-1, data: { balance: 999 } }
`;
}
