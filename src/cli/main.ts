// meterstack's command line: `meterstack <command> [flags]`.

import { runServe } from './serve.ts';

const USAGE = `usage: meterstack <command> [flags]

commands:
  serve     start the service: embedded MQTT broker, virtual meters, storage, HTTP API
            (meterstack serve --help for its flags)
`;

const [command, ...rest] = process.argv.slice(2);
switch (command) {
  case 'serve':
    await runServe(rest);
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
