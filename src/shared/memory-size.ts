/**
 * Memory accounting for what svc keeps: the bytes a record of strings takes at most, and sizes
 * written for people. Strings count two bytes a character (V8 keeps one byte for Latin-1 text,
 * two otherwise), a record RECORD_OVERHEAD_BYTES beyond its strings (measured: about 120 B).
 */
export const RECORD_OVERHEAD_BYTES = 160;

/** Bytes a record holding these strings takes at most. */
export function recordBytes(...strings: readonly string[]): number {
  let chars = 0;
  for (const s of strings) chars += s.length;
  return RECORD_OVERHEAD_BYTES + 2 * chars;
}

/** `745.7 KiB`, `16.0 MiB`. */
export function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : `${(bytes / 1024).toFixed(1)} KiB`;
}
