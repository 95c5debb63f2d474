/** The `svc.frontend.*` keys: defaults, origins normalised and bad ones named. */
import { describe, expect, it } from 'vitest';
import { formatProblem } from '../../src/config/config-source.js';
import { loadConfig } from '../../src/config/load-config.js';
import { tempDir } from '../support/temp-dir.js';

function load(env: Record<string, string>, yaml = '') {
  return loadConfig({ cwd: tempDir({ 'svc.yml': yaml }), args: [], env }).config;
}

describe('svc.frontend configuration', () => {
  it('is off by default, on loopback port 7071, with no allowed origin', () => {
    const config = load({});
    expect(config.get('frontend.enabled')).toBe(false);
    expect(config.get('frontend.host')).toBe('127.0.0.1');
    expect(config.get('frontend.port')).toBe(7071);
    expect(config.get('frontend.allowed-origins')).toEqual([]);
  });

  it('takes origins from env (comma-separated) and YAML, normalised as browsers send them', () => {
    expect(load({ SVC_FRONTEND_ALLOWED_ORIGINS: 'https://Shop.Example.com, http://localhost:3000/' }).get('frontend.allowed-origins')).toEqual(['https://shop.example.com', 'http://localhost:3000']);
    expect(load({}, 'frontend:\n  allowed-origins: ["https://shop.example.com:443"]').get('frontend.allowed-origins')).toEqual(['https://shop.example.com']);
  });

  it('names an origin with a path, a wildcard or another scheme, and uses the default', () => {
    for (const bad of ['https://shop.example.com/app', '*', 'ftp://files.example.com', 'shop.example.com']) {
      const config = load({ SVC_FRONTEND_ALLOWED_ORIGINS: bad });
      expect(config.get('frontend.allowed-origins')).toEqual([]);
      const problem = config.problems.find((p) => p.key === 'svc.frontend.allowed-origins');
      expect(problem, bad).toBeDefined();
      expect(formatProblem(problem!)).toContain('is not an origin: write scheme://host[:port], such as https://shop.example.com, with no path');
    }
  });
});
