/**
 * Which configured agent names the project's source mentions, for `svc check`: the CLI cannot run
 * the app, so it looks for each name as a quoted string (`'support-bot'`, `"support-bot"`,
 * `` `support-bot` ``), the way `agent('support-bot')` and `@AgentMethod({ name: 'support-bot' })`
 * write it, in the JavaScript and TypeScript files under the project directory. `node_modules`,
 * `.git` and dot-directories are skipped; the walk is bounded in files and bytes and says when it
 * stopped early. Start-up checks the same names against what the code really declared.
 */
import { type Dirent, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const SOURCE = /\.(?:[cm]?js|[cm]?ts|jsx|tsx)$/;
const QUOTES = ["'", '"', '`'];

export interface SourceScanLimits {
  readonly maxFiles: number;
  readonly maxFileBytes: number;
  readonly maxTotalBytes: number;
}

export const SOURCE_SCAN_LIMITS: SourceScanLimits = { maxFiles: 5000, maxFileBytes: 1024 * 1024, maxTotalBytes: 64 * 1024 * 1024 };

export interface SourceScan {
  /** The names found quoted in at least one file. */
  readonly found: ReadonlySet<string>;
  readonly files: number;
  /** True when a limit stopped the walk before every file was read. */
  readonly partial: boolean;
}

export function agentNamesInSource(root: string, names: readonly string[], limits: SourceScanLimits = SOURCE_SCAN_LIMITS): SourceScan {
  const found = new Set<string>();
  let files = 0;
  let bytes = 0;
  let partial = false;
  const pending = [root];
  while (pending.length > 0 && found.size < names.length) {
    const dir = pending.pop() as string;
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && !entry.name.startsWith('.')) pending.push(path);
        continue;
      }
      if (!entry.isFile() || !SOURCE.test(entry.name)) continue;
      if (files >= limits.maxFiles || bytes >= limits.maxTotalBytes) {
        partial = true;
        return { found, files, partial };
      }
      let text: string;
      try {
        const size = statSync(path).size;
        if (size > limits.maxFileBytes) {
          partial = true;
          continue;
        }
        text = readFileSync(path, 'utf8');
        bytes += size;
      } catch {
        continue;
      }
      files++;
      for (const name of names) if (!found.has(name) && QUOTES.some((q) => text.includes(`${q}${name}${q}`))) found.add(name);
    }
  }
  return { found, files, partial };
}
