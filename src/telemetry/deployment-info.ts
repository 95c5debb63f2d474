/**
 * The deployment record: the `svc.deployment.info` event body (only non-empty fields plus
 * `timestamp`) and the `svc.deployment.*` attributes. They are constant for the process, so they
 * go on the Resource, which every span and log record carries and OTLP sends once per batch
 * instead of once per span (bench/http.mjs measured the per-span copy at several percent of
 * throughput). The id is new for every process start, so two starts of one version are told apart.
 */

import { randomUUID } from 'node:crypto';
import type { Attributes } from '@opentelemetry/api';
import type { ResolvedConfig } from '../config/resolved-config.js';
import { DEPLOYMENT, RESOURCE } from '../shared/attribute-names.js';
import type { EventLog } from './event-log.js';

export interface DeploymentInfo {
  readonly id: string;
  readonly version: string;
  readonly commitSha: string;
  readonly previousVersion: string;
  readonly strategy: string;
  /** ISO 8601 UTC time of the start. */
  readonly timestamp: string;
}

export function deploymentFromConfig(config: ResolvedConfig, now: Date): DeploymentInfo {
  return Object.freeze({
    id: randomUUID(),
    version: config.get<string>('deployment.version'),
    commitSha: config.get<string>('deployment.commit-sha'),
    previousVersion: config.get<string>('deployment.previous-version'),
    strategy: config.get<string>('deployment.strategy'),
    timestamp: now.toISOString(),
  });
}

export function deploymentEventBody(info: DeploymentInfo): Record<string, string> {
  const body: Record<string, string> = {};
  if (info.version) body.version = info.version;
  if (info.commitSha) body.commit_sha = info.commitSha;
  if (info.previousVersion) body.previous_version = info.previousVersion;
  if (info.strategy) body.strategy = info.strategy;
  body.timestamp = info.timestamp;
  return body;
}

export function deploymentAttributes(info: DeploymentInfo): Attributes {
  const attributes: Attributes = { [DEPLOYMENT.id]: info.id, [DEPLOYMENT.timestamp]: info.timestamp };
  if (info.version) {
    attributes[DEPLOYMENT.version] = info.version;
    attributes[RESOURCE.serviceVersion] = info.version;
  }
  if (info.commitSha) attributes[DEPLOYMENT.commitSha] = info.commitSha;
  if (info.previousVersion) attributes[DEPLOYMENT.previousVersion] = info.previousVersion;
  if (info.strategy) attributes[DEPLOYMENT.strategy] = info.strategy;
  return Object.freeze(attributes);
}

/** One line for change tracking: `version 2.4.1 (was 2.4.0, rolling, commit 9f8e7d6)`. */
export function deploymentDescription(info: DeploymentInfo): string {
  const details = [info.previousVersion && `was ${info.previousVersion}`, info.strategy, info.commitSha && `commit ${info.commitSha}`].filter(Boolean);
  return `${info.version ? `version ${info.version}` : 'unversioned start'}${details.length ? ` (${details.join(', ')})` : ''}`;
}

export function emitDeploymentInfo(events: EventLog, info: DeploymentInfo): void {
  events.emit('svc.deployment.info', 'INFO', deploymentEventBody(info));
}
