/**
 * Configured agents no code declared: `svc.agentic.agents.<name>` applies only to an agent invoked
 * or annotated with exactly that name, so a configured name that never appears is most likely a
 * typo or a renamed agent, whose guardrails silently do not apply.
 */
import type { ResolvedConfig } from '../config/resolved-config.js';

/** The names under `svc.agentic.agents` that are not among `declaredNames`, sorted. */
export function configuredAgentsNeverDeclared(config: ResolvedConfig, declaredNames: Iterable<string>): string[] {
  const declared = new Set(declaredNames);
  return config
    .names('agentic.agents')
    .filter((name) => !declared.has(name))
    .sort();
}
