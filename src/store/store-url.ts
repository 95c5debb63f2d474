/**
 * `svc.store.url`: `memory:`, `sqlite:<path>` (relative to the working directory) or
 * `redis://…` / `rediss://…`. The password comes from the URL or `svc.store.password`
 * (`SVC_STORE_PASSWORD`); `redactedStoreUrl` is the only form ever printed.
 */
export type StoreLocation = { readonly kind: 'memory' } | { readonly kind: 'sqlite'; readonly path: string } | { readonly kind: 'redis'; readonly url: string };

export class StoreUrlError extends Error {}

export function parseStoreUrl(url: string): StoreLocation {
  const trimmed = url.trim();
  if (trimmed === 'memory:' || trimmed === 'memory') return { kind: 'memory' };
  if (trimmed.startsWith('sqlite:')) {
    const path = trimmed.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (!path) throw new StoreUrlError('sqlite: needs a path, as in sqlite:./.svc/state.db');
    return { kind: 'sqlite', path };
  }
  if (/^rediss?:\/\//.test(trimmed)) {
    try {
      new URL(trimmed);
    } catch {
      throw new StoreUrlError('not a valid redis URL; write redis://[user:password@]host:port[/db]');
    }
    return { kind: 'redis', url: trimmed };
  }
  throw new StoreUrlError('use memory:, sqlite:<path>, redis://host:port or rediss://host:port');
}

/** The URL with any password replaced by `***`: the only form svc prints. */
export function redactedStoreUrl(url: string): string {
  if (!/^rediss?:\/\//.test(url.trim())) return url;
  try {
    const parsed = new URL(url.trim());
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/\/\/[^@/]*@/, '//***@');
  }
}

/** Removes a password from a message (a driver's error may echo the URL). */
export function withoutSecret(message: string, secrets: readonly (string | undefined)[]): string {
  let out = message;
  for (const secret of secrets) if (secret) out = out.split(secret).join('***');
  return out;
}
