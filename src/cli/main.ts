// meterstack's command line: `meterstack <command> [flags]`.

import { runBridge } from './bridge.ts';
import { runMeter } from './meter.ts';
import { runReplay } from './replay.ts';
import { runScenario } from './scenario.ts';
import { runServe } from './serve.ts';

const USAGE = `usage: meterstack <command> [flags]

commands:
  serve     start the service: embedded MQTT broker, virtual meters, storage, HTTP API
            (meterstack serve --help for its flags)
  bridge    connect a meter on a serial port to the MQTT broker (meterstack bridge --help)
  meter     run a virtual meter on a serial port, speaking the line protocol (meterstack meter --help)
  replay    play a trace (CSV or JSON Lines) as a meter against a running or embedded service
  scenario  run declarative scenario files: meterstack scenario run <files...>
`;

const [command, ...rest] = process.argv.slice(2);
switch (command) {
  case 'serve':
    await runServe(rest);
    break;
  case 'bridge':
    await runBridge(rest);
    break;
  case 'meter':
    await runMeter(rest);
    break;
  case 'replay':
    await runReplay(rest);
    break;
  case 'scenario':
    await runScenario(rest);
    break;
  case undefined:
  case '-h':
  case '--help':
  case 'help':
    process.stdout.write(USAGE);
    break;
  default:
    process.stderr.write(`meterstack: unknown command '${command}'\n\n${USAGE}`);
    process.exitCode = 2;
}
