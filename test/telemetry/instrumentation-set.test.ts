/**
 * Which instrumentations svc chooses: its default set, `all` as OpenTelemetry's register's set,
 * and the standard OTEL_NODE_* variables on top.
 */
import { getNodeAutoInstrumentations } from '@opentelemetry/auto-instrumentations-node';
import { describe, expect, it } from 'vitest';
import { chosenInstrumentations, packageOf } from '../../src/telemetry/instrumentation-set.js';

const choose = (configured: string[], env: NodeJS.ProcessEnv = {}, unknown: string[] = []) =>
  chosenInstrumentations({ configured, env, onUnknownName: (variable, name) => unknown.push(`${variable}: ${name}`) });

describe('the instrumentations svc chooses', () => {
  it('all is exactly what OpenTelemetry register sets up', () => {
    const otel = getNodeAutoInstrumentations().map((i) => i.instrumentationName.replace('@opentelemetry/instrumentation-', ''));
    expect(choose(['all']).sort()).toEqual(otel.sort());
  });

  it('default has server, client, database, cache, queue and log instrumentations, and no span per middleware, DNS lookup or connection', () => {
    const chosen = choose(['default']);
    for (const name of ['http', 'undici', 'express', 'koa', 'nestjs-core', 'pg', 'mongodb', 'redis', 'ioredis', 'kafkajs', 'amqplib', 'pino']) expect(chosen).toContain(name);
    for (const name of ['dns', 'net', 'fs', 'connect', 'router', 'knex', 'generic-pool', 'runtime-node']) expect(chosen).not.toContain(name);
  });

  it('names add to the default set', () => {
    expect(choose(['default', 'dns'])).toEqual([...choose(['default']), 'dns']);
    expect(choose(['http', 'pg'])).toEqual(['http', 'pg']);
  });

  it('OTEL_NODE_ENABLED_INSTRUMENTATIONS replaces the set, OTEL_NODE_DISABLED_INSTRUMENTATIONS removes from it', () => {
    expect(choose(['default'], { OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'http, net,express' })).toEqual(['http', 'express', 'net']);
    expect(choose(['all'], { OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'net,dns' })).not.toContain('net');
    expect(choose(['default'], { OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'http,express', OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'express' })).toEqual(['http']);
  });

  it('a name in the variables that is no instrumentation is reported, fastify (svc route naming) is not', () => {
    const unknown: string[] = [];
    expect(choose(['default'], { OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'http,expresss', OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'fastify' }, unknown)).toEqual(['http']);
    expect(unknown).toEqual(['OTEL_NODE_ENABLED_INSTRUMENTATIONS: expresss']);
  });
});

describe('the package a specifier loads', () => {
  it.each([
    ['express', 'express'],
    ['express/lib/router', 'express'],
    ['@nestjs/core', '@nestjs/core'],
    ['@nestjs/core/router/router-module', '@nestjs/core'],
    ['./local.js', undefined],
    ['/abs/path.js', undefined],
    ['node:http', undefined],
    ['file:///x/y.mjs', undefined],
  ])('%s -> %s', (specifier, expected) => {
    expect(packageOf(specifier)).toBe(expected);
  });
});
