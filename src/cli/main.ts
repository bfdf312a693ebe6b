// meterstack's command line: `meterstack <command> [flags]`.
// Each command's module is imported only when that command runs: `--help` and `--version` load nothing
// but this file (a typo adds the typo helper), so they answer in about the time node takes to start.

import { packageVersion } from '../package-root.ts';

type Run = (argv: string[]) => Promise<void>;

const COMMANDS: Record<string, () => Promise<Run>> = {
  serve: async () => (await import('./serve.ts')).runServe,
  bridge: async () => (await import('./bridge.ts')).runBridge,
  meter: async () => (await import('./meter.ts')).runMeter,
  replay: async () => (await import('./replay.ts')).runReplay,
  scenario: async () => (await import('./scenario.ts')).runScenario,
  fleet: async () => (await import('./fleet-worker.ts')).runFleet,
};

const USAGE = `usage: meterstack <command> [flags]

commands:
  serve     start the service: embedded MQTT broker, virtual meters, storage, HTTP API
  bridge    connect a meter on a serial port to the MQTT broker
  meter     run a virtual meter on a serial port: the line protocol, or --protocol iec62056-21
  replay    play a trace (CSV or JSON Lines) as a meter against a running or embedded service
  scenario  run declarative scenario files: meterstack scenario run <files...>
  fleet     host N virtual meters in this process against a running service (a fleet worker)

  meterstack help <command>   that command's flags (the same as meterstack <command> --help)
  meterstack --version        the version of meterstack
`;

async function unknown(command: string): Promise<void> {
  const { didYouMean } = await import('../qa/did-you-mean.ts');
  process.stderr.write(
    `meterstack: unknown command '${command}'${didYouMean(command, Object.keys(COMMANDS))}\n\n${USAGE}`,
  );
  process.exitCode = 2;
}

async function main([command, ...rest]: string[]): Promise<void> {
  if (command === undefined || command === '-h' || command === '--help') {
    process.stdout.write(USAGE);
    return;
  }
  if (command === '--version' || command === '-v' || command === 'version') {
    process.stdout.write(`${packageVersion()}\n`);
    return;
  }
  if (command === 'help') {
    const [topic] = rest;
    if (topic === undefined) process.stdout.write(USAGE);
    else if (Object.hasOwn(COMMANDS, topic)) await (await COMMANDS[topic]!())(['--help']);
    else await unknown(topic);
    return;
  }
  if (!Object.hasOwn(COMMANDS, command)) return unknown(command);
  await (await COMMANDS[command]!())(rest);
}

await main(process.argv.slice(2));
