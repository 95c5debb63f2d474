/**
 * The YAML parser, loaded when a configuration file (or a YAML value) is first read: a service
 * configured by properties and environment alone, or by a file of comments only, does not load its
 * 70 modules at start.
 */
import { createRequire } from 'node:module';

type Yaml = typeof import('yaml');

let loaded: Yaml | undefined;

export function yaml(): Yaml {
  loaded ??= createRequire(import.meta.url)('yaml') as Yaml;
  return loaded;
}
