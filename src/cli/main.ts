#!/usr/bin/env node
/** `svc`: the command-line tool: `svc check` (see check.ts) and `svc --version`. */
import { readFileSync } from 'node:fs';
import { check, USAGE } from './check.js';

process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
});

/** The version of the installed package, from its package.json (dist/cli/ is two levels down). */
function version(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

function main(argv: readonly string[]): number {
  const [command, ...args] = argv;
  const write = (line: string): void => void process.stdout.write(`${line}\n`);
  if (command === 'check') return check(args, process.env, process.cwd(), write);
  if (command === '--version' || command === '-V' || command === '-v' || command === 'version') {
    write(version());
    return 0;
  }
  const help = command === undefined || command === '--help' || command === '-h' || command === 'help';
  if (!help) process.stderr.write(`svc: unknown command ${JSON.stringify(command)}\n`);
  (help ? process.stdout : process.stderr).write(`${USAGE}\n`);
  return help ? 0 : 2;
}

process.exitCode = main(process.argv.slice(2));
