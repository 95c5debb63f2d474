#!/usr/bin/env node
/** `svc`: the command-line tool. The one command today is `svc check` (see check.ts). */
import { check, USAGE } from './check.js';

process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
});

function main(argv: readonly string[]): number {
  const [command, ...args] = argv;
  if (command === 'check') return check(args, process.env, process.cwd(), (line) => process.stdout.write(`${line}\n`));
  process.stdout.write(`${USAGE}\n`);
  return command === undefined || command === '--help' || command === 'help' ? 0 : 2;
}

process.exitCode = main(process.argv.slice(2));
