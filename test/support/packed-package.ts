/**
 * The package as npm publishes it: `npm pack` of the repository, with scripts not run (the tests
 * run after `npm run build`, and a `prepare` rebuild would rewrite dist/ under other tests' feet).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT } from './fixture-app.js';

export interface PackedFile {
  readonly path: string;
  readonly size: number;
}

export interface Packed {
  /** The tarball's path (empty for a dry run). */
  readonly tarball: string;
  /** Bytes of the gzipped tarball. */
  readonly size: number;
  readonly unpackedSize: number;
  readonly entryCount: number;
  readonly files: readonly PackedFile[];
}

function npmPack(args: readonly string[]): Packed {
  const out = execFileSync('npm', ['pack', '--json', '--ignore-scripts', ...args], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const [report] = JSON.parse(out) as { filename: string; size: number; unpackedSize: number; entryCount: number; files: PackedFile[] }[];
  return { tarball: report!.filename, size: report!.size, unpackedSize: report!.unpackedSize, entryCount: report!.entryCount, files: report!.files };
}

/** What `npm publish` would upload, without writing a tarball. */
export function packList(): Packed {
  return npmPack(['--dry-run']);
}

/**
 * Installs the packed package into `project`/node_modules/@svc/register as npm would (the
 * tarball's files, extracted), and its dependencies beside it, hoisted, as symbolic links to the
 * repository's installed ones (`project` is a temporary directory outside the repository).
 * `extra` names more of the repository's packages the project has (such as `@types/node`).
 */
export function installPacked(project: string, extra: readonly string[] = []): Packed {
  const packed = npmPack(['--pack-destination', project]);
  const target = join(project, 'node_modules', '@svc', 'register');
  mkdirSync(target, { recursive: true });
  execFileSync('tar', ['-xzf', join(project, packed.tarball), '-C', target, '--strip-components=1']);
  const manifest = JSON.parse(execFileSync('tar', ['-xzOf', join(project, packed.tarball), 'package/package.json'], { encoding: 'utf8' })) as { dependencies?: Record<string, string> };
  for (const name of [...Object.keys(manifest.dependencies ?? {}), ...extra]) {
    const link = join(project, 'node_modules', name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', name), link, 'dir');
  }
  return packed;
}
