/** The 15 built-in tools, in the spec's catalog order: Core, Reporting, Agent-Autonomous, Multi-Agent. */
import type { ToolDefinition } from './tool-definition.js';
import { addSessionEntry } from './tools/add-session-entry.js';
import { createSession } from './tools/create-session.js';
import { executeRemediation } from './tools/execute-remediation.js';
import { getCrossStackContext } from './tools/get-cross-stack-context.js';
import { getErrorAnalysis } from './tools/get-error-analysis.js';
import { getExecutiveSummary } from './tools/get-executive-summary.js';
import { getIncidentContext } from './tools/get-incident-context.js';
import { getPlaybook } from './tools/get-playbook.js';
import { getRecentAgentActions } from './tools/get-recent-agent-actions.js';
import { getServiceHealth } from './tools/get-service-health.js';
import { getSession } from './tools/get-session.js';
import { getSloReport } from './tools/get-slo-report.js';
import { getTrendAnalysis } from './tools/get-trend-analysis.js';
import { listRemediationActions } from './tools/list-remediation-actions.js';
import { verifyRemediationEffect } from './tools/verify-remediation-effect.js';

export const BUILT_IN_TOOLS: readonly ToolDefinition[] = [
  getServiceHealth,
  getIncidentContext,
  listRemediationActions,
  executeRemediation,
  getRecentAgentActions,
  getSloReport,
  getExecutiveSummary,
  getTrendAnalysis,
  getCrossStackContext,
  getPlaybook,
  verifyRemediationEffect,
  getErrorAnalysis,
  createSession,
  addSessionEntry,
  getSession,
];
